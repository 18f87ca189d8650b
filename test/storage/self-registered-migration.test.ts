// The self_registered column: a database that predates it marks the clients that registered themselves (those with
// a registration access token), so that their URIs get the strict outbound policy from the first delivery on.
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { MIGRATIONS_DIR, migrateToLatest } from '../../src/storage/migrate.js';
import { createTestDatabase } from '../helpers/database.js';

const MIGRATION = '20261125010000_client_self_registered.sql';

t.test('existing clients with a registration access token are marked self-registered; seeded ones are not', async (t) => {
  const before = mkdtempSync(path.join(tmpdir(), 'sso-migrations-'));
  t.teardown(() => rmSync(before, { recursive: true, force: true }));
  for (const file of readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql') && f < MIGRATION)) {
    copyFileSync(path.join(MIGRATIONS_DIR, file), path.join(before, file));
  }
  const database = await createTestDatabase({ migrate: false });
  t.teardown(() => database.drop());
  const { db } = database.handle;
  await migrateToLatest(db, before);
  const now = new Date();
  const client = (client_id: string, registration_access_token_hash: string | null) => ({
    client_id,
    client_secret_hash: null,
    client_name: null,
    redirect_uris: ['https://rp.example/cb'],
    post_logout_redirect_uris: [],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    metadata: '{}',
    registration_access_token_hash,
    created_at: now,
    updated_at: now,
  });
  await db
    .insertInto('clients')
    .values([client('seeded', null), client('registered', 'token-digest')])
    .execute();

  await migrateToLatest(db);
  const rows = await db.selectFrom('clients').select(['client_id', 'self_registered']).orderBy('client_id').execute();
  t.same(rows, [
    { client_id: 'registered', self_registered: true },
    { client_id: 'seeded', self_registered: false },
  ]);
});
