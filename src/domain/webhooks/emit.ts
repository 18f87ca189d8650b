// Records an event for every subscription that wants it (issue 20): one INSERT … SELECT over the subscriptions, run
// in the transaction of the change it reports when there is one, so that a change that rolls back sends nothing and
// one that commits cannot lose its event. The job (src/jobs/webhook-job.ts) sends them later.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../storage/database.js';
import { findUserById } from '../../storage/users.js';
import { insertWebhookDeliveries, type NewWebhookEvent } from '../../storage/webhooks.js';
import type { Clock } from '../clock.js';
import type { WebhookEventType } from './event-types.js';

/**
 * Queues `type` with `data` (ids and non-secret fields: never a password, a code, a token or a secret) in `db`, the
 * caller's transaction when it has one. Returns how many deliveries were queued.
 */
export async function emitWebhookEvent(
  ctx: { readonly clock: Clock },
  db: Db,
  type: WebhookEventType,
  data: Record<string, unknown>,
): Promise<number> {
  return insertWebhookDeliveries(db, webhookEventOf(type, data, ctx.clock()));
}

/**
 * The event as stored for its deliveries, with a new id: for a statement that queues it beside its own write. An
 * event whose data names an `organization_id` is that organization's (issue 40): a subscription limited to an
 * organization gets only its events.
 */
export function webhookEventOf(type: WebhookEventType, data: Record<string, unknown>, now: Date): NewWebhookEvent {
  const organizationId = typeof data.organization_id === 'string' ? data.organization_id : null;
  return { eventId: randomUUID(), type, payload: data, organizationId, now };
}

/** The stored security events that are webhook events too (src/domain/risk/security-events.ts records them). */
const OF_SECURITY_EVENT: Readonly<Record<string, WebhookEventType>> = {
  sign_in_allowed: 'sign_in.succeeded',
  sign_in_challenged: 'risk.challenged',
  sign_in_blocked: 'risk.blocked',
  new_device: 'device.added',
};

/** The webhook event a security event is, if any. */
export function webhookEventOfSecurityEvent(type: string): WebhookEventType | undefined {
  return OF_SECURITY_EVENT[type];
}

/** What a user.* event says of the user: ids and non-secret fields, never the password or its hash. */
export interface UserEventSubject {
  id: string;
  username: string;
  email: string | null;
}

/** user.created, user.updated (with the fields that changed, by name only) or user.deleted, in `db`. */
export function emitUserEvent(
  ctx: { readonly clock: Clock },
  db: Db,
  type: 'user.created' | 'user.updated' | 'user.deleted',
  user: UserEventSubject,
  details: { changes?: readonly string[]; via?: string } = {},
): Promise<number> {
  return emitWebhookEvent(ctx, db, type, { user_id: user.id, username: user.username, email: user.email, ...details });
}

/** emitUserEvent for a user known by id only (read in `db`, so as the change left them); nothing when gone. */
export async function emitUserEventById(
  ctx: { readonly clock: Clock },
  db: Db,
  type: 'user.created' | 'user.updated',
  userId: string,
  details: { changes?: readonly string[]; via?: string } = {},
): Promise<void> {
  const user = await findUserById(db, userId);
  if (user) await emitUserEvent(ctx, db, type, user, details);
}

/** Why sessions ended, as session.ended says it. */
export type SessionEndReason = 'logout' | 'replaced' | 'revoked' | 'device_revoked' | 'user_disabled' | 'user_deleted';

/** session.ended for the sessions of one user that one action ended (nothing when it ended none), in `db`. */
export async function emitSessionsEnded(
  ctx: { readonly clock: Clock },
  db: Db,
  userId: string,
  reason: SessionEndReason,
  ended: { sids: readonly string[] } | { count: number },
): Promise<void> {
  const count = 'sids' in ended ? ended.sids.length : ended.count;
  if (count === 0) return;
  await emitWebhookEvent(ctx, db, 'session.ended', {
    user_id: userId,
    reason,
    sessions_ended: count,
    ...('sids' in ended ? { sids: ended.sids } : {}),
  });
}

/** What happened to a client, as client.changed says it. */
export type ClientChange = 'created' | 'updated' | 'secret_rotated' | 'deleted';

/** client.changed: the client id, what happened and (for an update) the names of the fields that changed; never a secret. */
export function emitClientChanged(
  ctx: { readonly clock: Clock },
  db: Db,
  clientId: string,
  change: ClientChange,
  details: { fields?: readonly string[]; via: 'admin' | 'registration' },
): Promise<number> {
  return emitWebhookEvent(ctx, db, 'client.changed', { client_id: clientId, change, ...details });
}
