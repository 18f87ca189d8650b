// The seed script as an operator runs it (`npm run seed -- FILE`, scripts/seed.ts through tsx), in child processes:
// it creates, then reports unchanged, refuses a bad file or a colliding seed without writing, and exits 2 without a
// file. What seeding does to the database: test/storage/seed.test.ts.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { SeedFile } from '../../../src/domain/admin/seed.js';
import { openDatabase, type Db } from '../../../src/storage/database.js';
import { runTs } from '../../helpers/child-process.js';
import { createTestDatabase, migratedDataFolder, onServer } from '../../helpers/database.js';

const WEB = {
  client_id: 'web',
  client_secret: 'web-secret-0123456789abcdef',
  client_name: 'Web App',
  redirect_uris: ['https://web.example/cb'],
};
const SPA = {
  client_id: 'spa',
  token_endpoint_auth_method: 'none' as const,
  redirect_uris: ['http://127.0.0.1:5173/cb'],
};
const SEED: SeedFile = {
  clients: [WEB, SPA],
  users: [
    { username: 'carol', password: 'carol-password-0001', email: 'carol@example.com' },
    { username: 'dave', password: 'dave-password-0002' },
  ],
};

const allClients = (db: Db) => db.selectFrom('clients').selectAll().orderBy('client_id').execute();
const allUsers = (db: Db) => db.selectFrom('users').selectAll().orderBy('username').execute();

t.test('the seed script creates, then reports unchanged, and refuses a bad file without writing', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sso-seed-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const goodFile = path.join(dir, 'seed.json');
  const badFile = path.join(dir, 'bad.json');
  const collidingFile = path.join(dir, 'colliding.json');
  await fs.writeFile(goodFile, JSON.stringify(SEED));
  await fs.writeFile(
    badFile,
    JSON.stringify({
      clients: [
        { ...WEB, client_name: 'Renamed' },
        { ...SPA, redirect_uris: ['https://spa.example/#x'] },
      ],
    }),
  );
  await fs.writeFile(
    collidingFile,
    JSON.stringify({
      clients: [{ ...WEB, client_name: 'Renamed' }],
      users: [{ username: 'zed', password: 'zed-password-1', email: 'carol@example.com' }],
    }),
  );

  // Embedded PGlite in a folder of the test's own, or a fresh database on the test server.
  let env: Record<string, string>;
  let inspect: <T>(fn: (db: Db) => Promise<T>) => Promise<T>;
  if (onServer) {
    const scriptDb = await createTestDatabase({ migrate: false });
    t.teardown(() => scriptDb.drop());
    env = { DATABASE_URL: scriptDb.url!, DATA_DIR: path.join(dir, 'unused') };
    inspect = (fn) => fn(scriptDb.handle.db);
  } else {
    // A migrated data folder: a first start in an empty one (initdb) costs some six seconds of CPU, and is
    // test/e2e/process/migrate-cli.test.ts's and npm-start.test.ts's to show.
    env = { DATA_DIR: await migratedDataFolder(t) };
    inspect = async (fn) => {
      const handle = await openDatabase({ dataDir: env.DATA_DIR! });
      try {
        return await fn(handle.db);
      } finally {
        await handle.close();
      }
    };
  }

  const first = await runTs('scripts/seed.ts', [goodFile], env);
  t.equal(first.code, 0, first.stderr);
  t.match(first.stdout, /^clients: 2 created, 0 updated, 0 unchanged\nusers: 2 created, 0 updated, 0 unchanged$/m);

  const second = await runTs('scripts/seed.ts', [goodFile], env);
  t.equal(second.code, 0, second.stderr);
  t.match(second.stdout, /^clients: 0 created, 0 updated, 2 unchanged\nusers: 0 created, 0 updated, 2 unchanged$/m);
  const snapshot = await inspect(async (db) => ({ clients: await allClients(db), users: await allUsers(db) }));

  const bad = await runTs('scripts/seed.ts', [badFile], env);
  t.equal(bad.code, 1, 'a malformed file exits 1');
  t.match(bad.stderr, `${badFile}: the seed file was refused, nothing was written:`);
  t.match(bad.stderr, 'clients[1] (client_id "spa"): redirect_uris[0] must not contain a fragment');
  t.notMatch(bad.stdout, /created/);

  const colliding = await runTs('scripts/seed.ts', [collidingFile], env);
  t.equal(colliding.code, 1, 'a seed the database refuses exits 1');
  t.match(colliding.stderr, /^seeding failed, nothing was written: /m);
  t.notMatch(colliding.stderr, 'zed-password-1', 'the password is not echoed');

  const after = await inspect(async (db) => ({ clients: await allClients(db), users: await allUsers(db) }));
  t.same(after, snapshot, 'neither failed run changed a row');
  t.equal(after.clients[1]!.client_name, 'Web App');
  t.equal(after.users.length, 2);

  const missing = await runTs('scripts/seed.ts', [], env);
  t.equal(missing.code, 2, 'no file argument exits 2');
  t.match(missing.stderr, /^usage: /);
});

t.test('the seed script refuses a malformed file before touching the database', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sso-seed-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'broken.json');
  await fs.writeFile(file, '{"clients": [');
  const run = await runTs('scripts/seed.ts', [file], { DATA_DIR: path.join(dir, 'data') });
  t.equal(run.code, 1);
  t.match(run.stderr, `${file}: `);
  t.match(run.stderr, /JSON/);
  t.same(await fs.readdir(dir), ['broken.json'], 'no database folder was created');
});
