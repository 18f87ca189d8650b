// The identity provider's metadata (SAML Metadata 2.0 §2.4.3 IDPSSODescriptor): the entityID is the issuer, the
// signing certificates are every published SAML key, SSO and SLO are offered over HTTP-Redirect and HTTP-POST.
// Built as a DOM and serialized by @xmldom/xmldom, so that no value is ever spliced into markup.
import { DOMImplementation, XMLSerializer } from '@xmldom/xmldom';
import { BINDINGS, NAME_ID_FORMATS, NS } from '../namespaces.js';

/** The NameID formats the provider issues, in the order metadata lists them. */
export const IDP_NAME_ID_FORMATS = [
  NAME_ID_FORMATS.email,
  NAME_ID_FORMATS.persistent,
  NAME_ID_FORMATS.transient,
  NAME_ID_FORMATS.unspecified,
];

/** The media type of SAML metadata (SAML Metadata 2.0 Appendix A, RFC registration). */
export const METADATA_CONTENT_TYPE = 'application/samlmetadata+xml';

export interface IdpMetadataInput {
  /** The issuer URL: the entityID. */
  issuer: string;
  ssoUrl: string;
  sloUrl: string;
  /** The published certificates, PEM, the signing one first. */
  certificates: readonly string[];
  wantAuthnRequestsSigned: boolean;
}

/** The base64 body of a PEM certificate, as ds:X509Certificate holds it. */
export function pemBody(pem: string): string {
  return pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
}

/** The metadata document, serialized. */
export function idpMetadataXml(input: IdpMetadataInput): string {
  const doc = new DOMImplementation().createDocument(NS.metadata, 'md:EntityDescriptor', null);
  const root = doc.documentElement!;
  root.setAttributeNS('http://www.w3.org/2000/xmlns/', 'xmlns:ds', NS.xmldsig);
  root.setAttribute('entityID', input.issuer);
  const add = (parent: Element, ns: string, name: string, attributes: Record<string, string> = {}, text?: string): Element => {
    const el = doc.createElementNS(ns, name);
    for (const [key, value] of Object.entries(attributes)) el.setAttribute(key, value);
    if (text !== undefined) el.appendChild(doc.createTextNode(text));
    parent.appendChild(el);
    return el;
  };
  const idp = add(root, NS.metadata, 'md:IDPSSODescriptor', {
    WantAuthnRequestsSigned: String(input.wantAuthnRequestsSigned),
    protocolSupportEnumeration: NS.protocol,
  });
  for (const pem of input.certificates) {
    const descriptor = add(idp, NS.metadata, 'md:KeyDescriptor', { use: 'signing' });
    const data = add(add(descriptor, NS.xmldsig, 'ds:KeyInfo'), NS.xmldsig, 'ds:X509Data');
    add(data, NS.xmldsig, 'ds:X509Certificate', {}, pemBody(pem));
  }
  for (const binding of [BINDINGS.redirect, BINDINGS.post])
    add(idp, NS.metadata, 'md:SingleLogoutService', { Binding: binding, Location: input.sloUrl });
  for (const format of IDP_NAME_ID_FORMATS) add(idp, NS.metadata, 'md:NameIDFormat', {}, format);
  for (const binding of [BINDINGS.redirect, BINDINGS.post])
    add(idp, NS.metadata, 'md:SingleSignOnService', { Binding: binding, Location: input.ssoUrl });
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(doc)}`;
}
