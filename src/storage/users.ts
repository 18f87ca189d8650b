// Repository for users (the people who sign in).
import { sql } from 'kysely';
import { signOutEverywhere } from './password-replacement.js';
import { endPendingEmailChangesOf } from './email-changes.js';
import type { Db } from './database.js';
import { containsText } from './text-search.js';
import type { NewUserRow, UserRow, UserUpdate } from './schema.js';

export function findUserByUsername(db: Db, username: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql`lower(username)`, '=', username.toLowerCase())
    .executeTakeFirst();
}

/** The user with this email address, in any case (addresses are unique, users_email_key). */
export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();
}

export function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertUser(db: Db, row: NewUserRow): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function updateUser(db: Db, id: string, changes: UserUpdate): Promise<void> {
  await db.updateTable('users').set(changes).where('id', '=', id).execute();
}

/** The language the user last used a page in; written only when it changed. */
export async function rememberLocale(db: Db, id: string, locale: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ locale })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('locale', 'is', null), eb('locale', '!=', locale)]))
    .execute();
}

/** Every user, by username (case-insensitive). */
export function listUsers(db: Db): Promise<UserRow[]> {
  return db
    .selectFrom('users')
    .selectAll()
    .orderBy(sql`lower(username)`)
    .orderBy('id')
    .execute();
}

/** What the management API's user list filters by: a part of the username or email (any case), disabled or not. */
export interface UserListFilter {
  text?: string | undefined;
  disabled?: boolean | undefined;
}

/**
 * A page of the users matching the filter, by id (keyset pagination): at most `limit` after the id `after`. Reads
 * those rows only, however many users there are.
 */
export function pageUserRows(db: Db, filter: UserListFilter, after: string | undefined, limit: number): Promise<UserRow[]> {
  let query = db.selectFrom('users').selectAll();
  const { text, disabled } = filter;
  if (text !== undefined) query = query.where(containsText(text, ['username', 'email']));
  if (disabled !== undefined) query = query.where('disabled_at', disabled ? 'is not' : 'is', null);
  if (after !== undefined) query = query.where('id', '>', after);
  return query.orderBy('id').limit(limit).execute();
}

/** Inserts the user unless the username or email is taken (case-insensitive); false when it was. */
export async function insertUserIfAbsent(db: Db, row: NewUserRow): Promise<boolean> {
  const inserted = await db
    .insertInto('users')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** What is attached to a user now: live sessions, devices not revoked, an enrolled authenticator app. */
export async function findUserActivity(
  db: Db,
  userId: string,
  now: Date,
): Promise<{ sessions: number; devices: number; authenticator: boolean }> {
  const { rows } = await sql<{ sessions: string; devices: string; authenticator: boolean }>`
    SELECT (SELECT count(*) FROM sessions WHERE user_id = ${userId}::uuid AND revoked_at IS NULL AND expires_at > ${now}) AS sessions,
           (SELECT count(*) FROM devices WHERE user_id = ${userId}::uuid AND revoked_at IS NULL) AS devices,
           EXISTS (SELECT 1 FROM totp_authenticators WHERE user_id = ${userId}::uuid AND confirmed_at IS NOT NULL) AS authenticator`.execute(
    db,
  );
  const row = rows[0]!;
  return { sessions: Number(row.sessions), devices: Number(row.devices), authenticator: row.authenticator };
}

export interface DisabledUserRow {
  /** When the user was disabled: now, or earlier when they already were. */
  disabledAt: Date;
  alreadyDisabled: boolean;
  sessionsEnded: number;
  logoutsQueued: number;
  codesRevoked: number;
  refreshTokensRevoked: number;
  accessTokensRevoked: number;
  deviceRequestsDenied: number;
  challengesEnded: number;
}

/**
 * Disables the user in one statement, so that nothing is left half done: the user is marked disabled (sign-in,
 * codes, refresh, userinfo and introspection already refuse a disabled user); their live sessions end, with a
 * back-channel logout queued for each client they signed in to (as storage/sessions.ts endSession does); and what
 * was issued to them is revoked for good, so that enabling them again revives none of it: pending email changes,
 * unredeemed codes, refresh tokens, access tokens, device requests approved but not yet collected, second-factor
 * challenges under way. Undefined when there is no such user.
 */
export async function disableUserRow(db: Db, userId: string, now: Date): Promise<DisabledUserRow | undefined> {
  const { rows } = await sql<{
    disabled_at: Date;
    already: boolean;
    sessions_ended: string;
    logouts_queued: string;
    codes_revoked: string;
    refresh_revoked: string;
    access_revoked: string;
    device_requests_denied: string;
    challenges_ended: string;
  }>`
    WITH before AS (
      SELECT id, disabled_at FROM users WHERE id = ${userId}::uuid
    ), changed AS (
      UPDATE users SET disabled_at = COALESCE(disabled_at, ${now}) WHERE id IN (SELECT id FROM before)
      RETURNING id, disabled_at
    ), ${endPendingEmailChangesOf(now)}, ${signOutEverywhere(now, null, null)}
    SELECT changed.disabled_at,
           (SELECT disabled_at IS NOT NULL FROM before) AS already,
           (SELECT count(*) FROM ended) AS sessions_ended,
           (SELECT count(*) FROM queued) AS logouts_queued,
           (SELECT count(*) FROM codes) AS codes_revoked,
           (SELECT count(*) FROM refresh) AS refresh_revoked,
           (SELECT count(*) FROM access) AS access_revoked,
           (SELECT count(*) FROM device_requests) AS device_requests_denied,
           (SELECT count(*) FROM challenges) AS challenges_ended
      FROM changed`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  return {
    disabledAt: row.disabled_at,
    alreadyDisabled: row.already,
    sessionsEnded: Number(row.sessions_ended),
    logoutsQueued: Number(row.logouts_queued),
    codesRevoked: Number(row.codes_revoked),
    refreshTokensRevoked: Number(row.refresh_revoked),
    accessTokensRevoked: Number(row.access_revoked),
    deviceRequestsDenied: Number(row.device_requests_denied),
    challengesEnded: Number(row.challenges_ended),
  };
}

/** Clears the user's disabled mark; false when there is no such user or they were not disabled. */
export async function enableUserRow(db: Db, userId: string): Promise<boolean> {
  const row = await db
    .updateTable('users')
    .set({ disabled_at: null })
    .where('id', '=', userId)
    .where('disabled_at', 'is not', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes the user; everything of theirs goes with the row (ON DELETE CASCADE). False when there was none. */
export async function deleteUserRow(db: Db, userId: string): Promise<boolean> {
  const row = await db.deleteFrom('users').where('id', '=', userId).returning('id').executeTakeFirst();
  return row !== undefined;
}
