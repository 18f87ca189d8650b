// Reads a peer's SAML metadata (Metadata 2.0 §2.3-2.4): who it is, where its endpoints are, what it signs and which
// certificates it signs and encrypts with. One reader for both sides: the identity provider reads its service
// providers' SPSSODescriptor, a `saml` connection reads its IdP's IDPSSODescriptor.
import { X509Certificate } from 'node:crypto';
import { bindingName, NS, type BindingName } from './namespaces.js';
import { SamlError } from './saml-error.js';
import { attributeOf, childElements, MAX_METADATA_BYTES, parseUntrustedXml, textOf } from './xml-reader.js';

export interface Endpoint {
  binding: BindingName;
  location: string;
  /** Metadata §2.2.2: where responses to this endpoint go, when it differs from `location`. */
  responseLocation?: string;
}

export interface IndexedEndpoint extends Endpoint {
  index: number;
  isDefault: boolean;
}

export interface ServiceProviderRole {
  /** Metadata §2.4.4: the assertion consumer services; responses go to these addresses only. */
  assertionConsumerServices: IndexedEndpoint[];
  singleLogoutServices: Endpoint[];
  nameIdFormats: string[];
  authnRequestsSigned: boolean;
  wantAssertionsSigned: boolean;
  signingCertificates: string[];
  encryptionCertificates: string[];
  /** Metadata §2.4.1.1: the EncryptionMethod Algorithms its encryption keys name, in the metadata's order. */
  encryptionMethods: string[];
}

export interface IdentityProviderRole {
  singleSignOnServices: Endpoint[];
  singleLogoutServices: Endpoint[];
  nameIdFormats: string[];
  wantAuthnRequestsSigned: boolean;
  signingCertificates: string[];
}

export interface EntityMetadata {
  entityId: string;
  serviceProvider?: ServiceProviderRole;
  identityProvider?: IdentityProviderRole;
}

const SAML2_PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';

/**
 * The entity `xml` describes. An EntitiesDescriptor (a federation's aggregate) is read only when it holds exactly one
 * entity, or when `entityId` names the one wanted. Endpoints in bindings this provider does not speak are left out;
 * a certificate that does not parse makes the whole document refused (SamlError `bad_metadata`), since half a key
 * list is worse than none.
 */
export function readEntityMetadata(xml: string, entityId?: string): EntityMetadata {
  const document = parseUntrustedXml(xml, MAX_METADATA_BYTES);
  const root = document.documentElement;
  if (root.namespaceURI !== NS.metadata) throw new SamlError('not_metadata', 'the document is not SAML metadata');
  const entity = root.localName === 'EntityDescriptor' ? root : pickEntity(root, entityId);
  const id = attributeOf(entity, 'entityID');
  if (!id) throw new SamlError('bad_metadata', 'the EntityDescriptor has no entityID');
  if (entityId !== undefined && id !== entityId) throw new SamlError('bad_metadata', 'the metadata is for another entity');
  if (id.length > 1024) throw new SamlError('bad_metadata', 'the entityID is over 1024 characters');
  const sp = saml2Role(entity, 'SPSSODescriptor');
  const idp = saml2Role(entity, 'IDPSSODescriptor');
  if (!sp && !idp) throw new SamlError('bad_metadata', 'the entity has no SAML 2.0 SP or IdP role');
  return {
    entityId: id,
    ...(sp && { serviceProvider: readServiceProvider(sp) }),
    ...(idp && { identityProvider: readIdentityProvider(idp) }),
  };
}

function pickEntity(root: Element, entityId: string | undefined): Element {
  if (root.localName !== 'EntitiesDescriptor') throw new SamlError('not_metadata', 'the document is not SAML metadata');
  const entities = childElements(root, NS.metadata, 'EntityDescriptor');
  const chosen = entityId === undefined ? entities : entities.filter((e) => attributeOf(e, 'entityID') === entityId);
  if (chosen.length !== 1) {
    throw new SamlError('bad_metadata', 'the EntitiesDescriptor does not name exactly one entity to read');
  }
  return chosen[0] as Element;
}

/** Metadata §2.4.1: the role element whose protocolSupportEnumeration lists SAML 2.0. */
function saml2Role(entity: Element, localName: string): Element | undefined {
  const roles = childElements(entity, NS.metadata, localName).filter((role) =>
    (attributeOf(role, 'protocolSupportEnumeration') ?? '').split(/\s+/).includes(SAML2_PROTOCOL),
  );
  if (roles.length > 1) throw new SamlError('bad_metadata', `more than one SAML 2.0 ${localName}`);
  return roles[0];
}

function readServiceProvider(role: Element): ServiceProviderRole {
  const acs = childElements(role, NS.metadata, 'AssertionConsumerService').flatMap((element) => {
    const endpoint = readEndpoint(element);
    if (!endpoint) return [];
    const index = Number(attributeOf(element, 'index'));
    if (!Number.isInteger(index) || index < 0 || index > 65535) {
      throw new SamlError('bad_metadata', 'an AssertionConsumerService has no valid index');
    }
    return [{ ...endpoint, index, isDefault: attributeOf(element, 'isDefault') === 'true' }];
  });
  if (acs.length === 0) throw new SamlError('bad_metadata', 'the SP has no AssertionConsumerService in HTTP-POST');
  return {
    assertionConsumerServices: acs,
    singleLogoutServices: endpoints(role, 'SingleLogoutService'),
    nameIdFormats: nameIdFormats(role),
    authnRequestsSigned: attributeOf(role, 'AuthnRequestsSigned') === 'true',
    wantAssertionsSigned: attributeOf(role, 'WantAssertionsSigned') === 'true',
    signingCertificates: certificates(role, 'signing'),
    encryptionCertificates: certificates(role, 'encryption'),
    encryptionMethods: encryptionMethods(role),
  };
}

function readIdentityProvider(role: Element): IdentityProviderRole {
  const sso = endpoints(role, 'SingleSignOnService');
  if (sso.length === 0) throw new SamlError('bad_metadata', 'the IdP has no SingleSignOnService in a browser binding');
  const signingCertificates = certificates(role, 'signing');
  if (signingCertificates.length === 0) throw new SamlError('bad_metadata', 'the IdP publishes no signing certificate');
  return {
    singleSignOnServices: sso,
    singleLogoutServices: endpoints(role, 'SingleLogoutService'),
    nameIdFormats: nameIdFormats(role),
    wantAuthnRequestsSigned: attributeOf(role, 'WantAuthnRequestsSigned') === 'true',
    signingCertificates,
  };
}

function endpoints(role: Element, localName: string): Endpoint[] {
  return childElements(role, NS.metadata, localName).flatMap((element) => {
    const endpoint = readEndpoint(element);
    return endpoint ? [endpoint] : [];
  });
}

/** An endpoint in HTTP-Redirect or HTTP-POST with an absolute http(s) location; other bindings are left out. */
function readEndpoint(element: Element): Endpoint | undefined {
  const binding = bindingName(attributeOf(element, 'Binding') ?? '');
  if (!binding) return undefined;
  const location = absoluteUrl(attributeOf(element, 'Location'), element.localName);
  const responseLocation = attributeOf(element, 'ResponseLocation');
  return {
    binding,
    location,
    ...(responseLocation !== undefined && { responseLocation: absoluteUrl(responseLocation, element.localName) }),
  };
}

function absoluteUrl(value: string | undefined, what: string): string {
  let url: URL;
  try {
    url = new URL(value ?? '');
  } catch {
    throw new SamlError('bad_metadata', `a ${what} has no absolute Location`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new SamlError('bad_metadata', `a ${what} Location is not http(s)`);
  }
  if (url.hash) throw new SamlError('bad_metadata', `a ${what} Location has a fragment`);
  return url.href;
}

function nameIdFormats(role: Element): string[] {
  return childElements(role, NS.metadata, 'NameIDFormat').map(textOf).filter(Boolean);
}

/** Metadata §2.4.1.1: the algorithms an SP's encryption KeyDescriptors name (their EncryptionMethod elements). */
function encryptionMethods(role: Element): string[] {
  const algorithms = childElements(role, NS.metadata, 'KeyDescriptor')
    .filter((descriptor) => (attributeOf(descriptor, 'use') ?? 'encryption') === 'encryption')
    .flatMap((descriptor) => childElements(descriptor, NS.metadata, 'EncryptionMethod'))
    .map((method) => attributeOf(method, 'Algorithm') ?? '')
    .filter(Boolean);
  return [...new Set(algorithms)];
}

/** Metadata §2.4.1.1: a KeyDescriptor without `use` serves both signing and encryption. */
function certificates(role: Element, use: 'signing' | 'encryption'): string[] {
  const pems = childElements(role, NS.metadata, 'KeyDescriptor')
    .filter((descriptor) => (attributeOf(descriptor, 'use') ?? use) === use)
    .flatMap((descriptor) => childElements(descriptor, NS.xmldsig, 'KeyInfo'))
    .flatMap((keyInfo) => childElements(keyInfo, NS.xmldsig, 'X509Data'))
    .flatMap((data) => childElements(data, NS.xmldsig, 'X509Certificate'))
    .map((element) => certificatePem(textOf(element)));
  return [...new Set(pems)];
}

/** The certificate's base64 DER as PEM, once node:crypto has parsed it. */
export function certificatePem(base64: string): string {
  const compact = base64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) throw new SamlError('bad_metadata', 'a certificate is not base64');
  try {
    new X509Certificate(Buffer.from(compact, 'base64'));
  } catch {
    throw new SamlError('bad_metadata', 'a certificate does not parse as X.509');
  }
  const lines = compact.match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}
