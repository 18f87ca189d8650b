// GET {issuer}/saml/metadata: the identity provider's metadata as a service provider reads it (SAML Metadata 2.0
// §2.4.3), with old and new certificates during a rotation's overlap.
import { X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import t from 'tap';
import xpath from 'xpath';
import { rotateSamlKeys } from '../../../src/domain/keys/saml-keys.js';
import { readEntityMetadata } from '../../../src/domain/saml/metadata-reader.js';
import { BINDINGS, NAME_ID_FORMATS } from '../../../src/domain/saml/namespaces.js';
import { buildTestApp } from '../../helpers/app.js';

const METADATA = '/sso/saml/metadata';

t.test('the metadata names the issuer as entityID and lists SSO and SLO over both browser bindings (Metadata 2.0 §2.4.3)', async (t) => {
  const { app, config } = await buildTestApp(t);
  const res = await app.inject({ method: 'GET', url: METADATA });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^application\/samlmetadata\+xml/);
  const entity = readEntityMetadata(res.body);
  t.equal(entity.entityId, config.issuer);
  const idp = entity.identityProvider!;
  t.ok(idp, 'an IDPSSODescriptor');
  t.same(
    idp.singleSignOnServices.map((e) => [e.binding, e.location]),
    [
      ['redirect', `${config.issuer}/saml/sso`],
      ['post', `${config.issuer}/saml/sso`],
    ],
  );
  t.same(
    idp.singleLogoutServices.map((e) => e.binding),
    ['redirect', 'post'],
  );
  t.same(idp.nameIdFormats, Object.values(NAME_ID_FORMATS));
  t.equal(idp.wantAuthnRequestsSigned, false);
  t.equal(idp.signingCertificates.length, 1);
  const certificate = new X509Certificate(idp.signingCertificates[0]!);
  t.equal(certificate.publicKey.asymmetricKeyDetails?.modulusLength, 2048);
});

t.test('an SP reading the metadata with XPath finds one signing certificate and the SSO location per binding', async (t) => {
  const { app, config } = await buildTestApp(t);
  const res = await app.inject({ method: 'GET', url: METADATA });
  const doc = new DOMParser().parseFromString(res.body, 'text/xml');
  const select = xpath.useNamespaces({ md: 'urn:oasis:names:tc:SAML:2.0:metadata', ds: 'http://www.w3.org/2000/09/xmldsig#' });
  const certs = select(
    "//md:IDPSSODescriptor/md:KeyDescriptor[@use='signing']/ds:KeyInfo/ds:X509Data/ds:X509Certificate/text()",
    doc as unknown as Node,
  ) as Node[];
  t.equal(certs.length, 1);
  t.doesNotThrow(() => new X509Certificate(Buffer.from(String(certs[0]!.nodeValue), 'base64')));
  const post = select(`string(//md:SingleSignOnService[@Binding='${BINDINGS.post}']/@Location)`, doc as unknown as Node);
  t.equal(post, `${config.issuer}/saml/sso`);
});

t.test('during a rotation the metadata publishes the current and the next certificate, the current first', async (t) => {
  const { app, db, config } = await buildTestApp(t);
  const before = readEntityMetadata((await app.inject({ method: 'GET', url: METADATA })).body).identityProvider!.signingCertificates;
  await rotateSamlKeys({ db, clock: () => new Date(), config }, { activationDelaySeconds: 3600 });
  const during = readEntityMetadata((await app.inject({ method: 'GET', url: METADATA })).body).identityProvider!.signingCertificates;
  t.equal(during.length, 2);
  t.equal(during[0], before[0]);
  t.not(during[1], before[0]);
});
