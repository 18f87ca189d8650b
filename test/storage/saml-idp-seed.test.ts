// The seed file's saml_service_providers: SAML service providers from their metadata with their settings, applied
// again as an update, refused (nothing written) when an entry or its groups are wrong.
import t from 'tap';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { applySeed, parseSeed, SeedError } from '../../src/domain/admin/seed.js';
import { listSamlServiceProviderRows, spAllowedGroupNames } from '../../src/storage/saml-service-providers.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import { SP_ENTITY_ID, spMetadata } from '../helpers/saml-idp/sp-metadata.js';

const database = await createTestDatabase();
t.teardown(() => database.drop());
const db = database.handle.db;
const hasher = new PasswordHasher(testConfig().argon2);
const metadata = await spMetadata();

t.test('a seed file registers a service provider from its metadata, and a second run updates it', async (t) => {
  const seed = parseSeed({
    clients: [],
    users: [],
    groups: [{ name: 'staff' }],
    saml_service_providers: [{ metadata_xml: metadata, name_id_format: 'persistent', allowed_groups: ['staff'] }],
  });
  const first = await applySeed(db, hasher, seed);
  t.same(first.saml_service_providers, { created: 1, updated: 0, unchanged: 0 });
  const [row] = await listSamlServiceProviderRows(db);
  t.equal(row!.entity_id, SP_ENTITY_ID);
  t.equal(row!.name_id_format, 'persistent');
  t.equal(row!.group_restricted, true);
  t.same(await spAllowedGroupNames(db, SP_ENTITY_ID), ['staff']);
  const again = await applySeed(db, hasher, parseSeed({ clients: [], users: [], saml_service_providers: [{ metadata_xml: metadata }] }));
  t.same(again.saml_service_providers, { created: 0, updated: 1, unchanged: 0 });
  t.equal((await listSamlServiceProviderRows(db))[0]!.group_restricted, false);
});

t.test('a seed entry that is not SP metadata, or names a service provider twice, is refused naming its entry', async (t) => {
  try {
    parseSeed({ clients: [], users: [], saml_service_providers: [{ metadata_xml: '<x/>' }] });
    t.fail('accepted');
  } catch (err) {
    t.type(err, SeedError);
    t.ok((err as SeedError).problems.some((p) => p.startsWith('saml_service_providers[0]: metadata_xml')));
  }
  t.throws(
    () => parseSeed({ clients: [], users: [], saml_service_providers: [{ metadata_xml: metadata }, { metadata_xml: metadata }] }),
    /appears more than once/,
  );
  await t.rejects(
    applySeed(
      db,
      hasher,
      parseSeed({ clients: [], users: [], saml_service_providers: [{ metadata_xml: metadata, allowed_groups: ['nobody'] }] }),
    ),
    /allowed_groups names no group "nobody"/,
  );
});
