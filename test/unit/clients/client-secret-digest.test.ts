// Client secrets the server generated are checked with a keyed digest; operator-chosen ones stay argon2id (issue 16,
// finding 2).
import t from 'tap';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { randomToken } from '../../../src/domain/secrets.js';

const ARGON2 = { memoryKiB: 7168, timeCost: 5, parallelism: 1 };
const SERVER_SECRET = 'test-keys-encryption-secret-0123456789abcdef';

// RFC 6749 10.10: a generated secret carries 256 random bits; a slow hash adds nothing to what cannot be guessed.
t.test('a generated secret is stored as an HMAC-SHA256 digest that verifies, and a wrong secret does not', async (t) => {
  const hasher = new PasswordHasher(ARGON2, { serverSecret: SERVER_SECRET });
  const secret = randomToken();
  const stored = hasher.digestGeneratedSecret(secret);
  t.match(stored, /^hmac-sha256\$[A-Za-z0-9_-]{8}\$[A-Za-z0-9_-]{43}$/);
  t.notOk(stored.includes(secret), 'not the secret itself');
  t.equal(await hasher.verifyClientSecret(stored, secret), true);
  t.equal(await hasher.verifyClientSecret(stored, randomToken()), false);
  t.equal(await hasher.verifyClientSecret(stored, ''), false);
  t.equal(await hasher.verifyClientSecret(stored.slice(0, -2), secret), false, 'a truncated digest verifies nothing');
});

t.test('the digest depends on KEYS_ENCRYPTION_SECRET: a stolen table does not check guesses without it', async (t) => {
  const secret = randomToken();
  const keyed = new PasswordHasher(ARGON2, { serverSecret: SERVER_SECRET });
  const other = new PasswordHasher(ARGON2, { serverSecret: `${SERVER_SECRET}-other` });
  const unkeyed = new PasswordHasher(ARGON2);
  t.not(keyed.digestGeneratedSecret(secret), other.digestGeneratedSecret(secret));
  t.not(keyed.digestGeneratedSecret(secret), unkeyed.digestGeneratedSecret(secret));
  t.equal(await other.verifyClientSecret(keyed.digestGeneratedSecret(secret), secret), false, 'another key verifies nothing');
  t.equal(await unkeyed.verifyClientSecret(keyed.digestGeneratedSecret(secret), secret), false);
});

t.test('a digest made before KEYS_ENCRYPTION_SECRET was set still verifies after', async (t) => {
  const secret = randomToken();
  const before = new PasswordHasher(ARGON2).digestGeneratedSecret(secret);
  const after = new PasswordHasher(ARGON2, { serverSecret: SERVER_SECRET });
  t.equal(await after.verifyClientSecret(before, secret), true);
  t.equal(await after.verifyClientSecret(before, randomToken()), false);
});

t.test('an argon2id hash (a seeded, operator-chosen secret) still verifies', async (t) => {
  const hasher = new PasswordHasher(ARGON2, { serverSecret: SERVER_SECRET });
  const stored = await hasher.hash('an operator chosen secret');
  t.equal(await hasher.verifyClientSecret(stored, 'an operator chosen secret'), true);
  t.equal(await hasher.verifyClientSecret(stored, 'a wrong guess'), false);
});

t.test('a digest takes no argon2 slot: it verifies while the client-secret slots are all taken', async (t) => {
  const hasher = new PasswordHasher(ARGON2, { limits: { maxConcurrent: 1, maxQueued: 0 } });
  const argonHash = await hasher.hash('slow secret');
  const secret = randomToken();
  const stored = hasher.digestGeneratedSecret(secret);
  const busy = hasher.verifyClientSecret(argonHash, 'slow secret');
  t.equal(await hasher.verifyClientSecret(stored, secret), true, 'not refused as busy');
  t.equal(await busy, true);
});

// RFC 6819 5.1.4.2.2 / issue 16 finding 11: a wrong secret must not answer faster than argon2 would have, or the time
// tells a client whose secret was generated from a client_id that names none, and both from a seeded client.
t.test('a refusal without argon2 work still takes about the time of an argon2 verification', async (t) => {
  const hasher = new PasswordHasher(ARGON2, { serverSecret: SERVER_SECRET });
  const seeded = await hasher.hash('an operator chosen secret');
  let started = performance.now();
  await hasher.verifyClientSecret(seeded, 'a wrong guess');
  const argonMs = performance.now() - started;

  started = performance.now();
  t.equal(await hasher.verifyClientSecret(hasher.digestGeneratedSecret(randomToken()), randomToken()), false);
  const digestMs = performance.now() - started;
  started = performance.now();
  t.equal(await hasher.verifyNoClientSecret(randomToken()), false);
  const unknownMs = performance.now() - started;

  // The floor is what this hasher measured of argon2; a timer may fire a millisecond early.
  t.ok(digestMs >= hasher.argon2Estimate() - 2, `a wrong generated secret: ${digestMs} ms, argon2 ${argonMs} ms`);
  t.ok(unknownMs >= hasher.argon2Estimate() - 2, `an unknown client: ${unknownMs} ms, argon2 ${argonMs} ms`);
  t.ok(hasher.argon2Estimate() >= argonMs / 4, 'the floor follows what argon2 costs here');

  started = performance.now();
  t.equal(await hasher.verifyClientSecret(hasher.digestGeneratedSecret('right'), 'right'), true);
  t.ok(performance.now() - started < hasher.argon2Estimate(), 'a right secret is answered at once');
});
