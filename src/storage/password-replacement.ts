// What a new password or a disabled account ends, as the tail of one statement: shared by a reset
// (src/storage/password-resets.ts) and disabling (src/storage/users.ts disableUserRow), which end everything, and a
// change on the account page (changeUserPassword below), which keeps the browser's own session.
import { sql, type RawBuilder } from 'kysely';
import { queueLogoutsOfEnded } from './backchannel-logouts.js';
import { endConsoleSessionsOf } from './console-sessions.js';
import type { Db } from './database.js';

/**
 * CTEs that follow a CTE `changed` (the id of the user whose password was just replaced, or who was just disabled):
 * every live session but `keepSid` ends, with its back-channel logouts queued, and every console session of the user
 * (a console session is no browser's own: it is never the one kept); refresh tokens and unredeemed codes not
 * issued through `keepSid` are revoked, and, when no session is kept, every access token and every approved device
 * request not yet redeemed; open second-factor challenges end; the "password changed" `notice` is queued unless it is
 * null. Ends with the CTE `notice`; counts are read from `ended`, `queued`, `codes`, `refresh`, `access`,
 * `device_requests`, `challenges` and `console_ended`.
 */
export function signOutEverywhere(now: Date, keepSid: string | null, notice: Record<string, unknown> | null): RawBuilder<unknown> {
  const otherSid = (column: string) => (keepSid === null ? sql`true` : sql`${sql.ref(column)} IS DISTINCT FROM ${keepSid}`);
  return sql`ended AS (
      UPDATE sessions SET revoked_at = ${now}
       WHERE user_id IN (SELECT id FROM changed) AND revoked_at IS NULL AND expires_at > ${now} AND ${otherSid('sid')}
      RETURNING sid, user_id
    ), queued AS (
      ${queueLogoutsOfEnded(now)}
    ), console_ended AS (
      ${endConsoleSessionsOf(sql`SELECT id FROM changed`)}
    ), codes AS (
      UPDATE authorization_codes SET consumed_at = ${now}
       WHERE user_id IN (SELECT id FROM changed) AND consumed_at IS NULL AND ${otherSid('sid')}
      RETURNING code_hash
    ), refresh AS (
      UPDATE refresh_tokens SET revoked_at = ${now}
       WHERE user_id IN (SELECT id FROM changed) AND revoked_at IS NULL AND rotated_at IS NULL AND expires_at > ${now}
         AND ${otherSid('sid')}
      RETURNING token_hash
    ), access AS (
      UPDATE access_tokens SET revoked_at = ${now}
       WHERE user_id IN (SELECT id FROM changed) AND revoked_at IS NULL AND expires_at > ${now} AND ${keepSid === null}
      RETURNING token_hash
    ), device_requests AS (
      UPDATE device_authorizations SET status = 'denied'
       WHERE user_id IN (SELECT id FROM changed) AND status = 'approved' AND consumed_at IS NULL AND ${keepSid === null}
      RETURNING device_code_hash
    ), challenges AS (
      UPDATE second_factor_challenges SET consumed_at = ${now}
       WHERE user_id IN (SELECT id FROM changed) AND consumed_at IS NULL
      RETURNING id_hash
    ), notice AS (
      INSERT INTO outbox (user_id, kind, payload, created_at, next_attempt_at)
      SELECT id, 'password-changed', ${JSON.stringify(notice ?? {})}::jsonb, ${now}, ${now} FROM changed
       WHERE ${notice !== null}
      RETURNING id
    )`;
}

export interface ChangedPassword {
  sessionsEnded: number;
  logoutsQueued: number;
  refreshTokensRevoked: number;
}

/**
 * Replaces the password if it is still `oldHash` (a concurrent change wins once), and signs the user out everywhere
 * but `keepSid`, in one statement. Undefined: the password had changed meanwhile, and nothing was written.
 */
export async function changeUserPassword(
  db: Db,
  c: { userId: string; oldHash: string; newHash: string; keepSid: string; now: Date; notice: Record<string, unknown> },
): Promise<ChangedPassword | undefined> {
  const { rows } = await sql<{ sessions_ended: string; logouts_queued: string; refresh_revoked: string }>`
    WITH changed AS (
      UPDATE users SET password_hash = ${c.newHash}, updated_at = ${c.now}
       WHERE id = ${c.userId}::uuid AND password_hash = ${c.oldHash} AND disabled_at IS NULL
      RETURNING id
    ), ${signOutEverywhere(c.now, c.keepSid, c.notice)}
    SELECT (SELECT count(*) FROM ended) AS sessions_ended,
           (SELECT count(*) FROM queued) AS logouts_queued,
           (SELECT count(*) FROM refresh) AS refresh_revoked
      FROM changed`.execute(db);
  const row = rows[0];
  return (
    row && {
      sessionsEnded: Number(row.sessions_ended),
      logoutsQueued: Number(row.logouts_queued),
      refreshTokensRevoked: Number(row.refresh_revoked),
    }
  );
}
