// The signatures of SAML messages from a service provider (Bindings 2.0 §3.4.4.1 for HTTP-Redirect, Core §5 for an
// enveloped XML signature over HTTP-POST), checked with the SP's metadata certificates only; and our own signature of
// a message we send over HTTP-Redirect or HTTP-POST.
import { createPublicKey, sign, verify } from 'node:crypto';
import { SignedXml } from 'xml-crypto';
import { encodePostMessage, encodeRedirectMessage } from '../bindings.js';
import type { SamlKeyPair } from '../credentials.js';
import { ALGORITHMS, NS, type BindingName } from '../namespaces.js';
import { SamlError } from '../saml-error.js';
import { attributeOf, childElements } from '../xml-reader.js';
import { pemBody } from './idp-metadata.js';
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

/**
 * Bindings §3.5.4 (HTTP-POST): a message we send in a form carries its signature inside, an enveloped XML signature
 * (Core §5.4.2: one Reference, to the root element's ID, with the enveloped-signature and exclusive c14n transforms;
 * RSA-SHA256, SHA-256 digest; our certificate in KeyInfo), placed right after the Issuer as the schema orders it
 * (Core §3.2.1 and §3.2.2). `id` is the root element's ID.
 */
export function signedPostXml(xml: string, id: string, key: SamlKeyPair): string {
  if (!/^[A-Za-z_][\w.-]*$/.test(id)) throw new TypeError('signedPostXml: the ID is not an NCName');
  const root = `/*[@ID='${id}']`;
  const signer = new SignedXml({
    privateKey: key.privateKeyPem,
    publicCert: key.certificatePem,
    signatureAlgorithm: ALGORITHMS.rsaSha256,
    canonicalizationAlgorithm: ALGORITHMS.exclusiveC14n,
    getKeyInfoContent: () => `<ds:X509Data><ds:X509Certificate>${pemBody(key.certificatePem)}</ds:X509Certificate></ds:X509Data>`,
  });
  signer.addReference({
    xpath: root,
    digestAlgorithm: ALGORITHMS.sha256,
    transforms: [ALGORITHMS.envelopedSignature, ALGORITHMS.exclusiveC14n],
  });
  signer.computeSignature(xml, {
    prefix: 'ds',
    location: { reference: `${root}/*[local-name(.)='Issuer' and namespace-uri(.)='${NS.assertion}']`, action: 'after' },
  });
  return signer.getSignedXml();
}

/** A signed message of ours on its way to a peer through the browser: a redirect to `url`, or a form posted to it. */
export type FrontChannelMessage = { kind: 'redirect'; url: string } | { kind: 'post'; url: string; params: Record<string, string> };

/**
 * `xml` (its root's ID `id`) as the `name` parameter to `location` over `binding`, signed the binding's way: the
 * query signature over HTTP-Redirect (§3.4.4.1, DEFLATE then base64), the enveloped one over HTTP-POST (§3.5.4, the
 * XML in base64, not deflated).
 */
export function signedFrontChannelMessage(input: {
  binding: BindingName;
  name: 'SAMLRequest' | 'SAMLResponse';
  xml: string;
  id: string;
  location: string;
  relayState: string | undefined;
  key: SamlKeyPair;
}): FrontChannelMessage {
  const { location, relayState } = input;
  if (input.binding === 'redirect') {
    const query = signedRedirectQuery(input.name, encodeRedirectMessage(input.xml), relayState, input.key);
    return { kind: 'redirect', url: `${location}${location.includes('?') ? '&' : '?'}${query}` };
  }
  const params: Record<string, string> = { [input.name]: encodePostMessage(signedPostXml(input.xml, input.id, input.key)) };
  if (relayState !== undefined) params.RelayState = relayState;
  return { kind: 'post', url: location, params };
}
