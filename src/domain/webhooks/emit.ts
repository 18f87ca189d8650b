// Records an event for every subscription that wants it (issue 20): one INSERT … SELECT over the subscriptions, run
// in the transaction of the change it reports when there is one, so that a change that rolls back sends nothing and
// one that commits cannot lose its event. The job (src/jobs/webhook-job.ts) sends them later.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../storage/database.js';
import { insertWebhookDeliveries } from '../../storage/webhooks.js';
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
  return insertWebhookDeliveries(db, { eventId: randomUUID(), type, payload: data, now: ctx.clock() });
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
