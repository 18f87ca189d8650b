// The signatures of SAML messages from a service provider (Bindings 2.0 §3.4.4.1 for HTTP-Redirect, Core §5 for an
// enveloped XML signature over HTTP-POST), checked with the SP's metadata certificates only; and our own signature of
// a message we send over HTTP-Redirect.
import { createPublicKey, sign, verify } from 'node:crypto';
import { SignedXml } from 'xml-crypto';
import type { SamlKeyPair } from '../credentials.js';
import { ALGORITHMS, NS } from '../namespaces.js';
import { SamlError } from '../saml-error.js';
import { attributeOf, childElements } from '../xml-reader.js';
import type { SamlServiceProvider } from './service-providers.js';

/** The query parameters in the order and encoding they arrived (the signed octets are these, not a re-encoding). */
export function rawParams(rawQuery: string): Map<string, { raw: string; value: string }> {
  const params = new Map<string, { raw: string; value: string }>();
  for (const part of rawQuery.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decodeURIComponent((eq < 0 ? part : part.slice(0, eq)).replace(/\+/g, ' '));
    const raw = eq < 0 ? '' : part.slice(eq + 1);
    if (params.has(name)) throw new SamlError('bad_message', `the parameter ${name} is repeated`);
    let value: string;
    try {
      value = decodeURIComponent(raw.replace(/\+/g, ' '));
    } catch {
      throw new SamlError('bad_encoding', `the parameter ${name} is not URL-encoded`);
    }
    params.set(name, { raw, value });
  }
  return params;
}

/**
 * Bindings §3.4.4.1: the signature of a Redirect message covers "SAMLRequest=value&RelayState=value&SigAlg=value"
 * as the values were URL-encoded in the query; RSA-SHA256 only, with one of the SP's signing certificates.
 */
export function checkRedirectSignature(
  params: ReturnType<typeof rawParams>,
  sp: SamlServiceProvider,
  name: 'SAMLRequest' | 'SAMLResponse' = 'SAMLRequest',
): boolean {
  const signature = params.get('Signature');
  const sigAlg = params.get('SigAlg');
  if (!signature && !sigAlg) return false;
  if (!signature || !sigAlg) throw new SamlError('bad_signature', 'the message has a Signature without a SigAlg, or the reverse');
  if (sigAlg.value !== ALGORITHMS.rsaSha256) throw new SamlError('bad_signature', 'the message is not signed with RSA-SHA256');
  const relay = params.get('RelayState');
  const octets = [`${name}=${params.get(name)!.raw}`, ...(relay ? [`RelayState=${relay.raw}`] : []), `SigAlg=${sigAlg.raw}`].join('&');
  const bytes = Buffer.from(signature.value, 'base64');
  const valid = sp.role.signingCertificates.some((pem) => verify('sha256', Buffer.from(octets, 'utf8'), createPublicKey(pem), bytes));
  if (!valid) throw new SamlError('bad_signature', "the message's signature does not verify with the SP's certificate");
  return true;
}

/**
 * Core §5.4.2: an enveloped signature whose one Reference is the AuthnRequest itself (its ID), checked with the SP's
 * certificates only (never one the message carries in KeyInfo).
 */
export function checkPostSignature(xml: string, root: Element, sp: SamlServiceProvider): boolean {
  const signatures = childElements(root, NS.xmldsig, 'Signature');
  if (signatures.length === 0) return false;
  if (signatures.length > 1) throw new SamlError('bad_signature', 'the message has more than one signature');
  const id = attributeOf(root, 'ID');
  const references = signatures[0]!.getElementsByTagNameNS(NS.xmldsig, 'Reference');
  if (references.length !== 1 || references[0]!.getAttribute('URI') !== `#${id}`) {
    throw new SamlError('bad_signature', 'the signature does not reference the message itself');
  }
  for (const pem of sp.role.signingCertificates) {
    const verifier = new SignedXml({ publicCert: pem, getCertFromKeyInfo: () => null });
    verifier.loadSignature(signatures[0]!);
    try {
      if (verifier.checkSignature(xml)) return true;
    } catch {
      // another certificate may verify it
    }
  }
  throw new SamlError('bad_signature', "the message's signature does not verify with the SP's certificate");
}

/** Bindings §3.4.4.1: the query of a message we send over HTTP-Redirect, signed with RSA-SHA256 over its octets. */
export function signedRedirectQuery(
  name: 'SAMLRequest' | 'SAMLResponse',
  encoded: string,
  relayState: string | undefined,
  key: SamlKeyPair,
): string {
  const parts = [`${name}=${encodeURIComponent(encoded)}`];
  if (relayState !== undefined) parts.push(`RelayState=${encodeURIComponent(relayState)}`);
  parts.push(`SigAlg=${encodeURIComponent(ALGORITHMS.rsaSha256)}`);
  const octets = parts.join('&');
  const signature = sign('sha256', Buffer.from(octets, 'utf8'), key.privateKeyPem).toString('base64');
  return `${octets}&Signature=${encodeURIComponent(signature)}`;
}
