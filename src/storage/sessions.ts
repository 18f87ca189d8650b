// Repository for browser sign-in sessions (the cookie carries the id; the table keeps its digest).
import { sql } from 'kysely';
import type { Db } from './database.js';

export interface NewSession {
  idHash: string;
  sid: string;
  userId: string;
  authTime: Date;
  createdAt: Date;
  expiresAt: Date;
  /** The device signed in from, when known. */
  deviceId: string | null;
  /** How the user signed in (OIDC Core 2 `amr`). */
  amr: string[];
}

export interface ActiveSession {
  /** The public session id (the `sid` claim). */
  sid: string;
  userId: string;
  authTime: Date;
  deviceId: string | null;
  amr: string[];
}

export async function insertSession(db: Db, s: NewSession): Promise<void> {
  await db
    .insertInto('sessions')
    .values({
      id_hash: s.idHash,
      sid: s.sid,
      user_id: s.userId,
      auth_time: s.authTime,
      created_at: s.createdAt,
      expires_at: s.expiresAt,
      device_id: s.deviceId,
      amr: s.amr,
    })
    .execute();
}

/** The session with this digest if it is unexpired, unrevoked and its user is not disabled. */
export async function findActiveSession(db: Db, idHash: string, now: Date): Promise<ActiveSession | undefined> {
  const row = await db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.sid', 's.user_id', 's.auth_time', 's.device_id', 's.amr'])
    .where('s.id_hash', '=', idHash)
    .where('s.expires_at', '>', now)
    .where('s.revoked_at', 'is', null)
    .where('u.disabled_at', 'is', null)
    .executeTakeFirst();
  return row && { sid: row.sid, userId: row.user_id, authTime: row.auth_time, deviceId: row.device_id, amr: row.amr };
}

export interface EndedSession {
  sid: string;
  userId: string;
  /** Logout tokens queued for delivery, one per client of the session with a backchannel_logout_uri. */
  queued: number;
}

/**
 * Ends a session in one statement: revokes it and queues a back-channel logout for every client it signed in
 * to that registered a backchannel_logout_uri, so that a crash cannot end the one without the other.
 * Returns nothing when the session was not live (unknown, expired or already ended).
 */
export async function endSession(db: Db, idHash: string, now: Date): Promise<EndedSession | undefined> {
  const row = await db
    .with('ended', (qb) =>
      qb
        .updateTable('sessions')
        .set({ revoked_at: now })
        .where('id_hash', '=', idHash)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .returning(['sid', 'user_id']),
    )
    .with('queued', (qb) =>
      qb
        .insertInto('backchannel_logouts')
        .columns(['client_id', 'sub', 'sid', 'next_attempt_at', 'created_at'])
        .expression((eb) =>
          eb
            .selectFrom('ended')
            .innerJoin('session_clients as sc', 'sc.sid', 'ended.sid')
            .innerJoin('clients as c', 'c.client_id', 'sc.client_id')
            .select([
              'sc.client_id',
              sql<string>`ended.user_id::text`.as('sub'),
              'ended.sid',
              eb.cast(eb.val(now), 'timestamptz').as('next_attempt_at'),
              eb.cast(eb.val(now), 'timestamptz').as('created_at'),
            ])
            .where(sql<boolean>`c.metadata->>'backchannel_logout_uri' IS NOT NULL`),
        )
        .returning('backchannel_logouts.id'),
    )
    .selectFrom('ended')
    .select(['ended.sid', 'ended.user_id', (eb) => eb.selectFrom('queued').select((q) => q.fn.countAll<string>().as('n')).as('queued')])
    .executeTakeFirst();
  return row && { sid: row.sid, userId: row.user_id, queued: Number(row.queued ?? 0) };
}
