// The seed file's saml_service_providers: SAML service providers from their metadata with their settings, applied
// again as an update, refused (nothing written) when an entry or its groups are wrong; an entry may give only its
// metadata_url, read (from a loopback server of the test's own) when the file is applied.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

const URL_SP = 'https://url-sp.example.test/saml';

t.test('a seed entry with only a metadata_url is read from it when applied, and stored with its URL', async (t) => {
  const served = { status: 200, body: await spMetadata({ entityId: URL_SP, acs: [{ location: 'https://url-sp.example.test/acs' }] }) };
  const http = createServer((_req, res) => {
    res.writeHead(served.status, { 'content-type': 'application/samlmetadata+xml' });
    res.end(served.body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => http.close(() => resolve())));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/metadata`;
  // The configuration the URL is fetched under: a loopback issuer, as `npm run seed` passes its own.
  const samlMetadata = { config: testConfig(), outbound: undefined };
  const urlRow = async () => (await listSamlServiceProviderRows(db)).find((r) => r.entity_id === URL_SP);

  const seed = parseSeed({ clients: [], users: [], saml_service_providers: [{ metadata_url: url, name_id_format: 'email' }] });
  const now = new Date();
  const report = await applySeed(db, hasher, seed, now, { samlMetadata });
  t.same(report.saml_service_providers, { created: 1, updated: 0, unchanged: 0 });
  const row = await urlRow();
  t.equal(row?.metadata_url, url, 'stored with its URL, for the refresh job');
  t.equal(row?.metadata_refreshed_at?.getTime(), now.getTime(), 'and the time it was read');
  t.match(row?.metadata_xml, /url-sp\.example\.test\/acs/, 'the document read from the URL');
  t.equal(row?.name_id_format, 'email');

  // Unreadable, or not SP metadata: the whole file is refused, naming the entry, and nothing is written.
  for (const [status, body, why] of [
    [503, 'down', /saml_service_providers\[0\]: the metadata of host 127\.0\.0\.1 answered 503/],
    [200, '<not-metadata/>', /saml_service_providers\[0\]: metadata_xml: /],
  ] as const) {
    served.status = status;
    served.body = body;
    const refused = parseSeed({
      clients: [],
      users: [],
      groups: [{ name: `seeded-with-${status}` }],
      saml_service_providers: [{ metadata_url: url, name_id_format: 'persistent' }],
    });
    const err = await applySeed(db, hasher, refused, new Date(), { samlMetadata }).catch((e: unknown) => e);
    t.type(err, SeedError);
    t.ok(
      (err as SeedError).problems.some((p) => why.test(p)),
      String((err as SeedError).problems),
    );
    t.equal((await urlRow())?.name_id_format, 'email', 'the SP is unchanged');
    t.equal(await db.selectFrom('groups').select('name').where('name', '=', `seeded-with-${status}`).executeTakeFirst(), undefined);
  }

  t.match(
    (() => {
      try {
        parseSeed({ clients: [], users: [], saml_service_providers: [{ name_id_format: 'email' }] });
        return [];
      } catch (err) {
        return (err as SeedError).problems;
      }
    })(),
    [/saml_service_providers\[0\]: metadata_xml or metadata_url is required/],
    'an entry needs its metadata or its URL',
  );
});
