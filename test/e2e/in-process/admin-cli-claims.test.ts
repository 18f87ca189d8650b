// `sso-admin clients` with the claims and subject fields: --id-token-claims, --subject-type, --sector-identifier-uri,
// checked as the seed file and registration check them (OIDC Registration 2, OIDC Core 8.1).
import t from 'tap';
import type { Db } from '../../../src/storage/database.js';
import { adminStore, json, runAdmin } from '../../helpers/admin-cli.js';

const storedMetadata = async (db: Db, clientId: string) =>
  (await db.selectFrom('clients').select('metadata').where('client_id', '=', clientId).executeTakeFirst())?.metadata;

t.test(
  'OIDC Registration 2: clients create refuses a pairwise client whose redirect URIs have two hosts, and writes nothing',
  async (t) => {
    const store = await adminStore(t);
    const refused = await runAdmin(
      [
        'clients',
        'create',
        'rp',
        '--redirect-uri',
        'https://a.example/cb',
        '--redirect-uri',
        'https://b.example/cb',
        '--subject-type',
        'pairwise',
      ],
      store.env,
    );
    t.equal(refused.code, 1);
    t.match(refused.message, /sector_identifier_uri/);
    t.equal(await store.withDb((db) => storedMetadata(db, 'rp')), undefined);
  },
);

t.test('clients create and update set subject_type, sector_identifier_uri and id_token_claims', async (t) => {
  const store = await adminStore(t);
  const created = await runAdmin(
    [
      'clients',
      'create',
      'rp',
      '--redirect-uri',
      'https://a.example/cb',
      '--redirect-uri',
      'https://b.example/cb',
      '--subject-type',
      'pairwise',
      '--sector-identifier-uri',
      'https://sector.example/redirects.json',
      '--id-token-claims',
      'minimal',
      '--json',
    ],
    store.env,
  );
  t.equal(created.code, 0, created.stderr);
  t.match(json(created), {
    subject_type: 'pairwise',
    sector_identifier_uri: 'https://sector.example/redirects.json',
    id_token_claims: 'minimal',
  });
  const bad = await runAdmin(['clients', 'update', 'rp', '--id-token-claims', 'everything'], store.env);
  t.equal(bad.code, 1);
  t.match(bad.message, /id_token_claims must be one of scopes, minimal/);
  const updated = await runAdmin(['clients', 'update', 'rp', '--subject-type', 'public'], store.env);
  t.equal(updated.code, 0, updated.stderr);
  t.match(await store.withDb((db) => storedMetadata(db, 'rp')), { subject_type: 'public', id_token_claims: 'minimal' });
});
