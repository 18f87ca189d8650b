// Expired sessions are purged, except while tokens issued through them may still be used: revoking their
// device finds those tokens by the session's sid.
import { randomBytes, randomUUID } from 'node:crypto';
import t from 'tap';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { applySeed } from '../../src/domain/admin/seed.js';
import { purgeExpired } from '../../src/storage/purge.js';
import { FIXTURES, testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';

const HOUR = 3600;
const database = await createTestDatabase();
t.teardown(() => database.drop());
const db = database.handle.db;
await applySeed(db, new PasswordHasher(testConfig().argon2), FIXTURES);
const userId = (await db.selectFrom('users').select('id').executeTakeFirstOrThrow()).id;
const CLIENT = FIXTURES.clients[0]!.client_id;
const now = new Date(Date.now() + 100 * 24 * HOUR * 1000);
const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);

async function session(expiredSecondsAgo: number, options: { signedInToClient?: boolean } = {}): Promise<string> {
  const sid = randomBytes(16).toString('base64url');
  const expiresAt = ago(expiredSecondsAgo);
  await db
    .insertInto('sessions')
    .values({
      id_hash: randomBytes(16).toString('hex'),
      sid,
      user_id: userId,
      auth_time: ago(expiredSecondsAgo + 60),
      created_at: ago(expiredSecondsAgo + 60),
      expires_at: expiresAt,
    })
    .execute();
  if (options.signedInToClient)
    await db
      .insertInto('session_clients')
      .values({ sid, client_id: CLIENT, created_at: ago(expiredSecondsAgo + 30) })
      .execute();
  return sid;
}

async function refreshToken(sid: string, expiresAt: Date, revokedAt: Date | null = null): Promise<void> {
  await db
    .insertInto('refresh_tokens')
    .values({
      token_hash: randomBytes(16).toString('hex'),
      family_id: randomUUID(),
      client_id: CLIENT,
      user_id: userId,
      scope: 'openid offline_access',
      auth_time: ago(10 * HOUR),
      issued_at: ago(HOUR),
      expires_at: expiresAt,
      sid,
      revoked_at: revokedAt,
    })
    .execute();
}

const exists = async (sid: string) =>
  (await db.selectFrom('sessions').select('sid').where('sid', '=', sid).executeTakeFirst()) !== undefined;

t.test('an expired session that signed in to a client stays an access token lifetime, then goes', async (t) => {
  const recent = await session(60, { signedInToClient: true });
  const old = await session(HOUR + 60, { signedInToClient: true });
  const idle = await session(60);
  await purgeExpired(db, {
    now,
    accessTokenTtlSeconds: HOUR,
    signInAttemptRetentionSeconds: HOUR,
    oneTimeCodeTtlSeconds: 300,
    passwordResetTtlSeconds: 1800,
    signupTtlSeconds: 3600,
    securityEventRetentionSeconds: 90 * 86_400,
  });
  t.ok(await exists(recent), 'its access tokens may still be in use');
  t.notOk(await exists(old), 'they have all expired by now');
  t.notOk(await exists(idle), 'a session that issued nothing goes at once');
});

t.test('an expired session stays as long as a live refresh token carries its sid', async (t) => {
  const kept = await session(30 * 24 * HOUR);
  await refreshToken(kept, new Date(now.getTime() + HOUR));
  const revoked = await session(30 * 24 * HOUR);
  await refreshToken(revoked, new Date(now.getTime() + HOUR), ago(60));
  const lapsed = await session(30 * 24 * HOUR);
  await refreshToken(lapsed, ago(60));
  await purgeExpired(db, {
    now,
    accessTokenTtlSeconds: HOUR,
    signInAttemptRetentionSeconds: HOUR,
    oneTimeCodeTtlSeconds: 300,
    passwordResetTtlSeconds: 1800,
    signupTtlSeconds: 3600,
    securityEventRetentionSeconds: 90 * 86_400,
  });
  t.ok(await exists(kept), 'kept for its live refresh token');
  t.notOk(await exists(revoked), 'a revoked refresh token keeps nothing');
  t.notOk(await exists(lapsed), 'nor an expired one');
});
