// The two browser bindings' encodings (Bindings 2.0 §3.4.4 HTTP-Redirect: DEFLATE then base64 in the query;
// §3.5.4 HTTP-POST: base64 in a form field), decoded with caps so that a small message cannot inflate into a large
// one before the XML reader's own cap.
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { SamlError } from './saml-error.js';
import { MAX_MESSAGE_BYTES } from './xml-reader.js';

/** The longest base64 text that decodes within MAX_MESSAGE_BYTES: a form field or query value past it is refused. */
export const MAX_ENCODED_MESSAGE_CHARS = Math.ceil((MAX_MESSAGE_BYTES * 4) / 3) + 4;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Bindings §3.4.3 / §3.5.3: "RelayState data MUST NOT exceed 80 bytes in length". */
export const MAX_RELAY_STATE_BYTES = 80;

/** Refuses a RelayState longer than the bindings allow; `undefined` (none sent) passes. */
export function checkRelayState(relayState: string | undefined): void {
  if (relayState !== undefined && Buffer.byteLength(relayState, 'utf8') > MAX_RELAY_STATE_BYTES) {
    throw new SamlError('bad_message', `the RelayState is over ${MAX_RELAY_STATE_BYTES} bytes`);
  }
}

function decodeBase64(value: string): Buffer {
  const compact = value.replace(/[\r\n\t ]+/g, '');
  if (compact.length > MAX_ENCODED_MESSAGE_CHARS) throw new SamlError('too_large', 'the SAML message is too large');
  if (compact.length % 4 !== 0 || !BASE64.test(compact)) {
    throw new SamlError('bad_encoding', 'the SAML message is not base64');
  }
  return Buffer.from(compact, 'base64');
}

/** Bindings §3.4.4.1: the XML of a SAMLRequest/SAMLResponse query parameter (base64 of raw DEFLATE). */
export function decodeRedirectMessage(value: string): string {
  const deflated = decodeBase64(value);
  let inflated: Buffer;
  try {
    inflated = inflateRawSync(deflated, { maxOutputLength: MAX_MESSAGE_BYTES });
  } catch (error) {
    const tooLarge = (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
    throw tooLarge
      ? new SamlError('too_large', 'the SAML message inflates past its size limit')
      : new SamlError('bad_encoding', 'the SAML message is not DEFLATE-encoded');
  }
  return utf8(inflated);
}

/** Bindings §3.5.4: the XML of a SAMLRequest/SAMLResponse form field (base64 of the XML). */
export function decodePostMessage(value: string): string {
  return utf8(decodeBase64(value));
}

/** Bindings §3.4.4.1: the query value for `xml` (raw DEFLATE, then base64; the caller URL-encodes). */
export function encodeRedirectMessage(xml: string): string {
  return deflateRawSync(Buffer.from(xml, 'utf8')).toString('base64');
}

/** Bindings §3.5.4: the form value for `xml`. */
export function encodePostMessage(xml: string): string {
  return Buffer.from(xml, 'utf8').toString('base64');
}

function utf8(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new SamlError('bad_encoding', 'the SAML message is not UTF-8');
  }
}
