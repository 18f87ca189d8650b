// An identity provider's SAML metadata (SAML Metadata 2.0 §2.3.2, §2.4.3) read for a connection: its entityID, the
// SingleSignOnService we send AuthnRequests to (HTTP-Redirect preferred, else HTTP-POST), its SingleLogoutService,
// and the certificates of its signing KeyDescriptors, each checked by node:crypto. Nothing else in it is believed.
import { X509Certificate } from 'node:crypto';
import { isLoopbackUrl } from '../../../net/loopback.js';
import { childElements as children } from './dom.js';
import { SamlSpError } from './saml-sp-error.js';
import { parseUntrustedDocument } from './untrusted-xml.js';

export const MD_NS = 'urn:oasis:names:tc:SAML:2.0:metadata';
export const DS_NS = 'http://www.w3.org/2000/09/xmldsig#';
export const PROTOCOL_NS = 'urn:oasis:names:tc:SAML:2.0:protocol';
export const BINDING_REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
export const BINDING_POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

/** An IdP's metadata document is small; one of a federation's aggregates is not a connection's. */
export const METADATA_MAX_BYTES = 512 * 1024;
const MAX_CERTIFICATES = 10;

export type SsoBinding = 'redirect' | 'post';

export interface IdpMetadata {
  entityId: string;
  ssoUrl: string;
  ssoBinding: SsoBinding;
  sloUrl: string | null;
  /** PEM, each a certificate node:crypto reads. */
  signingCertificates: string[];
}

function httpsOrLoopback(value: string | null, what: string): string {
  let url: URL;
  try {
    url = new URL(value ?? '');
  } catch {
    throw new SamlSpError('metadata', `${what} is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackUrl(url)))
    throw new SamlSpError('metadata', `${what} must use https`);
  return url.href;
}

/** A base64 DER certificate from ds:X509Certificate as PEM, refused unless node:crypto reads it. */
export function certificatePem(base64: string): string {
  const clean = base64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(clean)) throw new SamlSpError('metadata', 'a certificate is not base64');
  const pem = `-----BEGIN CERTIFICATE-----\n${clean.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
  } catch {
    throw new SamlSpError('metadata', 'a certificate does not parse');
  }
  return pem;
}

/** Reads the IdP role of `xml` (an EntityDescriptor); throws SamlSpError naming what is missing. */
export function readIdpMetadata(xml: string): IdpMetadata {
  const doc = parseUntrustedDocument(xml, METADATA_MAX_BYTES);
  const root = doc.documentElement;
  if (root.namespaceURI !== MD_NS || root.localName !== 'EntityDescriptor')
    throw new SamlSpError('metadata', 'the document is not an md:EntityDescriptor');
  const entityId = root.getAttribute('entityID');
  if (!entityId || entityId.length > 1024) throw new SamlSpError('metadata', 'the EntityDescriptor has no entityID');
  // Metadata §2.4.3: an IDPSSODescriptor that speaks SAML 2.0.
  const idp = children(root, MD_NS, 'IDPSSODescriptor').find((d) =>
    (d.getAttribute('protocolSupportEnumeration') ?? '').split(/\s+/).includes(PROTOCOL_NS),
  );
  if (!idp) throw new SamlSpError('metadata', 'the entity has no SAML 2.0 IDPSSODescriptor');
  const sso = children(idp, MD_NS, 'SingleSignOnService');
  const redirect = sso.find((s) => s.getAttribute('Binding') === BINDING_REDIRECT);
  const post = sso.find((s) => s.getAttribute('Binding') === BINDING_POST);
  const chosen = redirect ?? post;
  if (!chosen) throw new SamlSpError('metadata', 'the IdP has no SingleSignOnService with the HTTP-Redirect or HTTP-POST binding');
  const slo = children(idp, MD_NS, 'SingleLogoutService').find((s) => s.getAttribute('Binding') === BINDING_REDIRECT);
  // Metadata §2.4.1.1: a KeyDescriptor without `use` is for both signing and encryption.
  const signingCertificates = children(idp, MD_NS, 'KeyDescriptor')
    .filter((k) => (k.getAttribute('use') ?? 'signing') === 'signing')
    .flatMap((k) => children(k, DS_NS, 'KeyInfo'))
    .flatMap((info) => children(info, DS_NS, 'X509Data'))
    .flatMap((data) => children(data, DS_NS, 'X509Certificate'))
    .map((c) => certificatePem(c.textContent ?? ''));
  if (signingCertificates.length === 0) throw new SamlSpError('metadata', 'the IdP publishes no signing certificate');
  if (signingCertificates.length > MAX_CERTIFICATES) throw new SamlSpError('metadata', 'the IdP publishes too many certificates');
  return {
    entityId,
    ssoUrl: httpsOrLoopback(chosen.getAttribute('Location'), 'the SingleSignOnService Location'),
    ssoBinding: chosen === redirect ? 'redirect' : 'post',
    sloUrl: slo ? httpsOrLoopback(slo.getAttribute('Location'), 'the SingleLogoutService Location') : null,
    signingCertificates: [...new Set(signingCertificates)],
  };
}
