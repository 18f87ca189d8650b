// Webhook deliveries (issue 20): claims the first due delivery of each subscription (in commit order) and POSTs it as
// JSON through the guarded fetch, signed as the notifier webhook signs (webhookSignature: HMAC-SHA256 over
// "<timestamp>.<body>"). A 2xx answer delivers it; anything else (another status, a redirect, which is never
// followed, a timeout, a refused address) leaves it pending, tried again after a growing wait, and the subscription
// is paused once it keeps failing (delivery-policy.ts). The same id goes with every attempt: at least once.
// src/jobs/webhook-job.ts sends each subscription's next delivery as soon as the one before is delivered.
import type { ProviderContext } from '../context.js';
import { openSecret } from '../keys/sealed-secrets.js';
import { webhookSignature } from '../notifications/webhook-notifier.js';
import { guardedFetch, OutboundError, type OutboundPool } from '../../outbound/guarded-fetch.js';
import {
  claimDueWebhookDeliveries,
  markWebhookFailed,
  pauseWebhookSubscription,
  type ClaimedWebhookDelivery,
} from '../../storage/webhooks.js';
import type { Db } from '../../storage/database.js';
import { writeDelivered, type DeliveredWrite } from './delivered-writes.js';
import { DELIVERY_TIMEOUT_MS, leaseFrom, retryDelayMs, shouldPause } from './delivery-policy.js';
import { EVENT_DATA, type ClaimedDelivery } from './event-data.js';
import { webhookPolicy } from './webhook-url.js';

/** A receiver's answer is not read; one that sends more than this is cut off. */
const RESPONSE_MAX_BYTES = 64 * 1024;
const CLAIM_LIMIT = 50;

export type WebhookContext = Pick<ProviderContext, 'db' | 'clock' | 'config' | 'outbound' | 'log'>;

export interface DeliveryOptions {
  /** How long one POST may take; DELIVERY_TIMEOUT_MS unless told (tests use less). */
  timeoutMs?: number;
  /** The jitter's source, in [0, 1): Math.random unless told. */
  random?: () => number;
  /** Once delivered, claim the subscription's next delivery in the same statement (the job's turn goes on with it). */
  claimNext?: boolean;
  /** Keep-alive connections to the receivers (the job's); without, each attempt opens a connection of its own. */
  pool?: OutboundPool;
  /** Where a delivered one is recorded (the job's batches); without, it is written at once. */
  writeDelivered?: DeliveredWrite;
}

export type WebhookOutcome =
  | { id: string; subscriptionId: string; outcome: 'delivered'; status: number; next?: ClaimedDelivery | undefined }
  | { id: string; subscriptionId: string; outcome: 'retry'; reason: string; nextAttemptAt: Date; paused: boolean };

/** Why an attempt failed, in words safe to store and show: the host and status, never a header or the body. */
class AttemptFailed extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

/** The body of a delivery: the same bytes on every attempt (only the timestamp header and its signature change). */
export function deliveryBody(d: Pick<ClaimedWebhookDelivery, 'id' | 'eventId' | 'eventType' | 'createdAt'>, data: object): string {
  return JSON.stringify({ id: d.id, event_id: d.eventId, type: d.eventType, created_at: d.createdAt.toISOString(), data });
}

async function attempt(ctx: WebhookContext, d: ClaimedDelivery, timeoutMs: number, pool: OutboundPool | undefined): Promise<number> {
  const policy = webhookPolicy(ctx.config, d.url);
  if (typeof policy === 'string') throw new AttemptFailed(policy);
  // A payload this instance cannot read (a version a newer one wrote, during a rolling upgrade) is not sent: the
  // attempt fails, and the retry may go to an instance that reads it; if none does, the subscription is paused with
  // this reason, and nothing after it is sent out of order.
  if (!d.payload.ok) throw new AttemptFailed(`the stored payload is unreadable here (${d.payload.reason})`);
  if (typeof d.secretSealed !== 'object' || d.secretSealed === null) throw new AttemptFailed('the stored secret is unreadable');
  let secret: string;
  try {
    secret = (await openSecret(ctx, 'webhook-secret', d.subscriptionId, d.secretSealed as Record<string, unknown>)).toString('utf8');
  } catch (err) {
    throw new AttemptFailed((err as Error).message);
  }
  const body = deliveryBody(d, d.payload.value);
  const timestamp = String(Math.floor(ctx.clock().getTime() / 1000));
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'sso-provider-webhooks',
    'x-sso-delivery-id': d.id,
    'x-sso-event': d.eventType,
    'x-sso-timestamp': timestamp,
    'x-sso-signature': webhookSignature(secret, timestamp, body),
  };
  let status: number;
  try {
    ({ status } = await guardedFetch(
      { url: d.url, method: 'POST', headers, body, timeoutMs, maxResponseBytes: RESPONSE_MAX_BYTES },
      policy,
      pool ? { ...ctx.outbound, pool } : ctx.outbound,
    ));
  } catch (err) {
    if (err instanceof OutboundError) throw new AttemptFailed(err.message);
    throw err;
  }
  if (status >= 300 && status < 400) throw new AttemptFailed(`the receiver answered ${status}: redirects are not followed`, status);
  if (status < 200 || status > 299) throw new AttemptFailed(`the receiver answered ${status}`, status);
  return status;
}

/** Sends a claimed delivery once and records what happened (delivered, or when it is tried again). */
export async function deliverWebhook(ctx: WebhookContext, d: ClaimedDelivery, options: DeliveryOptions = {}): Promise<WebhookOutcome> {
  const base = { id: d.id, subscriptionId: d.subscriptionId };
  try {
    const status = await attempt(ctx, d, options.timeoutMs ?? DELIVERY_TIMEOUT_MS, options.pool);
    const delivered = { ...base, status, position: d.position, claimNext: options.claimNext ?? false };
    const next = options.writeDelivered ? await options.writeDelivered(delivered) : (await writeDelivered(ctx, [delivered]))[0];
    return { ...base, outcome: 'delivered', status, next };
  } catch (err) {
    const failed = err instanceof AttemptFailed ? err : new AttemptFailed('the delivery failed');
    if (!(err instanceof AttemptFailed))
      ctx.log.warn({ err: (err as Error).message, delivery: d.id }, 'webhook delivery failed unexpectedly');
    const now = ctx.clock();
    const nextAttemptAt = new Date(now.getTime() + retryDelayMs(d.attempts, options.random ?? Math.random));
    const paused = await ctx.db.transaction().execute(async (trx: Db) => {
      const streak = await markWebhookFailed(trx, { ...base, status: failed.status, error: failed.message, nextAttemptAt, now });
      if (!streak || !shouldPause(streak.failures, streak.failingSince, now)) return false;
      const reason = `${streak.failures} deliveries failed in a row since ${streak.failingSince.toISOString()}; the last: ${failed.message}`;
      return pauseWebhookSubscription(trx, d.subscriptionId, reason, now);
    });
    const fields = {
      event: 'webhook_failed',
      subscription: d.subscriptionId,
      delivery: d.id,
      attempts: d.attempts,
      reason: failed.message,
    };
    ctx.log.warn(fields, 'webhook delivery failed; will retry');
    if (paused)
      ctx.log.warn({ event: 'webhook_paused', subscription: d.subscriptionId, reason: failed.message }, 'webhook subscription paused');
    return { ...base, outcome: 'retry', reason: failed.message, nextAttemptAt, paused };
  }
}

/** Claims, under a lease, up to `limit` due heads of the subscriptions' queues (one per subscription), leaving out `excluding`. */
export function claimWebhookDeliveries(
  ctx: Pick<WebhookContext, 'db' | 'clock'>,
  claim: { limit: number; excluding?: readonly string[] },
): Promise<ClaimedDelivery[]> {
  const now = ctx.clock();
  return claimDueWebhookDeliveries(ctx.db, EVENT_DATA, { now, leaseUntil: leaseFrom(now), ...claim });
}

/**
 * One round: claims the due head of each subscription's queue and sends them side by side (one per subscription, so
 * each keeps its order). Returns what happened to each; a test calls it with its own clock.
 */
export async function deliverDueWebhooks(ctx: WebhookContext, options: DeliveryOptions = {}): Promise<WebhookOutcome[]> {
  const claimed = await claimWebhookDeliveries(ctx, { limit: CLAIM_LIMIT });
  return Promise.all(claimed.map((d) => deliverWebhook(ctx, d, options)));
}
