// Repository for browser sign-in sessions (the cookie carries the id; the table keeps its digest).
import type { Db } from './database.js';

export interface NewSession {
  idHash: string;
  userId: string;
  authTime: Date;
  createdAt: Date;
  expiresAt: Date;
}

export interface ActiveSession {
  userId: string;
  authTime: Date;
}

export async function insertSession(db: Db, s: NewSession): Promise<void> {
  await db
    .insertInto('sessions')
    .values({ id_hash: s.idHash, user_id: s.userId, auth_time: s.authTime, created_at: s.createdAt, expires_at: s.expiresAt })
    .execute();
}

/** The session with this digest if it is unexpired, unrevoked and its user is not disabled. */
export async function findActiveSession(db: Db, idHash: string, now: Date): Promise<ActiveSession | undefined> {
  const row = await db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.user_id', 's.auth_time'])
    .where('s.id_hash', '=', idHash)
    .where('s.expires_at', '>', now)
    .where('s.revoked_at', 'is', null)
    .where('u.disabled_at', 'is', null)
    .executeTakeFirst();
  return row && { userId: row.user_id, authTime: row.auth_time };
}
