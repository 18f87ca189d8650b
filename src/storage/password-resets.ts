// Repository for password reset links: each step one statement, so that a link is issued with its message, and
// used with everything a new password ends, all or nothing, whatever other instance races it.
import { sql } from 'kysely';
import type { Db } from './database.js';
import { signOutEverywhere } from './password-replacement.js';
import { endPendingEmailChangesOf } from './email-changes.js';

/** The SHA-256 of the user's password hash, as SQL: changes whenever the password is set again, by anyone. */
const FINGERPRINT = (alias: string) => sql.raw(`sha256(convert_to(${alias}.password_hash, 'UTF8'))`);

export interface NewReset {
  /** Whom for: the login as typed (trimmed, lower-cased; a username, else an email) or a user id (admins). */
  who: { login: string } | { userId: string };
  tokenDigest: string;
  interactionId: string | null;
  now: Date;
  expiresAt: Date;
  /** The message to queue with it (the link, for the outbox); none when an admin prints the link instead. */
  message?: { kind: 'password-reset'; payload: Record<string, unknown> };
}

/**
 * Issues a link for an enabled user (with a verified email address, when it is to be mailed: issue 38, an address
 * someone else set gets no link), and queues its message to that address, in one statement; undefined
 * (nothing written) when there is no such user. The work is the same whether or not the user exists, so that the
 * time of the answer does not tell.
 */
export async function issuePasswordReset(db: Db, r: NewReset): Promise<{ userId: string } | undefined> {
  // A login names a username first, else an email, as at sign-in (src/storage/hot-path/record-attempt.ts).
  const match =
    'login' in r.who
      ? sql`(lower(u.username) = ${r.who.login} OR lower(u.email) = ${r.who.login}) ORDER BY lower(u.username) = ${r.who.login} DESC`
      : sql`u.id = ${r.who.userId}::uuid`;
  const payload = JSON.stringify(r.message?.payload ?? {});
  const { rows } = await sql<{ user_id: string }>`
    WITH target AS (
      SELECT u.id, u.email, ${FINGERPRINT('u')} AS fingerprint FROM users u
       WHERE u.disabled_at IS NULL AND ((u.email IS NOT NULL AND u.email_verified) OR ${r.message === undefined}) AND ${match} LIMIT 1
    ), issued AS (
      INSERT INTO password_resets (token_digest, user_id, password_fingerprint, interaction_id, created_at, expires_at)
      SELECT ${r.tokenDigest}, id, fingerprint, ${r.interactionId}, ${r.now}, ${r.expiresAt} FROM target
      RETURNING user_id
    ), queued AS (
      -- Sent to the verified address the user has now (outbox.address), not to whatever address they have when the
      -- notifier gets to it: an address changed in between is not verified, and gets no link.
      INSERT INTO outbox (user_id, address, kind, payload, created_at, next_attempt_at)
      SELECT issued.user_id, target.email, ${r.message?.kind ?? ''}, ${payload}::jsonb, ${r.now}, ${r.now}
        FROM issued JOIN target ON target.id = issued.user_id WHERE ${r.message !== undefined}
      RETURNING id
    )
    SELECT user_id FROM issued, (SELECT count(*) FROM queued) q`.execute(db);
  const row = rows[0];
  return row && { userId: row.user_id };
}

/** A link that may be used now: the user it is for, and where the person was going. */
export interface UsableReset {
  userId: string;
  username: string;
  email: string | null;
  interactionId: string | null;
  /** The user has an authenticator app: its code is asked for before the new password is set. */
  hasAuthenticator: boolean;
  /** The user was provisioned from a directory (directory_links), which holds their password. */
  directoryManaged: boolean;
}

/** The conditions of a usable link `r` of user `u`, as SQL (see the migration). */
const usable = (now: Date) => sql`r.used_at IS NULL AND r.expires_at > ${now} AND u.disabled_at IS NULL
  AND r.password_fingerprint = ${FINGERPRINT('u')}
  AND NOT EXISTS (SELECT 1 FROM password_resets newer WHERE newer.user_id = r.user_id AND newer.id > r.id)`;

/** The link of this digest, if it may be used now. Reads only. */
export async function findUsableReset(db: Db, tokenDigest: string, now: Date): Promise<UsableReset | undefined> {
  const { rows } = await sql<{
    user_id: string;
    username: string;
    email: string | null;
    interaction_id: string | null;
    totp: boolean;
    directory: boolean;
  }>`
    SELECT r.user_id, u.username, u.email, r.interaction_id,
           EXISTS (SELECT 1 FROM totp_authenticators t WHERE t.user_id = u.id AND t.confirmed_at IS NOT NULL) AS totp,
           EXISTS (SELECT 1 FROM directory_links l WHERE l.user_id = u.id) AS directory
      FROM password_resets r JOIN users u ON u.id = r.user_id
     WHERE r.token_digest = ${tokenDigest} AND ${usable(now)}`.execute(db);
  const row = rows[0];
  return (
    row && {
      userId: row.user_id,
      username: row.username,
      email: row.email,
      interactionId: row.interaction_id,
      hasAuthenticator: row.totp,
      directoryManaged: row.directory,
    }
  );
}

export interface CompletedReset {
  userId: string;
  interactionId: string | null;
  sessionsEnded: number;
  logoutsQueued: number;
  refreshTokensRevoked: number;
}

/**
 * Uses the link and sets the password, in one statement: the link is marked used (if it is still usable), the
 * password replaced (the address stays as verified as it was: a mailed link went to a verified one, and a link an
 * admin handed over proves no address), every pending email change ended (a recovery), every live session
 * ended with its back-channel logouts queued, every refresh and access token and unredeemed code revoked, open
 * second-factor challenges ended, and the "password changed" notice queued. Undefined: the link was not usable
 * (used meanwhile, expired, superseded), and nothing was written.
 */
export async function completePasswordReset(
  db: Db,
  c: { tokenDigest: string; passwordHash: string; now: Date; notice: Record<string, unknown> },
): Promise<CompletedReset | undefined> {
  const { now } = c;
  const { rows } = await sql<{
    user_id: string;
    interaction_id: string | null;
    sessions_ended: string;
    logouts_queued: string;
    refresh_revoked: string;
  }>`
    WITH used AS (
      UPDATE password_resets r SET used_at = ${now}
        FROM users u
       WHERE r.token_digest = ${c.tokenDigest} AND u.id = r.user_id AND ${usable(now)}
         -- A directory user's password is the directory's: a local one set here would bypass it.
         AND NOT EXISTS (SELECT 1 FROM directory_links l WHERE l.user_id = u.id)
      RETURNING r.user_id, r.interaction_id
    ), changed AS (
      UPDATE users SET password_hash = ${c.passwordHash}, updated_at = ${now}
       WHERE id IN (SELECT user_id FROM used)
      RETURNING id
    ), ${endPendingEmailChangesOf(now)}, ${signOutEverywhere(now, null, c.notice)}
    SELECT used.user_id, used.interaction_id,
           (SELECT count(*) FROM ended) AS sessions_ended,
           (SELECT count(*) FROM queued) AS logouts_queued,
           (SELECT count(*) FROM refresh) AS refresh_revoked
      FROM used`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  return {
    userId: row.user_id,
    interactionId: row.interaction_id,
    sessionsEnded: Number(row.sessions_ended),
    logoutsQueued: Number(row.logouts_queued),
    refreshTokensRevoked: Number(row.refresh_revoked),
  };
}
