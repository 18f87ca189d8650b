// Seeding on a real database: created once, idempotent, secrets hashed, validated as a whole, all or nothing.
// The seed script as an operator runs it: test/e2e/process/seed-script.test.ts.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import t, { type Test } from 'tap';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { applySeed, parseSeed, SeedError, type SeedFile } from '../../src/domain/admin/seed.js';
import type { Db } from '../../src/storage/database.js';
import { testConfig } from '../helpers/app.js';
import { PROJECT_DIR } from '../helpers/child-process.js';
import { createTestDatabase } from '../helpers/database.js';

const passwords = new PasswordHasher(testConfig().argon2);

const WEB = {
  client_id: 'web',
  client_secret: 'web-secret-0123456789abcdef',
  client_name: 'Web App',
  redirect_uris: ['https://web.example/cb'],
  logo_uri: 'https://web.example/logo.png',
};
const SPA = {
  client_id: 'spa',
  token_endpoint_auth_method: 'none' as const,
  redirect_uris: ['http://127.0.0.1:5173/cb'],
};
const CAROL = {
  username: 'carol',
  password: 'carol-password-0001',
  email: 'carol@example.com',
  email_verified: true,
  name: 'Carol Danvers',
  address: { locality: 'Boston', country: 'US' },
};
const DAVE = { username: 'dave', password: 'dave-password-0002' };

const SEED: SeedFile = { clients: [WEB, SPA], users: [CAROL, DAVE] };

// One database for the file (a PGlite boot costs seconds); each test starts from empty tables.
const database = await createTestDatabase();
t.teardown(() => database.drop());

async function freshDb(_t: Test): Promise<Db> {
  await sql`truncate clients, users cascade`.execute(database.handle.db);
  return database.handle.db;
}

const allClients = (db: Db) => db.selectFrom('clients').selectAll().orderBy('client_id').execute();
const allUsers = (db: Db) => db.selectFrom('users').selectAll().orderBy('username').execute();

/** The problems parseSeed lists for `raw`; fails the test when the file is accepted. */
function refusal(t: Test, raw: unknown): string[] {
  try {
    parseSeed(raw);
  } catch (err) {
    t.type(err, SeedError);
    t.match((err as Error).message, /^the seed file was refused, nothing was written:/);
    return (err as SeedError).problems;
  }
  t.fail('the seed file was accepted');
  return [];
}

t.test('applySeed creates the clients and users of the file', async (t) => {
  const db = await freshDb(t);
  const now = new Date('2030-01-02T03:04:05.000Z');
  const report = await applySeed(db, passwords, parseSeed(SEED), now);
  t.same(report, { clients: { created: 2, updated: 0, unchanged: 0 }, users: { created: 2, updated: 0, unchanged: 0 } });

  const [spa, web] = await allClients(db);
  t.match(web, {
    client_id: 'web',
    client_name: 'Web App',
    redirect_uris: ['https://web.example/cb'],
    post_logout_redirect_uris: [],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    metadata: { logo_uri: 'https://web.example/logo.png' },
  });
  t.equal(web!.created_at.toISOString(), now.toISOString());
  t.equal(web!.updated_at.toISOString(), now.toISOString());
  t.match(spa, { client_id: 'spa', client_secret_hash: null, token_endpoint_auth_method: 'none', client_name: null });

  const [carol, dave] = await allUsers(db);
  t.match(carol, {
    username: 'carol',
    email: 'carol@example.com',
    email_verified: true,
    claims: { name: 'Carol Danvers', address: { locality: 'Boston', country: 'US' } },
    disabled_at: null,
  });
  t.match(carol!.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'the id is a random UUID');
  t.match(dave, { username: 'dave', email: null, email_verified: false, claims: {} });
  t.ok(await passwords.verify(carol!.password_hash, CAROL.password), 'carol can sign in with her password');
  t.ok(await passwords.verify(web!.client_secret_hash!, WEB.client_secret), 'the client secret verifies');
});

t.test('running the same seed twice reports everything unchanged and changes no row', async (t) => {
  const db = await freshDb(t);
  await applySeed(db, passwords, parseSeed(SEED), new Date('2030-01-01T00:00:00Z'));
  const clientsBefore = await allClients(db);
  const usersBefore = await allUsers(db);

  const report = await applySeed(db, passwords, parseSeed(SEED), new Date('2030-06-01T00:00:00Z'));
  t.same(report, { clients: { created: 0, updated: 0, unchanged: 2 }, users: { created: 0, updated: 0, unchanged: 2 } });
  const clientsAfter = await allClients(db);
  const usersAfter = await allUsers(db);
  t.same(clientsAfter, clientsBefore, 'client rows are identical');
  t.same(usersAfter, usersBefore, 'user rows are identical');
  t.equal(clientsAfter[1]!.client_secret_hash, clientsBefore[1]!.client_secret_hash, 'the secret was not hashed anew');
  t.equal(usersAfter[0]!.password_hash, usersBefore[0]!.password_hash, 'the password was not hashed anew');
  t.equal(usersAfter[0]!.updated_at.toISOString(), '2030-01-01T00:00:00.000Z');
});

t.test('a seed with the same entries in another key order changes nothing', async (t) => {
  const db = await freshDb(t);
  await applySeed(db, passwords, parseSeed(SEED));
  const reordered = {
    users: SEED.users.map((u) => Object.fromEntries(Object.entries(u).reverse())),
    clients: SEED.clients.map((c) => Object.fromEntries(Object.entries(c).reverse())),
  };
  const report = await applySeed(db, passwords, parseSeed(reordered));
  t.same(report, { clients: { created: 0, updated: 0, unchanged: 2 }, users: { created: 0, updated: 0, unchanged: 2 } });
});

t.test('a changed client secret is hashed anew and counted as updated', async (t) => {
  const db = await freshDb(t);
  await applySeed(db, passwords, parseSeed(SEED), new Date('2030-01-01T00:00:00Z'));
  const before = (await allClients(db))[1]!;
  const newSecret = 'web-secret-rotated-9876543210';
  const report = await applySeed(
    db,
    passwords,
    parseSeed({ ...SEED, clients: [{ ...WEB, client_secret: newSecret }, SPA] }),
    new Date('2030-02-01T00:00:00Z'),
  );
  t.same(report.clients, { created: 0, updated: 1, unchanged: 1 });
  t.same(report.users, { created: 0, updated: 0, unchanged: 2 });
  const after = (await allClients(db))[1]!;
  t.not(after.client_secret_hash, before.client_secret_hash, 'the stored hash changed');
  t.match(after.client_secret_hash, /^\$argon2id\$/);
  t.ok(await passwords.verify(after.client_secret_hash!, newSecret), 'the new secret verifies');
  t.notOk(await passwords.verify(after.client_secret_hash!, WEB.client_secret), 'the old secret no longer verifies');
  t.equal(after.updated_at.toISOString(), '2030-02-01T00:00:00.000Z');
  t.equal(after.created_at.toISOString(), '2030-01-01T00:00:00.000Z', 'created_at is kept');
});

t.test('a changed user password is hashed anew and counted as updated', async (t) => {
  const db = await freshDb(t);
  await applySeed(db, passwords, parseSeed(SEED), new Date('2030-01-01T00:00:00Z'));
  const before = (await allUsers(db))[0]!;
  const newPassword = 'carol-new-password-42';
  const report = await applySeed(
    db,
    passwords,
    parseSeed({ ...SEED, users: [{ ...CAROL, password: newPassword }, DAVE] }),
    new Date('2030-02-01T00:00:00Z'),
  );
  t.same(report.users, { created: 0, updated: 1, unchanged: 1 });
  t.same(report.clients, { created: 0, updated: 0, unchanged: 2 });
  const after = (await allUsers(db))[0]!;
  t.equal(after.id, before.id, 'the user keeps its id (and so its sub)');
  t.not(after.password_hash, before.password_hash);
  t.ok(await passwords.verify(after.password_hash, newPassword), 'the new password verifies');
  t.notOk(await passwords.verify(after.password_hash, CAROL.password), 'the old password no longer verifies');
  t.equal(after.updated_at.toISOString(), '2030-02-01T00:00:00.000Z');
});

t.test('a changed claim is written while the unchanged password keeps its hash', async (t) => {
  const db = await freshDb(t);
  await applySeed(db, passwords, parseSeed(SEED));
  const before = (await allUsers(db))[0]!;
  const report = await applySeed(db, passwords, parseSeed({ ...SEED, users: [{ ...CAROL, name: 'Captain Marvel' }, DAVE] }));
  t.same(report.users, { created: 0, updated: 1, unchanged: 1 });
  const after = (await allUsers(db))[0]!;
  t.equal(after.password_hash, before.password_hash);
  t.same(after.claims, { name: 'Captain Marvel', address: { locality: 'Boston', country: 'US' } });
});

t.test('secrets and passwords are stored only as argon2id hashes', async (t) => {
  const db = await freshDb(t);
  await applySeed(db, passwords, parseSeed(SEED));
  const rows = [...(await allClients(db)), ...(await allUsers(db))];
  const stored = JSON.stringify(rows);
  for (const plain of [WEB.client_secret, CAROL.password, DAVE.password]) {
    t.notOk(stored.includes(plain), `"${plain}" appears nowhere in the stored rows`);
  }
  const [, web] = await allClients(db);
  t.match(web!.client_secret_hash, /^\$argon2id\$v=19\$m=7168,p=1,t=5\$/);
  for (const user of await allUsers(db)) t.match(user.password_hash, /^\$argon2id\$v=19\$m=7168,p=1,t=5\$/, user.username);
});

t.test('parseSeed refuses a client without redirect_uris, naming the entry', async (t) => {
  const problems = refusal(t, { clients: [WEB, { client_id: 'x', client_secret: 'x-secret-0123456789' }] });
  t.same(problems, ['clients[1] (client_id "x"): redirect_uris must be a non-empty array of URIs']);
});

t.test('a device client (RFC 8628) needs no redirect_uris, and is stored with none', async (t) => {
  const device = {
    client_id: 'tv',
    client_name: 'TV',
    token_endpoint_auth_method: 'none' as const,
    grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
  };
  const db = await freshDb(t);
  await applySeed(db, passwords, parseSeed({ clients: [device], users: [] }));
  const row = await db.selectFrom('clients').selectAll().where('client_id', '=', 'tv').executeTakeFirstOrThrow();
  t.same(row.redirect_uris, []);
  t.same(row.grant_types, ['urn:ietf:params:oauth:grant-type:device_code']);
});

t.test('a client that also uses the code flow still needs redirect_uris', async (t) => {
  const problems = refusal(t, {
    clients: [
      {
        client_id: 'x',
        client_secret: 'x-secret-0123456789',
        grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'],
      },
    ],
  });
  t.same(problems, ['clients[0] (client_id "x"): redirect_uris must be a non-empty array of URIs']);
});

t.test('parseSeed refuses a redirect URI with a fragment', async (t) => {
  const problems = refusal(t, { clients: [{ ...WEB, redirect_uris: ['https://web.example/cb', 'https://web.example/cb#frag'] }] });
  t.same(problems, ['clients[0] (client_id "web"): redirect_uris[1] must not contain a fragment']);
});

t.test('parseSeed refuses an http redirect URI on a non-loopback host', async (t) => {
  const problems = refusal(t, { clients: [SPA, { ...WEB, redirect_uris: ['http://web.example/cb'] }] });
  t.equal(problems.length, 1);
  t.match(problems[0], /^clients\[1\] \(client_id "web"\): redirect_uris\[0\] must use https/);
  t.doesNotThrow(() => parseSeed({ clients: [{ ...WEB, redirect_uris: ['http://localhost:8080/cb', 'http://[::1]/cb'] }] }));
});

t.test('parseSeed refuses a public client with a secret', async (t) => {
  const problems = refusal(t, { clients: [{ ...SPA, client_secret: 'spa-secret-0123456789' }] });
  t.same(problems, ['clients[0] (client_id "spa"): a public client (token_endpoint_auth_method "none") must not have a client_secret']);
});

t.test('parseSeed refuses a confidential client without a secret', async (t) => {
  const { client_secret: _secret, ...noSecret } = WEB;
  const problems = refusal(t, { clients: [noSecret] });
  t.same(problems, ['clients[0] (client_id "web"): client_secret must be a non-empty string']);
});

t.test('parseSeed refuses an unknown user field', async (t) => {
  const problems = refusal(t, { users: [{ username: 'bob', password: 'bob-password-1', nickame: 'Bobby' }] });
  t.equal(problems.length, 1);
  t.match(problems[0], /^users\[0\] \(username "bob"\): unknown field "nickame"/);
});

t.test('parseSeed refuses a duplicate client_id', async (t) => {
  const problems = refusal(t, { clients: [WEB, SPA, { ...WEB, client_name: 'Other' }] });
  t.same(problems, ['client_id "web" appears more than once']);
});

t.test('parseSeed refuses a duplicate username, whatever its case', async (t) => {
  const problems = refusal(t, { users: [CAROL, DAVE, { username: 'Carol', password: 'another-password' }] });
  t.same(problems, ['username "carol" appears more than once']);
});

t.test('parseSeed lists every problem of a file at once and accepts none of it', async (t) => {
  const problems = refusal(t, {
    clients: [WEB, { client_id: 'x', client_secret: 'x-secret-0123456789' }],
    users: [CAROL, { username: 'bob', password: 'short', shoe_size: 44 }],
    teams: [],
  });
  t.same(problems, [
    'unknown top-level field "teams"',
    'clients[1] (client_id "x"): redirect_uris must be a non-empty array of URIs',
    'users[1] (username "bob"): password must have at least 8 characters',
    'users[1] (username "bob"): unknown field "shoe_size" (user entries take username, password and OIDC Core 5.1 standard claims)',
  ]);
});

t.test('the shipped seed.example.json is a valid seed', async (t) => {
  const seed = parseSeed(JSON.parse(await fs.readFile(path.join(PROJECT_DIR, 'seed.example.json'), 'utf8')));
  t.equal(seed.clients.length, 2);
  t.equal(seed.users.length, 1);
});

t.test('a seed that fails half-way writes nothing at all', async (t) => {
  const db = await freshDb(t);
  await applySeed(db, passwords, parseSeed(SEED), new Date('2030-01-01T00:00:00Z'));
  const clientsBefore = await allClients(db);
  const usersBefore = await allUsers(db);

  // The file itself is valid; its second new user takes carol's email, which the users_email_key index refuses.
  const failing = parseSeed({
    clients: [{ ...WEB, client_name: 'Renamed' }, SPA, { ...WEB, client_id: 'new-client' }],
    users: [
      { username: 'erin', password: 'erin-password-1', email: 'erin@example.com' },
      { username: 'frank', password: 'frank-password-1', email: 'CAROL@example.com' },
    ],
  });
  const err = await applySeed(db, passwords, failing, new Date('2030-02-01T00:00:00Z')).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.match(err, { code: '23505' }, 'the unique index refused the write');

  t.same(await allClients(db), clientsBefore, 'no client was created or renamed');
  t.same(await allUsers(db), usersBefore, 'erin, inserted before the failure, was rolled back');
});
