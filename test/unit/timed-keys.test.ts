// Codes' and tokens' values lead with the moment they were made, and so do the keys their rows are stored under
// (issue 21: a digest key put each new row on a random page of a large index); UUID version 7 family ids (RFC 9562 5.7).
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { sha256, storedKey, timedToken, timeOrderedUuid } from '../../src/domain/secrets.js';

const NOW = new Date('2026-11-27T19:00:00.123Z');

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
