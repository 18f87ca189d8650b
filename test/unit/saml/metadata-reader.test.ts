// Peers' metadata (SAML Metadata 2.0 §2.3-2.4) read by src/domain/saml/metadata-reader.ts for both roles.
import t from 'tap';
import { readEntityMetadata } from '../../../src/domain/saml/metadata-reader.js';
import { SamlError } from '../../../src/domain/saml/saml-error.js';
import { rsaCertificate } from '../../helpers/rsa-certificate.js';

const { cert: PEM, certBase64: BASE64 } = rsaCertificate('metadata-test');
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const keyInfo = (use?: string) =>
  `<md:KeyDescriptor${use ? ` use="${use}"` : ''}><ds:KeyInfo><ds:X509Data><ds:X509Certificate>
${BASE64.replace(/(.{64})/g, '$1\n')}
</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`;

const entity = (body: string, id = 'https://sp.example.test/metadata') =>
  `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${id}">${body}</md:EntityDescriptor>`;

const SP = entity(`
<md:SPSSODescriptor AuthnRequestsSigned="true" WantAssertionsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
  ${keyInfo('signing')}${keyInfo()}
  <md:SingleLogoutService Binding="${REDIRECT}" Location="https://sp.example.test/slo" ResponseLocation="https://sp.example.test/slo/done"/>
  <md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:transient</md:NameIDFormat>
  <md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:PAOS" Location="https://sp.example.test/ecp" index="0"/>
  <md:AssertionConsumerService Binding="${POST}" Location="https://sp.example.test/acs" index="1" isDefault="true"/>
</md:SPSSODescriptor>`);

t.test('an SP entity: ACS endpoints in the browser bindings only, certificates by use (Metadata §2.4.1.1, §2.4.4)', async (t) => {
  const metadata = readEntityMetadata(SP);
  t.equal(metadata.entityId, 'https://sp.example.test/metadata');
  t.notOk(metadata.identityProvider);
  const sp = metadata.serviceProvider!;
  t.same(sp.assertionConsumerServices, [{ binding: 'post', location: 'https://sp.example.test/acs', index: 1, isDefault: true }]);
  t.same(sp.singleLogoutServices, [
    { binding: 'redirect', location: 'https://sp.example.test/slo', responseLocation: 'https://sp.example.test/slo/done' },
  ]);
  t.ok(sp.authnRequestsSigned);
  t.ok(sp.wantAssertionsSigned);
  t.same(sp.signingCertificates, [PEM.replace(/\r/g, '')], 'one certificate, listed once although two descriptors name it');
  t.same(sp.encryptionCertificates, [PEM.replace(/\r/g, '')], 'a KeyDescriptor without use serves encryption too');
  t.same(sp.nameIdFormats, ['urn:oasis:names:tc:SAML:2.0:nameid-format:transient']);
});

t.test('an IdP entity needs a SingleSignOnService and a signing certificate (Metadata §2.4.3)', async (t) => {
  const idp = (keys: string) =>
    entity(
      `<md:IDPSSODescriptor WantAuthnRequestsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">${keys}
       <md:SingleSignOnService Binding="${REDIRECT}" Location="https://idp.example.test/sso"/></md:IDPSSODescriptor>`,
      'https://idp.example.test',
    );
  const metadata = readEntityMetadata(idp(keyInfo('signing') + keyInfo('encryption')));
  t.same(metadata.identityProvider?.singleSignOnServices, [{ binding: 'redirect', location: 'https://idp.example.test/sso' }]);
  t.equal(metadata.identityProvider?.signingCertificates.length, 1);
  t.ok(metadata.identityProvider?.wantAuthnRequestsSigned);
  t.throws(() => readEntityMetadata(idp(keyInfo('encryption'))), { code: 'bad_metadata' });
});

t.test('an aggregate is read only for one named entity', async (t) => {
  const inner = SP.replace('<?xml version="1.0"?>', '');
  const aggregate = `<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">${inner}${inner.replace('https://sp.example.test/metadata', 'https://other.test')}</md:EntitiesDescriptor>`;
  t.throws(() => readEntityMetadata(aggregate), { code: 'bad_metadata' });
  t.equal(readEntityMetadata(aggregate, 'https://other.test').entityId, 'https://other.test');
  t.throws(() => readEntityMetadata(SP, 'https://other.test'), { code: 'bad_metadata' });
});

t.test('what is not usable metadata is refused whole, with a code', async (t) => {
  const code = (xml: string) => {
    try {
      readEntityMetadata(xml);
      return 'accepted';
    } catch (error) {
      return error instanceof SamlError ? error.code : String(error);
    }
  };
  t.equal(code('<a/>'), 'not_metadata');
  t.equal(code(SP.replace(BASE64.slice(10, 30), 'AAAAAAAAAAAAAAAAAAAA')), 'bad_metadata', 'a certificate that does not parse');
  t.equal(code(SP.replace('https://sp.example.test/acs', 'javascript:alert(1)')), 'bad_metadata');
  t.equal(code(SP.replace('https://sp.example.test/acs', 'https://sp.example.test/acs#x')), 'bad_metadata');
  t.equal(code(SP.replace('index="1"', 'index="x"')), 'bad_metadata');
  t.equal(
    code(SP.replace(/<md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"[^>]*>/, '')),
    'bad_metadata',
  );
  t.equal(code(SP.replace('urn:oasis:names:tc:SAML:2.0:protocol"', 'urn:oasis:names:tc:SAML:1.1:protocol"')), 'bad_metadata');
  t.equal(code(SP.replace('entityID="https://sp.example.test/metadata"', '')), 'bad_metadata');
  t.equal(code('<!DOCTYPE x>' + SP.replace('<?xml version="1.0"?>', '')), 'forbidden_markup');
});
