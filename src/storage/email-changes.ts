// Repository for email changes waiting for the new address to be verified (migrations 20261125040000 and
// 20261203010000): asked, confirmed through the link, or ended by a recovery or the notice's cancel link.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from './database.js';
import { isUniqueViolation } from './database-errors.js';

export interface NewEmailChange {
  userId: string;
  newEmail: string;
  tokenDigest: string;
  /** The digest of the cancel link's token, which the notice to the current address carries. */
  cancelDigest: string;
  now: Date;
  expiresAt: Date;
  /** The verification link for the new address. */
  verification: Record<string, unknown>;
  /** The notice for the current address (none when the user has none, or when it is the address being verified). */
  notice: Record<string, unknown> | null;
}

/**
 * Stores the change and queues, in one statement: to the new address a verification, or, when the address is
 * another account's, a note that it is taken (so that the page says the same to the person either way); to the
 * current address a notice of the change asked for.
 */
export async function createEmailChange(db: Db, c: NewEmailChange): Promise<void> {
  await sql`
    WITH other AS (
      SELECT id FROM users WHERE lower(email) = lower(${c.newEmail}) AND id <> ${c.userId}::uuid LIMIT 1
    ), stored AS (
      INSERT INTO email_changes (token_digest, cancel_digest, user_id, new_email, created_at, expires_at)
      SELECT ${c.tokenDigest}, ${c.cancelDigest}, ${c.userId}::uuid, ${c.newEmail}, ${c.now}, ${c.expiresAt}
       WHERE NOT EXISTS (SELECT 1 FROM other)
      RETURNING user_id
    ), verification AS (
      INSERT INTO outbox (user_id, address, kind, payload, created_at, next_attempt_at)
      SELECT ${c.userId}::uuid, ${c.newEmail},
             CASE WHEN EXISTS (SELECT 1 FROM other) THEN 'email-taken' ELSE 'email-verification' END,
             CASE WHEN EXISTS (SELECT 1 FROM other) THEN '{}'::jsonb ELSE ${JSON.stringify(c.verification)}::jsonb END,
             ${c.now}, ${c.now}
      RETURNING id
    )
    INSERT INTO outbox (user_id, kind, payload, created_at, next_attempt_at)
    SELECT id, 'email-change-notice', ${JSON.stringify(c.notice)}::jsonb, ${c.now}, ${c.now}
      FROM users WHERE id = ${c.userId}::uuid AND email IS NOT NULL AND ${c.notice !== null}`.execute(db);
}

/**
 * The change of this link, if it may be used now: unused, not ended (by a recovery or its cancel link), unexpired,
 * the user's newest, the user enabled.
 */
const usable = (now: Date) => sql`c.used_at IS NULL AND c.ended_at IS NULL AND c.expires_at > ${now} AND u.disabled_at IS NULL
  AND NOT EXISTS (SELECT 1 FROM email_changes newer WHERE newer.user_id = c.user_id AND newer.id > c.id)`;

export async function findUsableEmailChange(
  db: Db,
  tokenDigest: string,
  now: Date,
): Promise<{ userId: string; newEmail: string } | undefined> {
  const { rows } = await sql<{ user_id: string; new_email: string }>`
    SELECT c.user_id, c.new_email FROM email_changes c JOIN users u ON u.id = c.user_id
     WHERE c.token_digest = ${tokenDigest} AND ${usable(now)}`.execute(db);
  const row = rows[0];
  return row && { userId: row.user_id, newEmail: row.new_email };
}

export type EmailChangeOutcome =
  | { kind: 'changed'; userId: string; username: string; newEmail: string; previous: string | null }
  | { kind: 'unusable' }
  | { kind: 'taken' };

/** Uses the link and sets the address, verified, in one statement; `taken` when it became another account's. */
export async function completeEmailChange(db: Db, tokenDigest: string, now: Date): Promise<EmailChangeOutcome> {
  try {
    const { rows } = await sql<{ user_id: string; username: string; new_email: string; previous: string | null }>`
      WITH used AS (
        UPDATE email_changes c SET used_at = ${now}
          FROM users u
         WHERE c.token_digest = ${tokenDigest} AND u.id = c.user_id AND ${usable(now)}
        RETURNING c.user_id, c.new_email, u.email AS previous
      )
      UPDATE users SET email = used.new_email, email_verified = true, updated_at = ${now}
        FROM used WHERE users.id = used.user_id
      RETURNING users.id AS user_id, users.username, users.email AS new_email, used.previous`.execute(db);
    const row = rows[0];
    return row
      ? { kind: 'changed', userId: row.user_id, username: row.username, newEmail: row.new_email, previous: row.previous }
      : { kind: 'unusable' };
  } catch (err) {
    // users_email_key: the address became another account's since the link was sent. Nothing was written.
    if (isUniqueViolation(err)) return { kind: 'taken' };
    throw err;
  }
}

/**
 * A CTE `pending_changes` ending every pending change of the users of the CTE `changed`, for a recovery made in one
 * statement (a password reset, disabling a user): `WITH changed AS (...), ${endPendingEmailChangesOf(now)}, ...`.
 */
export function endPendingEmailChangesOf(now: Date): RawBuilder<unknown> {
  return sql`pending_changes AS (
      UPDATE email_changes SET ended_at = ${now}
       WHERE user_id IN (SELECT id FROM changed) AND used_at IS NULL AND ended_at IS NULL
      RETURNING id
    )`;
}

/** Ends every pending change of the user (a recovery); how many there were. */
export async function endPendingEmailChanges(db: Db, userId: string, now: Date): Promise<number> {
  const rows = await db
    .updateTable('email_changes')
    .set({ ended_at: now })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .where('ended_at', 'is', null)
    .returning('id')
    .execute();
  return rows.length;
}

/**
 * The notice's cancel link: ends every pending change of its user (not only the one it was sent for: the owner of
 * the current address says none was theirs). The user's id when the link still had something to end.
 */
export async function cancelEmailChanges(db: Db, cancelDigest: string, now: Date): Promise<string | undefined> {
  const { rows } = await sql<{ user_id: string }>`
    WITH target AS (
      SELECT user_id FROM email_changes
       WHERE cancel_digest = ${cancelDigest} AND used_at IS NULL AND ended_at IS NULL AND expires_at > ${now}
    ), ended AS (
      UPDATE email_changes SET ended_at = ${now}
       WHERE user_id IN (SELECT user_id FROM target) AND used_at IS NULL AND ended_at IS NULL
      RETURNING user_id
    )
    SELECT DISTINCT user_id FROM ended`.execute(db);
  return rows[0]?.user_id;
}

/** Whether the cancel link still has a pending change to end (the confirmation page). Reads only. */
export async function findCancellableEmailChange(db: Db, cancelDigest: string, now: Date): Promise<boolean> {
  const row = await db
    .selectFrom('email_changes')
    .select('id')
    .where('cancel_digest', '=', cancelDigest)
    .where('used_at', 'is', null)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row !== undefined;
}
