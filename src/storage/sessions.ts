// Repository for browser sign-in sessions (the cookie carries the id; the table keeps its digest).
import { sql } from 'kysely';
import { queueLogoutsOfEnded } from './backchannel-logouts.js';
import { endConsoleSessionsOf, listLiveConsoleSessions } from './console-sessions.js';
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
  /** Its authentication context class (OIDC Core 2 `acr`), when known. */
  acr: string | null;
}

export interface ActiveSession {
  /** The public session id (the `sid` claim). */
  sid: string;
  userId: string;
  authTime: Date;
  deviceId: string | null;
  amr: string[];
  acr: string | null;
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
      acr: s.acr,
    })
    .execute();
}

/** The session with this digest if it is unexpired, unrevoked and its user is not disabled. */
export async function findActiveSession(db: Db, idHash: string, now: Date): Promise<ActiveSession | undefined> {
  const row = await db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.sid', 's.user_id', 's.auth_time', 's.device_id', 's.amr', 's.acr'])
    .where('s.id_hash', '=', idHash)
    .where('s.expires_at', '>', now)
    .where('s.revoked_at', 'is', null)
    .where('u.disabled_at', 'is', null)
    .executeTakeFirst();
  return row && { sid: row.sid, userId: row.user_id, authTime: row.auth_time, deviceId: row.device_id, amr: row.amr, acr: row.acr };
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
export function endSession(db: Db, idHash: string, now: Date): Promise<EndedSession | undefined> {
  return endOneSession(db, 'id_hash', idHash, now);
}

/**
 * endSession for the session a SAML LogoutRequest names (its SessionIndex is the sid), when the request came without
 * the browser's session cookie (SAML Profiles 2.0 §4.4.3.2).
 */
export function endSessionBySid(db: Db, sid: string, now: Date): Promise<EndedSession | undefined> {
  return endOneSession(db, 'sid', sid, now);
}

async function endOneSession(db: Db, column: 'id_hash' | 'sid', value: string, now: Date): Promise<EndedSession | undefined> {
  const row = await db
    .with('ended', (qb) =>
      qb
        .updateTable('sessions')
        .set({ revoked_at: now })
        .where(column, '=', value)
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
    .select([
      'ended.sid',
      'ended.user_id',
      (eb) =>
        eb
          .selectFrom('queued')
          .select((q) => q.fn.countAll<string>().as('n'))
          .as('queued'),
    ])
    .executeTakeFirst();
  return row && { sid: row.sid, userId: row.user_id, queued: Number(row.queued ?? 0) };
}

export interface EndedUserSessions {
  /** The public ids (`sid`) of the sessions ended now. */
  endedSids: string[];
  /** Logout tokens queued for delivery, one per client of each session with a backchannel_logout_uri. */
  queued: number;
  /** The console sessions ended with them (they have no sid a client knows, and no logout to queue). */
  consoleSessionsEnded: number;
}

/**
 * Ends every live session of the user in one statement, their console sessions with them, queuing the back-channel
 * logouts as endSession does for one session. Tokens already issued are left alone, as at a logout (OIDC Core 11:
 * offline access outlives it).
 */
export async function endUserSessions(db: Db, userId: string, now: Date): Promise<EndedUserSessions> {
  const { rows } = await sql<{ ended_sids: string[] | null; queued: string; console_ended: string }>`
    WITH ended AS (
      UPDATE sessions SET revoked_at = ${now}
       WHERE user_id = ${userId}::uuid AND revoked_at IS NULL AND expires_at > ${now}
      RETURNING sid, user_id
    ), queued AS (
      ${queueLogoutsOfEnded(now)}
    ), console_ended AS (
      ${endConsoleSessionsOf(sql`${userId}::uuid`)}
    )
    SELECT (SELECT array_agg(sid ORDER BY sid) FROM ended) AS ended_sids, (SELECT count(*) FROM queued) AS queued,
           (SELECT count(*) FROM console_ended) AS console_ended`.execute(db);
  const row = rows[0]!;
  return { endedSids: row.ended_sids ?? [], queued: Number(row.queued), consoleSessionsEnded: Number(row.console_ended) };
}

export interface LiveSessionRow {
  /** A browser session (signed in at the provider), or a console session (signed in to the web console). */
  kind: 'browser' | 'console';
  /** The public session id: the `sid` claim of a browser session; a console session's own public id. */
  sid: string;
  createdAt: Date;
  /** When the user signed in; for a console session, when it began (right after its sign-in). */
  authTime: Date;
  expiresAt: Date;
  /** When a console session was last used (it ends once idle); null for a browser session. */
  lastSeenAt: Date | null;
  amr: string[];
  deviceId: string | null;
  /** The label of the device it was signed in from ("Firefox on Linux"), when known. */
  deviceLabel: string | null;
  /** The clients it signed in to. */
  clientIds: string[];
}

/**
 * The user's live sessions, newest first: the browser sessions, and the console sessions still alive (before their
 * expiry and used after `consoleIdleSince`).
 */
export async function listLiveUserSessions(db: Db, userId: string, now: Date, consoleIdleSince: Date): Promise<LiveSessionRow[]> {
  const { rows } = await sql<{
    sid: string;
    created_at: Date;
    auth_time: Date;
    expires_at: Date;
    amr: string[];
    device_id: string | null;
    device_label: string | null;
    client_ids: string[];
  }>`
    SELECT s.sid, s.created_at, s.auth_time, s.expires_at, s.amr, s.device_id, d.label AS device_label,
           array_remove(array_agg(sc.client_id ORDER BY sc.client_id), NULL) AS client_ids
      FROM sessions s
      LEFT JOIN devices d ON d.id = s.device_id
      LEFT JOIN session_clients sc ON sc.sid = s.sid
     WHERE s.user_id = ${userId}::uuid AND s.revoked_at IS NULL AND s.expires_at > ${now}
     GROUP BY s.sid, s.created_at, s.auth_time, s.expires_at, s.amr, s.device_id, d.label
     ORDER BY s.created_at DESC, s.sid`.execute(db);
  const browser: LiveSessionRow[] = rows.map((r) => ({
    kind: 'browser',
    sid: r.sid,
    createdAt: r.created_at,
    authTime: r.auth_time,
    expiresAt: r.expires_at,
    lastSeenAt: null,
    amr: r.amr,
    deviceId: r.device_id,
    deviceLabel: r.device_label,
    clientIds: r.client_ids,
  }));
  const consoleSessions: LiveSessionRow[] = (await listLiveConsoleSessions(db, userId, now, consoleIdleSince)).map((c) => ({
    kind: 'console',
    sid: c.sid,
    createdAt: c.createdAt,
    authTime: c.createdAt,
    expiresAt: c.expiresAt,
    lastSeenAt: c.lastSeenAt,
    amr: [],
    deviceId: null,
    deviceLabel: null,
    clientIds: [],
  }));
  return [...browser, ...consoleSessions].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.sid < b.sid ? -1 : 1));
}
