// The identity provider's <samlp:Response> (SAML Core 2.0 §3.3.3, Profiles §4.1.4.2): an assertion with the subject's
// NameID, a bearer SubjectConfirmation for the ACS, Conditions limiting it to the SP, an AuthnStatement and the
// released attributes; built as a DOM (no value spliced into markup) and signed by xml-crypto (exclusive c14n,
// RSA-SHA256, SHA-256 digests): the assertion, the response, or both, as the SP is set.
import { randomBytes } from 'node:crypto';
import { DOMImplementation, DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { encrypt } from 'xml-encryption';
import { SignedXml } from 'xml-crypto';
import type { SamlKeyPair } from '../credentials.js';
import { ALGORITHMS, NAME_ID_FORMATS, NS, STATUS, type NameIdFormatName } from '../namespaces.js';
import { pemBody } from './idp-metadata.js';

/** How long an assertion may be presented (Profiles §4.1.4.2: "a short validity period"). */
export const ASSERTION_LIFETIME_SECONDS = 300;
/** NotBefore a little in the past, for an SP's clock that runs behind. */
const CLOCK_SKEW_SECONDS = 60;

/**
 * The block ciphers an assertion may be encrypted with, by the name an SP setting uses: XML Encryption 1.1 §5.2.4
 * AES-GCM, and §5.2.2 AES-CBC for older SPs that cannot decrypt GCM (CBC has no integrity of its own: the assertion's
 * signature inside is what protects it).
 */
export const BLOCK_CIPHERS = Object.freeze({
  'aes256-gcm': 'http://www.w3.org/2009/xmlenc11#aes256-gcm',
  'aes128-gcm': 'http://www.w3.org/2009/xmlenc11#aes128-gcm',
  'aes256-cbc': 'http://www.w3.org/2001/04/xmlenc#aes256-cbc',
  'aes128-cbc': 'http://www.w3.org/2001/04/xmlenc#aes128-cbc',
});
export type BlockCipherName = keyof typeof BLOCK_CIPHERS;
export const BLOCK_CIPHER_NAMES = Object.keys(BLOCK_CIPHERS) as BlockCipherName[];

export interface ResponseAttribute {
  name: string;
  values: string[];
}

export interface SuccessInput {
  issuer: string;
  /** The SP's entityID: the audience. */
  audience: string;
  /** The ACS URL the response is posted to: Destination and Recipient. */
  acsUrl: string;
  /** The AuthnRequest's ID; absent for an IdP-initiated sign-in. */
  inResponseTo?: string;
  nameId: string;
  nameIdFormat: NameIdFormatName;
  sessionIndex: string;
  authnInstant: Date;
  authnContextClassRef: string;
  attributes: readonly ResponseAttribute[];
  now: Date;
  /** When the session ends: the assertion's SessionNotOnOrAfter. */
  sessionNotOnOrAfter?: Date;
  key: SamlKeyPair;
  signAssertion: boolean;
  signResponse: boolean;
  /** The SP's encryption certificate (PEM): the assertion travels as an EncryptedAssertion for it (Core §2.3.4). */
  encryptFor?: string;
  /** The block cipher of the EncryptedAssertion (default aes256-gcm). */
  blockCipher?: BlockCipherName;
}

export interface FailureInput {
  issuer: string;
  acsUrl: string;
  inResponseTo?: string;
  /** Core §3.2.2.2: the top-level code (Requester or Responder) and a second-level one such as NoPassive. */
  status: string;
  subStatus?: string;
  now: Date;
  key: SamlKeyPair;
}

/** Core §1.3.4: an xs:ID, unique and unguessable; an NCName cannot start with a digit. */
export function samlId(): string {
  return `_${randomBytes(20).toString('hex')}`;
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const plus = (d: Date, seconds: number) => new Date(d.getTime() + seconds * 1000);

type Doc = ReturnType<DOMImplementation['createDocument']>;
type El = ReturnType<Doc['createElementNS']>;

function builder(doc: Doc) {
  return (parent: El, ns: string, name: string, attributes: Record<string, string | undefined> = {}, text?: string): El => {
    const el = doc.createElementNS(ns, name);
    for (const [key, value] of Object.entries(attributes)) if (value !== undefined) el.setAttribute(key, value);
    if (text !== undefined) el.appendChild(doc.createTextNode(text));
    parent.appendChild(el);
    return el;
  };
}

function responseRoot(input: { issuer: string; acsUrl: string; inResponseTo?: string; now: Date }) {
  const doc = new DOMImplementation().createDocument(NS.protocol, 'samlp:Response', null);
  const root = doc.documentElement as unknown as El;
  root.setAttributeNS('http://www.w3.org/2000/xmlns/', 'xmlns:saml', NS.assertion);
  const id = samlId();
  root.setAttribute('ID', id);
  root.setAttribute('Version', '2.0');
  root.setAttribute('IssueInstant', iso(input.now));
  root.setAttribute('Destination', input.acsUrl);
  if (input.inResponseTo !== undefined) root.setAttribute('InResponseTo', input.inResponseTo);
  const add = builder(doc);
  add(root, NS.assertion, 'saml:Issuer', {}, input.issuer);
  return { doc, root, id, add };
}

function status(add: ReturnType<typeof builder>, root: El, code: string, sub?: string): void {
  const statusCode = add(add(root, NS.protocol, 'samlp:Status'), NS.protocol, 'samlp:StatusCode', { Value: code });
  if (sub !== undefined) add(statusCode, NS.protocol, 'samlp:StatusCode', { Value: sub });
}

/** Signs the element with ID `id` in `xml`, the Signature placed right after its Issuer (Core §5.4.1 schema order). */
function sign(xml: string, id: string, localName: 'Response' | 'Assertion', key: SamlKeyPair): string {
  const signer = new SignedXml({
    privateKey: key.privateKeyPem,
    publicCert: key.certificatePem,
    signatureAlgorithm: ALGORITHMS.rsaSha256,
    canonicalizationAlgorithm: ALGORITHMS.exclusiveC14n,
    getKeyInfoContent: () => `<ds:X509Data><ds:X509Certificate>${pemBody(key.certificatePem)}</ds:X509Certificate></ds:X509Data>`,
  });
  // Core §5.4.2: one reference, to the signed element's ID, with the enveloped-signature and exclusive c14n transforms.
  signer.addReference({
    xpath: `//*[local-name(.)='${localName}' and @ID='${id}']`,
    digestAlgorithm: ALGORITHMS.sha256,
    transforms: [ALGORITHMS.envelopedSignature, ALGORITHMS.exclusiveC14n],
  });
  signer.computeSignature(xml, {
    prefix: 'ds',
    location: { reference: `//*[local-name(.)='${localName}' and @ID='${id}']/*[local-name(.)='Issuer']`, action: 'after' },
  });
  return signer.getSignedXml();
}

/**
 * Core §2.3.4, §6: the signed assertion replaced by an EncryptedAssertion for the SP's certificate, by xml-encryption:
 * AES content (GCM unless the SP needs CBC), its key under RSA-OAEP; no algorithm xml-encryption calls insecure.
 */
async function encryptAssertion(xml: string, assertionId: string, certificatePem: string, cipher: BlockCipherName): Promise<string> {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const assertion = [...Array.from(doc.getElementsByTagNameNS(NS.assertion, 'Assertion'))].find(
    (a) => a.getAttribute('ID') === assertionId,
  )!;
  const encrypted = await new Promise<string>((resolve, reject) =>
    encrypt(
      new XMLSerializer().serializeToString(assertion),
      {
        rsa_pub: certificatePem,
        pem: certificatePem,
        encryptionAlgorithm: BLOCK_CIPHERS[cipher],
        keyEncryptionAlgorithm: 'http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p',
        disallowEncryptionWithInsecureAlgorithm: true,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    ),
  );
  const wrapper = new DOMParser().parseFromString(
    `<saml:EncryptedAssertion xmlns:saml="${NS.assertion}">${encrypted}</saml:EncryptedAssertion>`,
    'text/xml',
  );
  assertion.parentNode!.replaceChild(doc.importNode(wrapper.documentElement!, true), assertion);
  return new XMLSerializer().serializeToString(doc);
}

/** A successful response with one assertion, signed (and encrypted) as the SP is set. */
export async function successResponseXml(input: SuccessInput): Promise<string> {
  const { doc, root, id, add } = responseRoot(input);
  status(add, root, STATUS.success);
  const assertionId = samlId();
  const assertion = add(root, NS.assertion, 'saml:Assertion', { ID: assertionId, Version: '2.0', IssueInstant: iso(input.now) });
  assertion.setAttributeNS('http://www.w3.org/2000/xmlns/', 'xmlns:xs', NS.xs);
  assertion.setAttributeNS('http://www.w3.org/2000/xmlns/', 'xmlns:xsi', NS.xsi);
  add(assertion, NS.assertion, 'saml:Issuer', {}, input.issuer);
  const notOnOrAfter = iso(plus(input.now, ASSERTION_LIFETIME_SECONDS));
  const subject = add(assertion, NS.assertion, 'saml:Subject');
  add(
    subject,
    NS.assertion,
    'saml:NameID',
    {
      Format: NAME_ID_FORMATS[input.nameIdFormat],
      // Core §8.3.7: a persistent identifier is qualified by the IdP and the SP it was made for.
      ...(input.nameIdFormat === 'persistent' ? { NameQualifier: input.issuer, SPNameQualifier: input.audience } : {}),
    },
    input.nameId,
  );
  // Profiles §4.1.4.2: a bearer confirmation with Recipient, NotOnOrAfter and (SP-initiated) InResponseTo.
  const confirmation = add(subject, NS.assertion, 'saml:SubjectConfirmation', { Method: 'urn:oasis:names:tc:SAML:2.0:cm:bearer' });
  add(confirmation, NS.assertion, 'saml:SubjectConfirmationData', {
    NotOnOrAfter: notOnOrAfter,
    Recipient: input.acsUrl,
    InResponseTo: input.inResponseTo,
  });
  const conditions = add(assertion, NS.assertion, 'saml:Conditions', {
    NotBefore: iso(plus(input.now, -CLOCK_SKEW_SECONDS)),
    NotOnOrAfter: notOnOrAfter,
  });
  add(add(conditions, NS.assertion, 'saml:AudienceRestriction'), NS.assertion, 'saml:Audience', {}, input.audience);
  const authn = add(assertion, NS.assertion, 'saml:AuthnStatement', {
    AuthnInstant: iso(input.authnInstant),
    SessionIndex: input.sessionIndex,
    SessionNotOnOrAfter: input.sessionNotOnOrAfter && iso(input.sessionNotOnOrAfter),
  });
  add(add(authn, NS.assertion, 'saml:AuthnContext'), NS.assertion, 'saml:AuthnContextClassRef', {}, input.authnContextClassRef);
  const released = input.attributes.filter((a) => a.values.length > 0);
  if (released.length > 0) {
    const statement = add(assertion, NS.assertion, 'saml:AttributeStatement');
    for (const attribute of released) {
      const nameFormat = /^[a-z][a-z0-9+.-]*:/i.test(attribute.name)
        ? 'urn:oasis:names:tc:SAML:2.0:attrname-format:uri'
        : 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic';
      const el = add(statement, NS.assertion, 'saml:Attribute', { Name: attribute.name, NameFormat: nameFormat });
      for (const value of attribute.values) {
        const v = add(el, NS.assertion, 'saml:AttributeValue', {}, value);
        v.setAttributeNS(NS.xsi, 'xsi:type', 'xs:string');
      }
    }
  }
  let xml = new XMLSerializer().serializeToString(doc);
  // The assertion first: the response's signature then covers the assertion as signed.
  if (input.signAssertion) xml = sign(xml, assertionId, 'Assertion', input.key);
  if (input.encryptFor !== undefined) xml = await encryptAssertion(xml, assertionId, input.encryptFor, input.blockCipher ?? 'aes256-gcm');
  if (input.signResponse) xml = sign(xml, id, 'Response', input.key);
  return xml;
}

/** A response that says why there is no assertion (NoPassive, RequestDenied), signed. */
export function failureResponseXml(input: FailureInput): string {
  const { doc, root, id, add } = responseRoot(input);
  status(add, root, input.status, input.subStatus);
  return sign(new XMLSerializer().serializeToString(doc), id, 'Response', input.key);
}
