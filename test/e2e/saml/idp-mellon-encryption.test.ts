// Encrypted assertions (SAML Core 2.0 §2.3.4, §6) that a real SP decrypts: Debian's Apache with mod_auth_mellon (Lasso
// and xmlsec) publishes an encryption certificate, and the provider encrypts the assertion for it with the block
// cipher the SP's setting names (AES-GCM, or AES-CBC for older SPs), or the one its metadata's EncryptionMethod asks for.
import t from 'tap';
import { spColumns } from '../../../src/domain/saml/idp/service-providers.js';
import { BLOCK_CIPHER_NAMES, BLOCK_CIPHERS, type BlockCipherName } from '../../../src/domain/saml/idp/saml-response.js';
import { upsertSamlServiceProviderRow } from '../../../src/storage/saml-service-providers.js';
import { ALICE } from '../../helpers/app.js';
import { CookieJar } from '../../helpers/cookie-jar.js';
import { listenTestApp } from '../../helpers/listening.js';
import { MELLON_MISSING, readShownAttributes, startMellonSp } from '../../helpers/saml/mellon-sp.js';
import { samlBrowse } from '../../helpers/saml/saml-browse.js';

/** The Algorithm of the EncryptedData's EncryptionMethod in a Response (XML Encryption §3.5.1). */
const dataCipherOf = (xml: string) => /<(?:\w+:)?EncryptedData\b[\s\S]*?<(?:\w+:)?EncryptionMethod Algorithm="([^"]+)"/.exec(xml)?.[1];

if (MELLON_MISSING) {
  t.test('mellon decrypts the assertions the provider encrypts', { skip: MELLON_MISSING }, () => {});
} else {
  t.test('mellon decrypts an EncryptedAssertion in each block cipher an SP may be set to (Core §2.3.4)', async (t) => {
    const { app, db, issuer } = await listenTestApp(t);
    const idpMetadataXml = (await app.inject({ method: 'GET', url: '/sso/saml/metadata' })).body;
    const sp = await startMellonSp({ idpMetadataXml, nameIdFormat: 'email', certificateName: 'mellon-sp', encryptionKey: true });
    t.teardown(sp.stop);
    t.match(sp.metadataXml, /use="encryption"/, 'mellon publishes an encryption certificate');
    for (const cipher of BLOCK_CIPHER_NAMES) {
      await upsertSamlServiceProviderRow(
        db,
        spColumns({ metadata_xml: sp.metadataXml, name_id_format: 'email', encrypt_assertion: true, encryption_algorithm: cipher }),
        new Date(),
      );
      const page = await samlBrowse(sp.protectedUrl, new CookieJar(), { user: { username: ALICE.username, password: ALICE.password } });
      t.equal(page.status, 200, `${cipher}: mellon let the person in`, { steps: page.steps, mellon: sp.output() });
      const response = page.messages.find((m) => m.name === 'SAMLResponse')!;
      t.match(response.xml, /EncryptedAssertion/, `${cipher}: the assertion travelled encrypted`);
      t.notMatch(response.xml, /<(\w+:)?Assertion\b/, `${cipher}: no assertion in the clear`);
      t.equal(dataCipherOf(response.xml), BLOCK_CIPHERS[cipher], `${cipher}: encrypted with the cipher set`);
      const shown = readShownAttributes(page.body);
      t.equal(shown.get('MELLON_NAME_ID'), ALICE.email, `${cipher}: mellon decrypted the NameID`);
      t.equal(shown.get('MELLON_IDP'), issuer);
    }
  });

  t.test("the metadata's EncryptionMethod wins over the SP's setting when we support it (Metadata §2.4.1.1)", async (t) => {
    const { app, db } = await listenTestApp(t);
    const idpMetadataXml = (await app.inject({ method: 'GET', url: '/sso/saml/metadata' })).body;
    const sp = await startMellonSp({ idpMetadataXml, nameIdFormat: 'email', certificateName: 'mellon-sp', encryptionKey: true });
    t.teardown(sp.stop);
    const asked: BlockCipherName = 'aes128-cbc';
    // An unknown algorithm first (skipped), then one we support: the first supported one is used.
    const metadata = sp.metadataXml.replace(
      /(<KeyDescriptor use="encryption">[\s\S]*?)(<\/KeyDescriptor>)/,
      `$1<EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#kw-aes256"/><EncryptionMethod Algorithm="${BLOCK_CIPHERS[asked]}"/>$2`,
    );
    t.not(metadata, sp.metadataXml, 'the EncryptionMethod is in the metadata');
    await upsertSamlServiceProviderRow(
      db,
      spColumns({ metadata_xml: metadata, name_id_format: 'email', encrypt_assertion: true, encryption_algorithm: 'aes256-gcm' }),
      new Date(),
    );
    const page = await samlBrowse(sp.protectedUrl, new CookieJar(), { user: { username: ALICE.username, password: ALICE.password } });
    t.equal(page.status, 200, { steps: page.steps, mellon: sp.output() });
    const response = page.messages.find((m) => m.name === 'SAMLResponse')!;
    t.equal(dataCipherOf(response.xml), BLOCK_CIPHERS[asked], "the metadata's choice, not the setting's aes256-gcm");
    t.equal(readShownAttributes(page.body).get('MELLON_NAME_ID'), ALICE.email, 'mellon decrypted it');
  });
}
