// Security events: stored for the account page and the events API, and logged as one line with a stable
// `event` field so that they can be shipped and searched. Never a secret in either.
import type { Db } from '../storage/database.js';
import { insertSecurityEvent } from '../storage/security-events.js';
import type { ProviderContext } from './context.js';

export type SecurityEventType =
  | 'sign_in_allowed' | 'sign_in_challenged' | 'sign_in_blocked' | 'new_device' | 'device_revoked' | 'second_factor_failed'
  | 'totp_enrolled' | 'totp_removed';

export interface SecurityEvent {
  type: SecurityEventType;
  userId: string | null;
  deviceId?: string | null;
  clientId?: string | null;
  details?: Record<string, unknown>;
}

/** Stores the event (in `db` when it is the caller's transaction) and logs it. */
export async function recordSecurityEvent(ctx: Pick<ProviderContext, 'db' | 'clock' | 'log'>, event: SecurityEvent, db: Db = ctx.db): Promise<void> {
  const row = {
    type: event.type,
    userId: event.userId,
    deviceId: event.deviceId ?? null,
    clientId: event.clientId ?? null,
    createdAt: ctx.clock(),
    details: event.details ?? {},
  };
  await insertSecurityEvent(db, row);
  ctx.log.info({ event: event.type, userId: row.userId, deviceId: row.deviceId, clientId: row.clientId, ...row.details }, 'security event');
}
