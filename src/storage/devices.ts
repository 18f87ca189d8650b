// Repository for the account page's view of a user's devices, and for revoking one of them.
import { sql } from 'kysely';
import { queueLogoutsOfEnded } from './backchannel-logouts.js';
import type { Db } from './database.js';
import type { DeviceRow } from './schema.js';

/** The user's devices that are not revoked, most recently used first. */
export function listLiveDevices(db: Db, userId: string): Promise<DeviceRow[]> {
  return db
    .selectFrom('devices')
    .selectAll()
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .orderBy('last_seen_at', 'desc')
    .orderBy('id')
    .execute();
}

export interface RevokedDeviceRow {
  id: string;
  label: string;
  /** Live sessions of the device that were ended now. */
  sessionsEnded: number;
  /** The public ids (`sid`) of those sessions. */
  endedSids: string[];
  /** Back-channel logout tokens queued for the clients of those sessions. */
  logoutsQueued: number;
  refreshTokensRevoked: number;
  accessTokensRevoked: number;
}

/**
 * Revokes one of the user's devices in one statement, so that nothing can be left half done: the device is marked
 * revoked; its live sessions end, with a back-channel logout queued for each client they signed in to (as
 * src/storage/sessions.ts endSession does for one session); and everything issued through any of its sessions
 * (found by their `sid`) is revoked: refresh tokens, the access tokens issued with a code or a refresh token of
 * those sessions, and codes not yet redeemed (a later redemption is then refused as a replay). Returns nothing
 * when the device is not the user's, or is already revoked.
 */
export async function revokeUserDevice(db: Db, r: { userId: string; deviceId: string; now: Date }): Promise<RevokedDeviceRow | undefined> {
  const { rows } = await sql<{
    id: string;
    label: string;
    sessions_ended: string;
    ended_sids: string[] | null;
    logouts_queued: string;
    refresh_revoked: string;
    access_revoked: string;
  }>`
    WITH device AS (
      UPDATE devices SET revoked_at = ${r.now}
       WHERE id = ${r.deviceId}::uuid AND user_id = ${r.userId}::uuid AND revoked_at IS NULL
      RETURNING id, label
    ), device_sids AS (
      SELECT sid FROM sessions WHERE device_id IN (SELECT id FROM device)
    ), ended AS (
      UPDATE sessions SET revoked_at = ${r.now}
       WHERE device_id IN (SELECT id FROM device) AND revoked_at IS NULL AND expires_at > ${r.now}
      RETURNING sid, user_id
    ), queued AS (
      ${queueLogoutsOfEnded(r.now)}
    ), codes AS (
      UPDATE authorization_codes SET consumed_at = ${r.now}
       WHERE sid IN (SELECT sid FROM device_sids) AND consumed_at IS NULL
      RETURNING code_hash
    ), refresh AS (
      UPDATE refresh_tokens SET revoked_at = ${r.now}
       WHERE sid IN (SELECT sid FROM device_sids) AND revoked_at IS NULL
      RETURNING family_id
    ), access AS (
      UPDATE access_tokens SET revoked_at = ${r.now}
       WHERE revoked_at IS NULL AND expires_at > ${r.now}
         AND (code_hash IN (SELECT code_hash FROM authorization_codes WHERE sid IN (SELECT sid FROM device_sids))
              OR refresh_family_id IN (SELECT family_id FROM refresh_tokens WHERE sid IN (SELECT sid FROM device_sids)))
      RETURNING token_hash
    )
    SELECT device.id, device.label,
           (SELECT count(*) FROM ended) AS sessions_ended,
           (SELECT array_agg(sid) FROM ended) AS ended_sids,
           (SELECT count(*) FROM queued) AS logouts_queued,
           (SELECT count(*) FROM codes) AS codes_consumed,
           (SELECT count(*) FROM refresh) AS refresh_revoked,
           (SELECT count(*) FROM access) AS access_revoked
      FROM device`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  return {
    id: row.id,
    label: row.label,
    sessionsEnded: Number(row.sessions_ended),
    endedSids: row.ended_sids ?? [],
    logoutsQueued: Number(row.logouts_queued),
    refreshTokensRevoked: Number(row.refresh_revoked),
    accessTokensRevoked: Number(row.access_revoked),
  };
}
