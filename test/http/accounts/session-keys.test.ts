// A session's cookie value and its sid lead with the moment they were made, and its row is stored under that moment and
// the cookie's digest (issue 21: new rows land at the right edge of the sessions' indexes, as codes' and tokens' do).
// A session made before, stored under the plain digest of its cookie, still signs the browser in and still ends.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { sha256 } from '../../../src/domain/secrets.js';
import { sessionKey } from '../../../src/domain/accounts/sessions.js';
import { endSession, insertSession } from '../../../src/storage/sessions.js';
import { ALICE, buildTestApp } from '../../helpers/app.js';
import { obtainCode, silentAuthorize } from '../../helpers/flow.js';

const { app, db } = await buildTestApp(t);

/** A code for `cookie` when its session is live (prompt=none). */
const codeFor = async (cookie: string) => (await silentAuthorize(app, cookie)).searchParams.get('code');

t.test('a new session: the moment in its cookie and its sid, its row under the moment and the digest', async (t) => {
  const before = Date.now();
  const { browser } = await obtainCode(app);
  const cookie = browser.get('sso_session')!;
  t.match(cookie, /^[0-9a-f]{12}[A-Za-z0-9_-]{43}$/);
  const moment = parseInt(cookie.slice(0, 12), 16);
  t.ok(moment >= before && moment <= Date.now(), 'the moment the session was made');
  const row = await db
    .selectFrom('sessions')
    .select(['id_hash', 'sid'])
    .where('id_hash', '=', cookie.slice(0, 12) + sha256(cookie))
    .executeTakeFirst();
  t.ok(row, 'stored under the moment, then the digest of the cookie');
  t.match(row!.sid, /^[0-9a-f]{12}[A-Za-z0-9_-]{22}$/, 'the sid: the moment, then 128 random bits');
  t.notOk(row!.sid.slice(12) === cookie.slice(12, 34), "its random bits are not the cookie's");
  t.ok(await codeFor(cookie), 'the cookie finds its session');
  const otherMoment = `${cookie.slice(0, 11)}${cookie[11] === '0' ? '1' : '0'}${cookie.slice(12)}`;
  t.equal(await codeFor(otherMoment), null, 'the same random bits under another moment find none');
});

t.test('a session made before timed cookies (the plain digest of 32 random bytes) still signs in, and signs out', async (t) => {
  await obtainCode(app); // Alice's consent to the client
  const user = await db.selectFrom('users').select('id').where('username', '=', ALICE.username).executeTakeFirstOrThrow();
  const older = randomBytes(32).toString('base64url');
  const now = new Date();
  await insertSession(db, {
    idHash: sha256(older),
    sid: randomBytes(16).toString('base64url'),
    userId: user.id,
    authTime: now,
    createdAt: now,
    expiresAt: new Date(now.getTime() + 3600_000),
    deviceId: null,
    amr: ['pwd'],
    acr: null,
  });
  t.ok(await codeFor(older), 'found under its plain digest');
  t.ok(await endSession(db, sessionKey(older), new Date()), 'the key logout ends it by is the same');
  t.equal(await codeFor(older), null, 'and then it signs in no more');
});
