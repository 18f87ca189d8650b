// Repository for the web console's sessions (migrations/20261128030000_console_sessions.sql): rows found by the
// digest of the cookie, alive until their absolute expiry and while used within the idle lifetime; ended with the
// user's browser sessions (sessions.ts endUserSessions, password-replacement.ts signOutEverywhere).
import { sql, type RawBuilder } from 'kysely';
import type { Db } from './database.js';

export interface NewConsoleSession {
  idHash: string;
  userId: string;
  now: Date;
  expiresAt: Date;
}

/** The person behind a live console session: their user row's few fields the console needs, and their role now. */
export interface ConsoleSessionHolder {
  user_id: string;
  username: string;
  disabled_at: Date | null;
  role: string | null;
}

export async function insertConsoleSession(db: Db, s: NewConsoleSession): Promise<void> {
  await db
    .insertInto('console_sessions')
    .values({ id_hash: s.idHash, user_id: s.userId, created_at: s.now, last_seen_at: s.now, expires_at: s.expiresAt })
    .execute();
}

/**
 * Marks the session used now when it is still alive (before its expiry, and last used after `idleSince`) and returns
 * who holds it with their current role; undefined for an unknown, expired or idle session.
 */
export async function touchConsoleSession(db: Db, idHash: string, now: Date, idleSince: Date): Promise<ConsoleSessionHolder | undefined> {
  const touched = await db
    .updateTable('console_sessions')
    .set({ last_seen_at: now })
    .where('id_hash', '=', idHash)
    .where('expires_at', '>', now)
    .where('last_seen_at', '>', idleSince)
    .returning('user_id')
    .executeTakeFirst();
  if (!touched) return undefined;
  return db
    .selectFrom('users as u')
    .leftJoin('user_roles as r', 'r.user_id', 'u.id')
    .select(['u.id as user_id', 'u.username', 'u.disabled_at', 'r.role'])
    .where('u.id', '=', touched.user_id)
    .executeTakeFirst();
}

export async function deleteConsoleSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('id_hash', '=', idHash).execute();
}

/** Ends the console session of this public id if it is the user's; false when the user has none such. */
export async function deleteUserConsoleSession(db: Db, userId: string, sid: string): Promise<boolean> {
  const row = await db
    .deleteFrom('console_sessions')
    .where('user_id', '=', userId)
    .where('sid', '=', sid)
    .returning('id_hash')
    .executeTakeFirst();
  return row !== undefined;
}

/** Sessions past their absolute expiry, or idle since before `idleSince`; returns how many were removed. */
export async function deleteDeadConsoleSessions(db: Db, now: Date, idleSince: Date): Promise<number> {
  const result = await db
    .deleteFrom('console_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', idleSince)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A live console session as the session lists show it: its public id, never the cookie or its digest. */
export interface LiveConsoleSessionRow {
  sid: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
}

/** The user's console sessions still alive (before their expiry, last used after `idleSince`), newest first. */
export async function listLiveConsoleSessions(db: Db, userId: string, now: Date, idleSince: Date): Promise<LiveConsoleSessionRow[]> {
  const rows = await db
    .selectFrom('console_sessions')
    .select(['sid', 'created_at', 'last_seen_at', 'expires_at'])
    .where('user_id', '=', userId)
    .where('expires_at', '>', now)
    .where('last_seen_at', '>', idleSince)
    .orderBy('created_at', 'desc')
    .orderBy('sid')
    .execute();
  return rows.map((r) => ({ sid: r.sid, createdAt: r.created_at, lastSeenAt: r.last_seen_at, expiresAt: r.expires_at }));
}

/**
 * The body of a CTE that ends every console session of the users `userIds` selects (an SQL subquery or a list):
 * the rows go, so the cookies find nothing. Every statement that signs a user out everywhere carries it, in the
 * same statement, so that no path ends the browser sessions and leaves the console's.
 */
export function endConsoleSessionsOf(userIds: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`DELETE FROM console_sessions WHERE user_id IN (${userIds}) RETURNING id_hash`;
}
