// A user's devices as the account page shows them, and revoking one: its sessions end (the clients are told by
// back-channel logout) and every token issued through them is revoked.
import type { Db } from '../../storage/database.js';
import { listLiveDevices, revokeUserDevice } from '../../storage/devices.js';
import type { ProviderContext } from '../context.js';
import { sha256 } from '../secrets.js';
import { recordSecurityEvent } from './security-events.js';
import { emitSessionsEnded } from '../webhooks/emit.js';

export interface AccountDevice {
  id: string;
  /** "Firefox on Linux". */
  label: string;
  firstSeenAt: Date;
  lastSeenAt: Date;
  signInCount: number;
  /** A second factor was passed on it since it was first seen (or last revoked). */
  trusted: boolean;
  /** The device of the session looking at the page (or, failing that, of the browser's device cookie). */
  current: boolean;
}

/** The browser looking: its session's device, and its device cookie. */
export interface Viewer {
  deviceId: string | null;
  deviceCookie: string | undefined;
}

export async function listDevices(ctx: Pick<ProviderContext, 'db'>, userId: string, viewer: Viewer): Promise<AccountDevice[]> {
  const rows = await listLiveDevices(ctx.db, userId);
  const cookieHash = viewer.deviceCookie ? sha256(viewer.deviceCookie) : null;
  const currentId = viewer.deviceId ?? rows.find((r) => r.cookie_hash === cookieHash)?.id ?? null;
  return rows.map((r) => ({
    id: r.id,
    label: r.label,
    firstSeenAt: r.first_seen_at,
    lastSeenAt: r.last_seen_at,
    signInCount: r.sign_in_count,
    trusted: r.trusted,
    current: r.id === currentId,
  }));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface RevokedDevice {
  id: string;
  /** Sessions ended now; the current session among them means the user is signed out. */
  endedSids: string[];
  /** Back-channel logouts queued: the caller wakes the deliveries. */
  logoutsQueued: number;
}

/**
 * Revokes one of the user's own devices and records a `device_revoked` event, in one transaction. Undefined when
 * the id names no live device of this user: another user's device is treated exactly like an unknown one.
 */
export async function revokeDevice(ctx: DeviceRevocationContext, userId: string, deviceId: string): Promise<RevokedDevice | undefined> {
  if (!UUID.test(deviceId)) return undefined;
  return ctx.db.transaction().execute((trx: Db) => revokeDeviceIn(ctx, trx, userId, deviceId));
}

export type DeviceRevocationContext = Pick<ProviderContext, 'db' | 'clock' | 'log'>;

/** revokeDevice inside the caller's transaction `trx` (an admin revoking every device of a user at once). */
export async function revokeDeviceIn(
  ctx: DeviceRevocationContext,
  trx: Db,
  userId: string,
  deviceId: string,
): Promise<RevokedDevice | undefined> {
  if (!UUID.test(deviceId)) return undefined;
  const revoked = await revokeUserDevice(trx, { userId, deviceId, now: ctx.clock() });
  if (!revoked) return undefined;
  await recordSecurityEvent(
    ctx,
    {
      type: 'device_revoked',
      userId,
      deviceId,
      details: {
        device: revoked.label,
        sessionsEnded: revoked.sessionsEnded,
        refreshTokensRevoked: revoked.refreshTokensRevoked,
        accessTokensRevoked: revoked.accessTokensRevoked,
      },
    },
    trx,
  );
  await emitSessionsEnded(ctx, trx, userId, 'device_revoked', { sids: revoked.endedSids });
  return { id: revoked.id, endedSids: revoked.endedSids, logoutsQueued: revoked.logoutsQueued };
}
