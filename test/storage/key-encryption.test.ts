// Private signing keys at rest: AES-256-GCM envelopes under KEYS_ENCRYPTION_SECRET, clear keys encrypted on
// start (once), a missing or wrong secret refused by name, and a loud warning when there is no secret.
import { sql } from 'kysely';
import pino from 'pino';
import t, { type Test } from 'tap';
import { KeyEncryptionError } from '../../src/domain/keys/key-encryption.js';
import { loadKeyStore, type KeyStore } from '../../src/domain/keys/keys.js';
import { SIGNING_ALGS } from '../../src/domain/keys/signing-algs.js';
import { listSigningKeys } from '../../src/storage/signing-keys.js';
import type { Db } from '../../src/storage/database.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';

const SECRET = 'kes-0123456789-abcdefghij-KLMNOPQRSTUV';
const OTHER_SECRET = 'another-secret-0123456789-abcdefghijkl';

const shared = await createTestDatabase();
t.teardown(() => shared.drop());

/** The file's one database, emptied of keys and salt: each test starts as a first start. */
async function database(_t: Test): Promise<Db> {
  const db = shared.handle.db;
  await db.deleteFrom('signing_keys').execute();
  await db.deleteFrom('key_encryption').execute();
  return db;
}

/** A logger that keeps every line it writes. */
function capture(): { logger: pino.Logger; lines: Array<{ level: number; msg: string }> } {
  const lines: Array<{ level: number; msg: string }> = [];
  return { logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }), lines };
}

async function load(t: Test, db: Db, secret?: string, logger: pino.Logger = pino({ level: 'silent' })): Promise<KeyStore> {
  const store = await loadKeyStore(db, testConfig(secret ? { KEYS_ENCRYPTION_SECRET: secret } : {}), () => new Date(), logger);
  t.teardown(() => store.close());
  return store;
}

async function refusal(t: Test, db: Db, secret: string | undefined): Promise<KeyEncryptionError> {
  try {
    await load(t, db, secret);
  } catch (err) {
    t.type(err, KeyEncryptionError);
    return err as KeyEncryptionError;
  }
  t.fail('the key store loaded');
  return new KeyEncryptionError('');
}

t.test('with KEYS_ENCRYPTION_SECRET each private key is stored as an AES-256-GCM envelope {v, iv, tag, ciphertext}', async (t) => {
  const db = await database(t);
  await load(t, db, SECRET);
  const rows = await listSigningKeys(db);
  t.equal(rows.length, SIGNING_ALGS.length);
  for (const row of rows) {
    t.same(Object.keys(row.private_jwk).sort(), ['ciphertext', 'iv', 'tag', 'v'], `${row.alg}: envelope members only`);
    t.equal(row.private_jwk.v, 1);
    t.equal(Buffer.from(String(row.private_jwk.iv), 'base64url').length, 12, '96-bit IV');
    t.equal(Buffer.from(String(row.private_jwk.tag), 'base64url').length, 16, '128-bit tag');
    t.notMatch(JSON.stringify(row.private_jwk), /"d"|"kty"/, 'no JWK member in the clear');
    t.match(row.public_jwk, { kid: row.kid, alg: row.alg, use: 'sig' });
  }
  t.equal(new Set(rows.map((r) => r.private_jwk.iv)).size, rows.length, 'a fresh IV per key');
  const salt = await db.selectFrom('key_encryption').selectAll().execute();
  t.equal(salt.length, 1, 'one salt per database');
  t.match(salt[0], { kdf: 'scrypt:N=32768,r=8,p=1', salt: /^[A-Za-z0-9_-]{22}$/ });
});

t.test('keys stored in the clear are encrypted on the first start with a secret, once (idempotent)', async (t) => {
  const db = await database(t);
  const clear = await load(t, db);
  const before = await listSigningKeys(db);
  t.ok(
    before.every((r) => typeof r.private_jwk.d === 'string'),
    'without a secret the private JWKs are clear',
  );

  const first = await load(t, db, SECRET);
  const encrypted = await listSigningKeys(db);
  t.same(
    encrypted.map((r) => r.kid),
    before.map((r) => r.kid),
    'the same keys, none generated',
  );
  t.ok(
    encrypted.every((r) => r.private_jwk.v === 1 && !('d' in r.private_jwk)),
    'every one is now an envelope',
  );
  t.same(
    encrypted.map((r) => r.public_jwk),
    before.map((r) => r.public_jwk),
  );
  t.equal(first.signer('RS256').kid, clear.signer('RS256').kid, 'the same key signs');
  t.equal(first.jwksJson, clear.jwksJson, 'the same JWKS');

  await load(t, db, SECRET);
  t.same(await listSigningKeys(db), encrypted, 'a second start with the secret rewrites nothing');
});

t.test('a wrong KEYS_ENCRYPTION_SECRET stops the start with a message naming the variable and not the secret', async (t) => {
  const db = await database(t);
  await load(t, db, SECRET);
  const err = await refusal(t, db, OTHER_SECRET);
  t.equal(
    err.message,
    'KEYS_ENCRYPTION_SECRET does not decrypt the signing keys in the database: it is not the secret they were encrypted with',
  );
  t.notMatch(err.message, OTHER_SECRET);
  t.notMatch(err.message, SECRET);
});

t.test('encrypted keys without KEYS_ENCRYPTION_SECRET stop the start with a message naming the variable', async (t) => {
  const db = await database(t);
  await load(t, db, SECRET);
  const err = await refusal(t, db, undefined);
  t.equal(err.message, 'the signing keys in the database are encrypted: set KEYS_ENCRYPTION_SECRET to the secret they were encrypted with');
});

t.test('an envelope moved to another key row does not decrypt: the kid is authenticated data', async (t) => {
  const db = await database(t);
  await load(t, db, SECRET);
  const [a, b] = await listSigningKeys(db);
  await sql`update signing_keys set private_jwk = ${JSON.stringify(b!.private_jwk)}::jsonb where kid = ${a!.kid}`.execute(db);
  await sql`update signing_keys set private_jwk = ${JSON.stringify(a!.private_jwk)}::jsonb where kid = ${b!.kid}`.execute(db);
  const err = await refusal(t, db, SECRET);
  t.match(err.message, /^KEYS_ENCRYPTION_SECRET does not decrypt/);
});

t.test('without a secret the start log warns once, at level warn, that the keys are stored in the clear', async (t) => {
  const db = await database(t);
  const clear = capture();
  await load(t, db, undefined, clear.logger);
  const warnings = clear.lines.filter((l) => l.level === 40 && l.msg.includes('KEYS_ENCRYPTION_SECRET'));
  t.equal(warnings.length, 1);
  t.match(
    warnings[0]!.msg,
    /^KEYS_ENCRYPTION_SECRET is not set: the private signing keys and the authenticator-app secrets are stored IN THE CLEAR/,
  );

  const encrypted = capture();
  await load(t, db, SECRET, encrypted.logger);
  t.same(
    encrypted.lines.filter((l) => l.level === 40 && l.msg.includes('KEYS_ENCRYPTION_SECRET')),
    [],
    'no warning with a secret',
  );
  t.match(
    encrypted.lines.find((l) => l.msg.startsWith('clear private signing keys encrypted')),
    { level: 30, count: 4 },
  );
  t.notMatch(JSON.stringify(encrypted.lines), SECRET, 'the secret is never logged');
});

t.test('a key stored in a shape this version does not read is left out of the key set and logged, not a crash', async (t) => {
  const db = await database(t);
  await load(t, db, SECRET);
  const [first, second] = await listSigningKeys(db);
  await sql`update signing_keys set private_jwk = ${JSON.stringify({ ...first!.private_jwk, v: 2 })}::jsonb where kid = ${first!.kid}`.execute(
    db,
  );
  await sql`update signing_keys set public_jwk = '{"kty":7}'::jsonb where kid = ${second!.kid}`.execute(db);
  const { logger, lines } = capture();
  const store = await load(t, db, SECRET, logger);
  const published = (JSON.parse(store.jwksJson) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
  t.notOk(published.includes(first!.kid), 'not published');
  t.notOk(published.includes(second!.kid), 'not published');
  t.equal(published.length, SIGNING_ALGS.length - 2, 'the other keys are');
  t.throws(() => store.signer(first!.alg as never), /no signing key/, 'its algorithm has no signer: the existing refusal');
  const warned = lines.filter((l) => (l as { event?: string }).event === 'signing_key_unreadable');
  t.match(warned, [
    { kid: first!.kid, reason: 'private_jwk: unknown version 2' },
    { kid: second!.kid, reason: 'public_jwk: unexpected value at public_jwk.kty' },
  ]);
  t.notMatch(JSON.stringify(warned), /ciphertext"|"iv"|"d"/, 'no key material in the log');
  const after = await listSigningKeys(db);
  t.same(
    after.find((r) => r.kid === first!.kid)?.private_jwk,
    { ...first!.private_jwk, v: 2 },
    'left as written, for an instance that reads it',
  );
});
