// Security events: stored for the account page and the events API, and logged as one line with a stable
// `event` field so that they can be shipped and searched. Never a secret in either. The sign-in outcomes among
// them feed sso_sign_ins_total right where their line is written, so that the metric and the log agree.
import type { Metrics, SignInOutcome } from '../../metrics.js';
import type { Db } from '../../storage/database.js';
import { insertSecurityEvent } from '../../storage/security-events.js';
import type { ProviderContext } from '../context.js';
import { webhookEventOf, webhookEventOfSecurityEvent } from '../webhooks/emit.js';

export type SecurityEventType =
  | 'sign_in_allowed'
  | 'sign_in_challenged'
  | 'sign_in_blocked'
  | 'new_device'
  | 'device_revoked'
  | 'second_factor_failed'
  | 'totp_enrolled'
  | 'totp_removed'
  | 'passkey_added'
  | 'passkey_removed'
  | 'connection_linked'
  | 'connection_unlinked';

/**
 * Refused sign-in attempts: logged and counted, not stored (sign_in_attempts keeps them for the risk evaluation;
 * the account page shows what happened to the account, not every mistyped password).
 */
export type LoggedOnlyEventType = 'sign_in_failed' | 'sign_in_throttled';

const OUTCOME_OF: Partial<Record<SecurityEventType | LoggedOnlyEventType, SignInOutcome>> = {
  sign_in_allowed: 'signed_in',
  sign_in_challenged: 'challenged',
  sign_in_blocked: 'blocked',
  sign_in_failed: 'wrong_credentials',
  sign_in_throttled: 'throttled',
};

/** What recording an event needs; the admin command line has no metrics (it records no sign-in outcome). */
export type SecurityEventContext = Pick<ProviderContext, 'db' | 'clock' | 'log'> & { readonly metrics?: Pick<Metrics, 'signIns'> };

export interface SecurityEvent {
  type: SecurityEventType;
  userId: string | null;
  deviceId?: string | null;
  clientId?: string | null;
  details?: Record<string, unknown>;
}

/**
 * Stores the event (in `db` when it is the caller's transaction) and logs it; a sign-in outcome or a new device is
 * queued for the webhook subscriptions that want it too, in the same transaction (src/domain/webhooks/emit.ts).
 */
export async function recordSecurityEvent(ctx: SecurityEventContext, event: SecurityEvent, db: Db = ctx.db): Promise<void> {
  const row = {
    type: event.type,
    userId: event.userId,
    deviceId: event.deviceId ?? null,
    clientId: event.clientId ?? null,
    createdAt: ctx.clock(),
    details: event.details ?? {},
  };
  const webhookEvent = webhookEventOfSecurityEvent(event.type);
  await insertSecurityEvent(
    db,
    row,
    webhookEvent &&
      webhookEventOf(
        webhookEvent,
        { user_id: row.userId, device_id: row.deviceId, client_id: row.clientId, ...row.details },
        row.createdAt,
      ),
  );
  logSecurityEvent(ctx, event.type, { userId: row.userId, deviceId: row.deviceId, clientId: row.clientId, ...row.details });
}

/** The log line of an event (stored or not), and its count when it is a sign-in outcome. */
export function logSecurityEvent(
  ctx: Pick<SecurityEventContext, 'log' | 'metrics'>,
  type: SecurityEventType | LoggedOnlyEventType,
  fields: Record<string, unknown> = {},
): void {
  ctx.log.info({ event: type, ...fields }, 'security event');
  const outcome = OUTCOME_OF[type];
  if (outcome) ctx.metrics?.signIns.inc({ outcome });
}
