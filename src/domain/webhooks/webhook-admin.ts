// Managing webhook subscriptions by hand (sso-admin webhooks; the management API calls the same functions): list,
// show, add (the secret generated and returned once, or given), update (the secret rotated on request), remove,
// pause by hand, resume a paused one, and list deliveries.
// Each change is refused with an AdminError on its merits and logged as an admin action; never a secret in either.
import { randomBytes } from 'node:crypto';
import type { WebhookSubscriptionRow } from '../../storage/schema.js';
import {
  countWebhookDeliveries,
  deleteWebhookSubscription,
  findWebhookSubscription,
  insertWebhookSubscription,
  listWebhookDeliveries,
  listWebhookSubscriptions,
  pauseWebhookSubscription,
  pendingWebhookFailures,
  resumeWebhookSubscription,
  updateWebhookSubscription,
} from '../../storage/webhooks.js';
import { inAdminTransaction, logAdminAction, NOT_RECORDED, type AdminContext } from '../admin/admin.js';
import { organizationInScope } from '../organizations/organization-scope.js';
import { AdminError } from '../admin-error.js';
import { sealSecret } from '../keys/sealed-secrets.js';
import { webhookEntryProblems, type WebhookEntry } from './webhook-entry.js';
import { webhookUrlProblem } from './webhook-url.js';

export interface WebhookSubscription {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  /** Only this organization's events (issue 40); null: every event. */
  organizationId: string | null;
  /** Set when it kept failing: nothing is sent until it is resumed; `pauseReason` says why. */
  pausedAt: Date | null;
  pauseReason: string | null;
  consecutiveFailures: number;
  lastSuccessAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookDetails extends WebhookSubscription {
  pending: number;
  delivered: number;
}

export interface WebhookDelivery {
  id: string;
  eventId: string;
  eventType: string;
  status: 'pending' | 'delivered';
  attempts: number;
  nextAttemptAt: Date | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

const rowToSubscription = (row: WebhookSubscriptionRow): WebhookSubscription => ({
  id: row.id,
  url: row.url,
  events: row.event_types,
  description: row.description,
  enabled: row.enabled,
  organizationId: row.organization_id,
  pausedAt: row.paused_at,
  pauseReason: row.pause_reason,
  consecutiveFailures: row.consecutive_failures,
  lastSuccessAt: row.last_success_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const notFound = (id: string) => new AdminError(`no webhook "${id}" (webhooks list shows them)`, 'not_found');

export async function listWebhooks(ctx: AdminContext): Promise<WebhookSubscription[]> {
  return (await listWebhookSubscriptions(ctx.db)).map(rowToSubscription);
}

export async function showWebhook(ctx: AdminContext, id: string): Promise<WebhookDetails> {
  const row = await findWebhookSubscription(ctx.db, id);
  if (!row) throw notFound(id);
  return { ...rowToSubscription(row), ...(await countWebhookDeliveries(ctx.db, id)) };
}

/** Why a subscription's deliveries are held up: the last failed attempt at its oldest pending delivery. */
export interface WebhookFailure {
  /** When the current run of failures began. */
  since: Date | null;
  attempts: number;
  /** The receiver's HTTP status, or null when there was no answer (a timeout, a refused connection). */
  status: number | null;
  error: string;
}

/**
 * The failure holding up each subscription that is failing now (or only the one of `id`), by subscription id; none
 * for the others.
 */
export async function currentWebhookFailures(ctx: AdminContext, id?: string): Promise<Map<string, WebhookFailure>> {
  const rows = await pendingWebhookFailures(ctx.db, id);
  return new Map(
    rows.map((d) => [
      d.subscription_id,
      { since: d.failing_since, attempts: d.attempts, status: d.last_status, error: d.last_error ?? '' },
    ]),
  );
}

/** A new random secret: 32 bytes, base64url (43 characters). */
export function generateWebhookSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Adds a subscription; its URL is checked against SSRF as a jwks_uri is (webhook-url.ts). Returns it with its
 * secret, the one time the secret is shown (generated when the entry has none).
 */
export async function addWebhook(ctx: AdminContext, entry: WebhookEntry): Promise<{ subscription: WebhookSubscription; secret: string }> {
  const problems = webhookEntryProblems(entry, { secretRequired: false, config: ctx.config });
  const urlProblem = problems.length === 0 ? webhookUrlProblem(ctx.config, entry.url) : undefined;
  if (urlProblem) problems.push(urlProblem);
  if (problems.length > 0) throw new AdminError(`webhook "${String(entry.id)}" was refused: ${problems.join('; ')}`);
  const organizationId = entry.organization === undefined ? null : (await organizationInScope(ctx, entry.organization)).id;
  const secret = entry.secret ?? generateWebhookSecret();
  const now = ctx.clock();
  const secretSealed = { ...(await sealSecret(ctx, 'webhook-secret', entry.id, Buffer.from(secret, 'utf8'))) };
  await inAdminTransaction(ctx, async (trx) => {
    const inserted = await insertWebhookSubscription(trx, {
      id: entry.id,
      url: entry.url,
      eventTypes: entry.events,
      secretSealed,
      description: entry.description ?? null,
      enabled: entry.enabled ?? true,
      organizationId,
      now,
    });
    if (!inserted) throw new AdminError(`webhook "${entry.id}" exists already (remove it first, or choose another id)`, 'conflict');
    // The host only: a receiver's URL may carry a capability in its path or query (as chat webhooks do).
    await logAdminAction(ctx, trx, {
      event: 'admin.webhook.created',
      target: { type: 'webhook', id: entry.id },
      changes: { host: new URL(entry.url).host, events: entry.events, secret: NOT_RECORDED, organization_id: organizationId },
      log: { webhookId: entry.id, host: new URL(entry.url).host, events: entry.events },
    });
  });
  return { subscription: rowToSubscription((await findWebhookSubscription(ctx.db, entry.id))!), secret };
}

/** Removes the subscription and every delivery still owed to it. */
export async function removeWebhook(ctx: AdminContext, id: string): Promise<WebhookDetails> {
  const details = await showWebhook(ctx, id);
  await inAdminTransaction(ctx, async (trx) => {
    if (!(await deleteWebhookSubscription(trx, id))) throw notFound(id);
    await logAdminAction(ctx, trx, {
      event: 'admin.webhook.removed',
      target: { type: 'webhook', id },
      log: { webhookId: id, pendingDropped: details.pending },
    });
  });
  return details;
}

/** Unpauses the subscription: its oldest pending delivery is sent at the next round, then the others in order. */
export async function resumeWebhook(ctx: AdminContext, id: string): Promise<WebhookDetails> {
  const before = await showWebhook(ctx, id);
  await inAdminTransaction(ctx, async (trx) => {
    if (!(await resumeWebhookSubscription(trx, id, ctx.clock()))) throw notFound(id);
    await logAdminAction(ctx, trx, {
      event: 'admin.webhook.resumed',
      target: { type: 'webhook', id },
      changes: { paused: false },
      log: { webhookId: id, wasPaused: before.pausedAt !== null, pending: before.pending },
    });
  });
  return showWebhook(ctx, id);
}

/** What an update may change; a field left out stays as it is. */
export interface WebhookChanges {
  url?: string;
  /** Event types (event-types.ts), or ["*"] for all. */
  events?: string[];
  /** null (or "") removes it. */
  description?: string | null;
  enabled?: boolean;
  /** A new secret is generated, sealed as at creation, and returned this once; the old one signs nothing more. */
  rotateSecret?: boolean;
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * Changes a subscription in place, keeping its pending deliveries (a removal would drop them). A new URL is checked
 * exactly as at creation (webhookEntryProblems, then webhookUrlProblem against SSRF). A pending delivery goes to the
 * subscription's URL, signed with its secret, as they are when the delivery is claimed: so the new ones from the next
 * round on (one already claimed and being sent finishes with the old ones). `changed` names the fields that differ,
 * "secret" when rotated; with none, nothing is written nor audited.
 */
export async function updateWebhook(
  ctx: AdminContext,
  id: string,
  changes: WebhookChanges,
): Promise<{ subscription: WebhookDetails; changed: string[]; secret?: string }> {
  const given = (['url', 'events', 'description', 'enabled', 'rotateSecret'] as const).filter((k) => changes[k] !== undefined);
  if (given.length === 0)
    throw new AdminError(`nothing to change of webhook "${id}": give url, events, description, enabled or a secret rotation`);
  const current = await showWebhook(ctx, id);
  const description = changes.description === '' ? null : changes.description;
  const kept = description === undefined ? current.description : description;
  // The subscription as it would be, checked as a new one is (an id, a URL, events, a description, enabled).
  const merged: WebhookEntry = {
    id,
    url: changes.url ?? current.url,
    events: changes.events ?? current.events,
    ...(kept === null ? {} : { description: kept }),
    ...(changes.enabled === undefined ? {} : { enabled: changes.enabled }),
  };
  const problems = webhookEntryProblems(merged, { secretRequired: false, config: ctx.config });
  const urlProblem = problems.length === 0 && changes.url !== undefined ? webhookUrlProblem(ctx.config, changes.url) : undefined;
  if (urlProblem) problems.push(urlProblem);
  if (problems.length > 0) throw new AdminError(`webhook "${id}" was not changed: ${problems.join('; ')}`);

  const set: { url?: string; eventTypes?: string[]; description?: string | null; enabled?: boolean } = {};
  if (changes.url !== undefined && changes.url !== current.url) set.url = changes.url;
  if (changes.events !== undefined && !sameList(changes.events, current.events)) set.eventTypes = changes.events;
  if (description !== undefined && description !== current.description) set.description = description;
  if (changes.enabled !== undefined && changes.enabled !== current.enabled) set.enabled = changes.enabled;
  const secret = changes.rotateSecret === true ? generateWebhookSecret() : undefined;
  const changed = [
    ...(set.url === undefined ? [] : ['url']),
    ...(set.eventTypes === undefined ? [] : ['events']),
    ...(set.description === undefined ? [] : ['description']),
    ...(set.enabled === undefined ? [] : ['enabled']),
    ...(secret === undefined ? [] : ['secret']),
  ];
  if (changed.length === 0) return { subscription: current, changed };

  const secretSealed = secret === undefined ? undefined : { ...(await sealSecret(ctx, 'webhook-secret', id, Buffer.from(secret, 'utf8'))) };
  await inAdminTransaction(ctx, async (trx) => {
    const updated = await updateWebhookSubscription(trx, id, { ...set, ...(secretSealed ? { secretSealed } : {}), now: ctx.clock() });
    if (!updated) throw notFound(id);
    // As at creation, the host only: the rest of a receiver's URL may be a capability.
    await logAdminAction(ctx, trx, {
      event: 'admin.webhook.updated',
      target: { type: 'webhook', id },
      changes: {
        ...(set.url === undefined ? {} : { host: new URL(set.url).host }),
        ...(set.eventTypes === undefined ? {} : { events: set.eventTypes }),
        ...(set.description === undefined ? {} : { description: set.description }),
        ...(set.enabled === undefined ? {} : { enabled: set.enabled }),
        ...(secret === undefined ? {} : { secret: NOT_RECORDED }),
      },
      log: { webhookId: id, fields: changed },
    });
  });
  return { subscription: await showWebhook(ctx, id), changed, ...(secret === undefined ? {} : { secret }) };
}

/** The longest reason a pause by hand may give (it is shown wherever the subscription's state is). */
export const PAUSE_REASON_MAX_LENGTH = 200;

/**
 * Pauses the subscription by hand with the admin's reason: nothing is sent until it is resumed, while new events are
 * still queued for it (as for a pause after failures). Refused when it is paused already (its reason is kept).
 */
export async function pauseWebhook(ctx: AdminContext, id: string, reason: string): Promise<WebhookDetails> {
  const why = typeof reason === 'string' ? reason.trim() : '';
  if (why === '' || why.length > PAUSE_REASON_MAX_LENGTH)
    throw new AdminError(`the reason of a pause must be 1 to ${PAUSE_REASON_MAX_LENGTH} characters`);
  const before = await showWebhook(ctx, id);
  if (before.pausedAt)
    throw new AdminError(`webhook "${id}" is paused already (${before.pauseReason ?? 'no reason recorded'})`, 'conflict');
  await inAdminTransaction(ctx, async (trx) => {
    if (!(await pauseWebhookSubscription(trx, id, why, ctx.clock()))) {
      if (await findWebhookSubscription(trx, id)) throw new AdminError(`webhook "${id}" is paused already`, 'conflict');
      throw notFound(id);
    }
    await logAdminAction(ctx, trx, {
      event: 'admin.webhook.paused',
      target: { type: 'webhook', id },
      changes: { paused: true, reason: why },
      log: { webhookId: id, pending: before.pending },
    });
  });
  return showWebhook(ctx, id);
}

/** The subscription's deliveries, newest first (at most `limit`, 1 to 500); `status` narrows them. */
export async function listWebhookDeliveriesOf(
  ctx: AdminContext,
  id: string,
  options: { limit?: number; status?: 'pending' | 'delivered' } = {},
): Promise<WebhookDelivery[]> {
  await showWebhook(ctx, id);
  const limit = options.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new AdminError('the limit must be a whole number from 1 to 500');
  const rows = await listWebhookDeliveries(ctx.db, id, { limit, ...(options.status ? { status: options.status } : {}) });
  return rows.map((r) => ({
    id: r.id,
    eventId: r.event_id,
    eventType: r.event_type,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.status === 'pending' ? r.next_attempt_at : null,
    lastStatus: r.last_status,
    lastError: r.last_error,
    createdAt: r.created_at,
    deliveredAt: r.delivered_at,
  }));
}
