// An in-process SAML identity provider stand-in for the saml connection tests (issue 39): an RSA key and a
// self-signed certificate, its metadata, and Responses signed with xml-crypto as a real IdP signs them (the
// assertion, enveloped, exclusive c14n, RSA-SHA256), so that the tests can tamper with what was signed.
import 'reflect-metadata';
import { createPublicKey, generateKeyPairSync, webcrypto, randomUUID } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { SignedXml } from 'xml-crypto';
import type { SamlCredentials, SamlKeyPair } from '../../src/domain/saml/credentials.js';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

export type TestKeyPair = SamlKeyPair;

/** An RSA 2048 key and a self-signed certificate for it. */
export async function makeKeyPair(commonName: string): Promise<TestKeyPair> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const alg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  const keys = {
    privateKey: await webcrypto.subtle.importKey('pkcs8', privateKey.export({ type: 'pkcs8', format: 'der' }), alg, true, ['sign']),
    publicKey: await webcrypto.subtle.importKey('spki', publicKey.export({ type: 'spki', format: 'der' }), alg, true, ['verify']),
  };
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${commonName}`,
    notBefore: new Date(Date.now() - 86_400_000),
    notAfter: new Date(Date.now() + 365 * 86_400_000),
    signingAlgorithm: alg,
    keys: keys as unknown as Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[0]['keys'],
  });
  return { privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), certificatePem: cert.toString('pem') };
}

/** SamlCredentials in memory: one key pair signs and decrypts. */
export function memoryCredentials(pair: SamlKeyPair): SamlCredentials {
  return { signing: async () => pair, published: async () => [pair.certificatePem], decryption: async () => [pair] };
}

const certBody = (pem: string) => pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');

export const IDP_ENTITY_ID = 'https://idp.example.test/saml/metadata';
export const IDP_SSO_URL = 'https://idp.example.test/saml/sso';

export function idpMetadata(pair: SamlKeyPair, entityId = IDP_ENTITY_ID, ssoUrl = IDP_SSO_URL): string {
  return `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${entityId}">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol" WantAuthnRequestsSigned="true">
    <md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certBody(pair.certificatePem)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${ssoUrl}/post"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${ssoUrl}"/>
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.test/saml/slo"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
}

export interface AssertionOptions {
  id?: string;
  issuer?: string;
  /** Inserted verbatim as the NameID's content (so a test can put a comment in it). */
  nameIdXml?: string;
  nameIdFormat?: string;
  audience: string;
  recipient: string;
  inResponseTo?: string | null;
  now?: Date;
  notBefore?: Date;
  notOnOrAfter?: Date;
  attributes?: Record<string, string[]>;
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

/** An unsigned saml:Assertion as an IdP writes it. */
export function assertionXml(o: AssertionOptions): string {
  const now = o.now ?? new Date();
  const id = o.id ?? `_a${randomUUID().replace(/-/g, '')}`;
  const notBefore = o.notBefore ?? new Date(now.getTime() - 30_000);
  const notOnOrAfter = o.notOnOrAfter ?? new Date(now.getTime() + 300_000);
  const irt = o.inResponseTo ? ` InResponseTo="${o.inResponseTo}"` : '';
  const attributes = Object.entries(o.attributes ?? {})
    .map(
      ([name, values]) =>
        `<saml:Attribute Name="${esc(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:uri">${values
          .map(
            (v) =>
              `<saml:AttributeValue xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="xs:string">${esc(v)}</saml:AttributeValue>`,
          )
          .join('')}</saml:Attribute>`,
    )
    .join('');
  return (
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${iso(now)}">` +
    `<saml:Issuer>${o.issuer ?? IDP_ENTITY_ID}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="${o.nameIdFormat ?? 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent'}">${o.nameIdXml ?? 'employee-4711'}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData${irt} NotOnOrAfter="${iso(notOnOrAfter)}" Recipient="${o.recipient}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${iso(notBefore)}" NotOnOrAfter="${iso(notOnOrAfter)}"><saml:AudienceRestriction><saml:Audience>${o.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(now)}" SessionIndex="_s1"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '') +
    `</saml:Assertion>`
  );
}

/** Signs the element with this ID the way IdPs do: enveloped, exclusive c14n, RSA-SHA256, after its Issuer. */
export function signElement(xml: string, elementId: string, pair: SamlKeyPair): string {
  const sig = new SignedXml({
    privateKey: pair.privateKeyPem,
    publicCert: pair.certificatePem,
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  });
  sig.addReference({
    xpath: `//*[@ID='${elementId}']`,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  sig.computeSignature(xml, {
    location: { reference: `//*[@ID='${elementId}']/*[local-name(.)='Issuer']`, action: 'after' },
  });
  return sig.getSignedXml();
}

export function assertionIdOf(xml: string): string {
  return /<saml:Assertion [^>]*ID="([^"]+)"/.exec(xml)![1]!;
}

/** A samlp:Response around `inner` (assertions, signed or not). */
export function responseXml(o: {
  inner: string;
  destination?: string | null;
  inResponseTo?: string | null;
  id?: string;
  issuer?: string;
  now?: Date;
}): string {
  const now = o.now ?? new Date();
  const irt = o.inResponseTo ? ` InResponseTo="${o.inResponseTo}"` : '';
  const dest = o.destination ? ` Destination="${o.destination}"` : '';
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${o.id ?? `_r${randomUUID().replace(/-/g, '')}`}" Version="2.0" IssueInstant="${iso(now)}"${dest}${irt}>` +
    `<saml:Issuer>${o.issuer ?? IDP_ENTITY_ID}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    o.inner +
    `</samlp:Response>`
  );
}

export const base64 = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');

/** The signed assertion encrypted for `recipient`'s certificate (SAML Core 2.3.4), as an IdP does for an SP with an encryption key. */
export async function encryptedAssertion(signedAssertion: string, recipient: SamlKeyPair): Promise<string> {
  const { encrypt } = (await import('xml-encryption')).default;
  const encrypted = await new Promise<string>((resolve, reject) =>
    encrypt(
      signedAssertion,
      {
        rsa_pub: createPublicKey(recipient.certificatePem).export({ type: 'spki', format: 'pem' }).toString(),
        pem: recipient.certificatePem,
        encryptionAlgorithm: 'http://www.w3.org/2009/xmlenc11#aes256-gcm',
        keyEncryptionAlgorithm: 'http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p',
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    ),
  );
  return `<saml:EncryptedAssertion>${encrypted}</saml:EncryptedAssertion>`;
}
