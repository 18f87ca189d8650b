// Codes' and tokens' values lead with the moment they were made, and so do the keys their rows are stored under
// (issue 21: a digest key put each new row on a random page of a large index); UUID version 7 family ids (RFC 9562 5.7).
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { RandomSource, sha256, storedKey } from '../../src/domain/secrets.js';

const NOW = new Date('2026-11-27T19:00:00.123Z');
const random = new RandomSource();
const timedToken = (now: Date, bytes?: number) => random.timedToken(now, bytes);
const timeOrderedUuid = (now: Date) => random.timeOrderedUuid(now);

t.test('a timed value is the moment in 12 hex digits, then the random bytes in base64url', async (t) => {
  const value = timedToken(NOW);
  t.match(value, /^[0-9a-f]{12}[A-Za-z0-9_-]{43}$/);
  t.equal(parseInt(value.slice(0, 12), 16), NOW.getTime());
  t.match(timedToken(NOW, 16), /^[0-9a-f]{12}[A-Za-z0-9_-]{22}$/, 'a JWT id: 128 random bits');
  t.not(timedToken(NOW), timedToken(NOW), 'two made at the same moment differ');
});

t.test('the stored key: the moment, then the digest of the whole value; values made before keep the plain digest', async (t) => {
  const value = timedToken(NOW);
  t.equal(storedKey(value), value.slice(0, 12) + sha256(value));
  const jti = timedToken(NOW, 16);
  t.equal(storedKey(jti, `jwt:${jti}`), jti.slice(0, 12) + sha256(`jwt:${jti}`), 'a JWT row: the digest of what is named');
  // A token issued before timed values: 256 random bits, 43 characters; a JWT id of before: 22.
  const older = randomBytes(32).toString('base64url');
  t.equal(storedKey(older), sha256(older));
  const olderHexLooking = `abcdef012345${randomBytes(23).toString('base64url').slice(0, 31)}`;
  t.equal(storedKey(olderHexLooking), sha256(olderHexLooking), 'even one whose first 12 characters happen to be hex');
  const notTimed = `zz${value.slice(2)}`;
  t.equal(storedKey(notTimed), sha256(notTimed), 'a value of the length without the hex moment: the plain digest');
});

t.test("keys of values made later sort after, byte by byte (the database's own C collation)", async (t) => {
  const keys = [0, 1, 999, 60_000, 86_400_000].map((ms) => storedKey(timedToken(new Date(NOW.getTime() + ms))));
  t.same([...keys].sort(), keys);
});

t.test(
  'RFC 9562 5.7: a UUID version 7 holds the Unix time in milliseconds in its first 48 bits, the version and the variant',
  async (t) => {
    const id = timeOrderedUuid(NOW);
    t.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    t.equal(parseInt(id.replace(/-/g, '').slice(0, 12), 16), NOW.getTime());
    const later = [1, 2, 1000].map((ms) => timeOrderedUuid(new Date(NOW.getTime() + ms)));
    t.same([id, ...later].sort(), [id, ...later], 'later ones sort after');
    t.not(timeOrderedUuid(NOW), timeOrderedUuid(NOW), '74 random bits');
  },
);

t.test('the moment in 12 hex digits at the edges of its 48 bits and of its two halves', async (t) => {
  for (const ms of [0, 1, 0xffffff, 0x1000000, 0x1000001, 0xabcdef000000, 0xffffffffffff, Date.parse('2026-11-28T02:00:00.000Z')]) {
    const value = timedToken(new Date(ms));
    t.equal(value.slice(0, 12), ms.toString(16).padStart(12, '0'), `${ms}`);
  }
});

t.test('values drawn from the pool: each bytes once, none left behind, across refills', async (t) => {
  const source = new RandomSource();
  const pool = (source as unknown as { pool: Buffer }).pool;
  // 4096 bytes a pool: 300 values of 32 and 16 bytes take several refills, one at a boundary that 32 does not divide.
  const values = Array.from({ length: 300 }, (_, n) => (n % 3 === 2 ? source.token(16) : source.token()));
  t.ok(
    values.every((v, n) => v.length === (n % 3 === 2 ? 22 : 43)),
    'each of its full length (RFC 4648 5, no padding)',
  );
  t.equal(new Set(values).size, values.length, 'no value twice');
  // base64url of 32 bytes: the last character carries 4 bits and 2 zero bits, so 16 of 64 values; the rest all 64.
  const firsts = new Set(values.map((v) => v[0]));
  t.ok(firsts.size > 40, `the first characters spread over the alphabet (${firsts.size} of 64)`);
  const issued = values.slice(-5).map((v) => Buffer.from(v, 'base64url'));
  t.ok(
    issued.every((bytes) => pool.indexOf(bytes) === -1),
    'the pool no longer holds the bytes of a value it handed out',
  );
  const fresh = new RandomSource();
  const freshPool = (fresh as unknown as { pool: Buffer }).pool;
  fresh.token();
  t.ok(freshPool.subarray(0, 32).equals(Buffer.alloc(32)), 'what was drawn is zeroed');
  t.notOk(freshPool.subarray(32, 64).equals(Buffer.alloc(32)), 'what was not drawn is still random');
  t.throws(() => source.token(4097), RangeError, 'no more than a pool at a time');
});
