// /webhooks: the subscriptions told of users, sign-ins, risk verdicts, devices, sessions and clients as they change
// (src/domain/webhooks/webhook-admin.ts, as `sso-admin webhooks`): list, read, create with a generated secret shown
// in that answer only (a replay under the same Idempotency-Key never shows it), update under If-Match (the secret
// rotated on request and shown in that answer only), delete, pause by hand, resume a paused one, and its deliveries
// with their status. The URL is checked against SSRF as a jwks_uri is (webhook-url.ts), at creation and on update.
import type { FastifyReply } from 'fastify';
import { deliveryJson, webhookJson } from '../../domain/admin/representations.js';
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from '../../domain/webhooks/event-types.js';
import {
  addWebhook,
  listWebhookDeliveriesOf,
  listWebhooks,
  pauseWebhook,
  PAUSE_REASON_MAX_LENGTH,
  removeWebhook,
  resumeWebhook,
  showWebhook,
  updateWebhook,
  type WebhookChanges,
  type WebhookDelivery,
  type WebhookDetails,
} from '../../domain/webhooks/webhook-admin.js';
import { changeIfMatch, etagOf, IF_MATCH_HEADERS, type IfMatchGuard } from './etag.js';
import { editableWebhook } from '../etag.js';
import { IDEMPOTENCY_HEADERS, idempotentCreate } from './idempotency.js';
import { decodeCursor, DEFAULT_LIMIT, encodeCursor, PAGE_QUERY_PROPERTIES, pageOf, pageSchema, type PageQuery } from './pagination.js';
import type { AdminApi, JsonSchema } from './route.js';
import { DATE_TIME, NULLABLE_DATE_TIME } from './schemas.js';

const ID = { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,62}$', description: 'the subscription id' } as const;
const PARAMS = { type: 'object', required: ['id'], properties: { id: ID } } as const;
type WebhookParams = { id: string };

const WEBHOOK_PROPERTIES = {
  id: { type: 'string' },
  url: { type: 'string' },
  events: { type: 'array', items: { type: 'string' } },
  description: { type: ['string', 'null'] },
  enabled: { type: 'boolean' },
  organization_id: { type: ['string', 'null'], description: "only this organization's events; null: every event" },
  paused_at: { ...NULLABLE_DATE_TIME, description: 'set when it kept failing: nothing is sent until it is resumed' },
  pause_reason: { type: ['string', 'null'] },
  consecutive_failures: { type: 'integer' },
  last_success_at: NULLABLE_DATE_TIME,
  created_at: DATE_TIME,
  updated_at: DATE_TIME,
} as const;
const WEBHOOK: JsonSchema = { type: 'object', required: Object.keys(WEBHOOK_PROPERTIES), properties: WEBHOOK_PROPERTIES };
const DETAILS: JsonSchema = {
  type: 'object',
  required: [...Object.keys(WEBHOOK_PROPERTIES), 'pending', 'delivered'],
  properties: { ...WEBHOOK_PROPERTIES, pending: { type: 'integer' }, delivered: { type: 'integer' } },
};
const WITH_SECRET: JsonSchema = {
  type: 'object',
  required: Object.keys(WEBHOOK_PROPERTIES),
  properties: {
    ...WEBHOOK_PROPERTIES,
    secret: { type: 'string', description: 'the signing secret, shown this once' },
    secret_replayed_without_secret: { type: 'boolean', description: 'a replayed create: the secret is not shown twice' },
  },
};
const DELIVERY: JsonSchema = {
  type: 'object',
  required: ['id', 'event_id', 'type', 'status', 'attempts', 'next_attempt_at', 'last_status', 'last_error', 'created_at', 'delivered_at'],
  properties: {
    id: { type: 'string', description: 'stable across retries: the receiver deduplicates by it' },
    event_id: { type: 'string' },
    type: { type: 'string' },
    status: { enum: ['pending', 'delivered'] },
    attempts: { type: 'integer' },
    next_attempt_at: NULLABLE_DATE_TIME,
    last_status: { type: ['integer', 'null'] },
    last_error: { type: ['string', 'null'] },
    created_at: DATE_TIME,
    delivered_at: NULLABLE_DATE_TIME,
  },
};

/** The newest deliveries a list reaches back to (the domain's bound). */
const DELIVERIES_WINDOW = 500;

const detailsJson = (w: WebhookDetails) => ({ ...webhookJson(w), pending: w.pending, delivered: w.delivered });
/** What an ETag covers: the subscription as set, not its counters and delivery times, which move on their own. */
/** The event types of a subscription, as a create or an update names them. */
const EVENTS = {
  type: 'array',
  minItems: 1,
  items: { type: 'string' },
  description: `event types (${WEBHOOK_EVENT_TYPES.join(', ')}), or "${ALL_EVENTS}" for all`,
} as const;

/** A subscription's If-Match guard: read, locked and tagged inside the change's transaction (etag.ts changeIfMatch). */
const webhookGuard = (id: string): IfMatchGuard<WebhookDetails> => ({
  read: (c) => showWebhook(c, id),
  lock: (w) => ({ type: 'webhook', id: w.id }),
  tagged: editableWebhook,
});
const sendDetails = (reply: FastifyReply, w: WebhookDetails) => reply.header('etag', etagOf(editableWebhook(w))).send(detailsJson(w));

/** Newest first: a delivery's position is its creation time (to the millisecond), then its id; both fixed once it exists. */
const deliveryKey = (d: WebhookDelivery) => `${d.createdAt.toISOString()} ${d.id}`;

export function webhookRoutes(api: AdminApi): void {
  api.route({
    method: 'GET',
    url: '/webhooks',
    access: 'read',
    operationId: 'listWebhooks',
    summary: 'List the webhook subscriptions, by id; paused filters those paused after failing.',
    tag: 'webhooks',
    querystring: { type: 'object', properties: { ...PAGE_QUERY_PROPERTIES, paused: { type: 'boolean' } } },
    response: { 200: pageSchema(WEBHOOK) },
    async handler(request, _reply, { ctx }) {
      const query = request.query as PageQuery & { paused?: boolean };
      const all = (await listWebhooks(ctx)).filter((w) => query.paused === undefined || (w.pausedAt !== null) === query.paused);
      const page = pageOf('webhooks', all, (w) => w.id, query);
      return { items: page.items.map(webhookJson), next_cursor: page.next_cursor };
    },
  });

  api.route({
    method: 'GET',
    url: '/webhooks/:id',
    access: 'read',
    operationId: 'getWebhook',
    summary: 'One subscription, with its pending and delivered counts and its ETag; never its secret.',
    tag: 'webhooks',
    params: PARAMS,
    response: { 200: DETAILS },
    async handler(request, reply, { ctx }) {
      return sendDetails(reply, await showWebhook(ctx, (request.params as WebhookParams).id));
    },
  });

  api.route({
    method: 'POST',
    url: '/webhooks',
    access: 'write',
    operationId: 'createWebhook',
    summary: 'Add a subscription; its signing secret is generated and shown in this answer only.',
    tag: 'webhooks',
    headers: IDEMPOTENCY_HEADERS,
    body: {
      type: 'object',
      required: ['id', 'url', 'events'],
      properties: {
        id: ID,
        url: { type: 'string', minLength: 1, maxLength: 2048, description: 'https (http only on loopback)' },
        events: EVENTS,
        description: { type: 'string', maxLength: 200 },
        enabled: { type: 'boolean', description: 'false keeps it but queues no event for it' },
        organization: { type: 'string', minLength: 1, maxLength: 100, description: "only this organization's events (its id or slug)" },
      },
      // The secret is generated here, never chosen by the caller (the command line may read one from stdin); other
      // unknown fields are refused by the domain, which names them.
      not: { required: ['secret'] },
      additionalProperties: true,
    },
    response: { 201: WITH_SECRET },
    async handler(request, reply, { ctx, principal }) {
      return idempotentCreate(ctx, principal, request, reply, async () => {
        const body = request.body as {
          id: string;
          url: string;
          events: string[];
          description?: string;
          enabled?: boolean;
          organization?: string;
        };
        const { subscription, secret } = await addWebhook(ctx, body);
        reply.header('location', `${api.prefix}/webhooks/${subscription.id}`);
        return { status: 201, body: { ...webhookJson(subscription), secret }, secretFields: ['secret'] };
      });
    },
  });

  api.route({
    method: 'DELETE',
    url: '/webhooks/:id',
    access: 'write',
    operationId: 'deleteWebhook',
    summary: 'Remove a subscription and every delivery still owed to it; If-Match with its ETag is required.',
    tag: 'webhooks',
    params: PARAMS,
    headers: IF_MATCH_HEADERS,
    response: {
      200: {
        type: 'object',
        required: ['id', 'removed', 'pending_dropped'],
        properties: { id: { type: 'string' }, removed: { const: true }, pending_dropped: { type: 'integer' } },
      },
    },
    async handler(request, _reply, { ctx }) {
      const { id } = request.params as WebhookParams;
      const removed = await changeIfMatch(request, ctx, webhookGuard(id), (tctx) => removeWebhook(tctx, id));
      return { id, removed: true, pending_dropped: removed.pending };
    },
  });

  api.route({
    method: 'POST',
    url: '/webhooks/:id/resume',
    access: 'write',
    operationId: 'resumeWebhook',
    summary: 'Resume a paused subscription: its oldest pending delivery goes first, at the next round.',
    tag: 'webhooks',
    params: PARAMS,
    response: { 200: DETAILS },
    async handler(request, reply, { ctx }) {
      return sendDetails(reply, await resumeWebhook(ctx, (request.params as WebhookParams).id));
    },
  });

  api.route({
    method: 'PATCH',
    url: '/webhooks/:id',
    access: 'write',
    operationId: 'updateWebhook',
    summary:
      'Change a subscription in place, keeping its pending deliveries (sent to its URL as it is then); rotate_secret ' +
      'generates a new secret, shown in this answer only. If-Match with its ETag is required.',
    tag: 'webhooks',
    params: PARAMS,
    headers: IF_MATCH_HEADERS,
    body: {
      type: 'object',
      minProperties: 1,
      properties: {
        url: { type: 'string', minLength: 1, maxLength: 2048, description: 'https (http only on loopback), checked as at creation' },
        events: EVENTS,
        description: { type: ['string', 'null'], maxLength: 200, description: 'null removes it' },
        enabled: { type: 'boolean', description: 'false keeps it but queues no event for it' },
        rotate_secret: { type: 'boolean', description: 'true: a new signing secret, shown in this answer only' },
      },
      // The secret is rotated (generated here), never chosen by the caller.
      not: { required: ['secret'] },
      additionalProperties: false,
    },
    response: {
      200: {
        ...DETAILS,
        properties: {
          ...(DETAILS.properties as Record<string, unknown>),
          secret: { type: 'string', description: 'the new signing secret when rotate_secret was true, shown this once' },
        },
      },
    },
    async handler(request, reply, { ctx }) {
      const { id } = request.params as WebhookParams;
      const body = request.body as Omit<WebhookChanges, 'rotateSecret'> & { rotate_secret?: boolean };
      const { rotate_secret: rotateSecret, ...fields } = body;
      // The ETag is compared on the row as locked in the update's own transaction (etag.ts changeIfMatch).
      const { subscription, secret } = await changeIfMatch(request, ctx, webhookGuard(id), (tctx) =>
        updateWebhook(tctx, id, { ...fields, ...(rotateSecret ? { rotateSecret } : {}) }),
      );
      return reply
        .header('etag', etagOf(editableWebhook(subscription)))
        .send({ ...detailsJson(subscription), ...(secret === undefined ? {} : { secret }) });
    },
  });

  api.route({
    method: 'POST',
    url: '/webhooks/:id/pause',
    access: 'write',
    operationId: 'pauseWebhook',
    summary: 'Pause a subscription by hand with a reason: nothing is sent (events still queue) until it is resumed.',
    tag: 'webhooks',
    params: PARAMS,
    body: {
      type: 'object',
      required: ['reason'],
      properties: { reason: { type: 'string', minLength: 1, maxLength: PAUSE_REASON_MAX_LENGTH, description: 'shown with its state' } },
      additionalProperties: false,
    },
    response: { 200: DETAILS },
    async handler(request, reply, { ctx }) {
      const { id } = request.params as WebhookParams;
      return sendDetails(reply, await pauseWebhook(ctx, id, (request.body as { reason: string }).reason));
    },
  });

  api.route({
    method: 'GET',
    url: '/webhooks/:id/deliveries',
    access: 'read',
    operationId: 'listWebhookDeliveries',
    summary: `A subscription's deliveries, newest first (the newest ${DELIVERIES_WINDOW}); status filters them.`,
    tag: 'webhooks',
    params: PARAMS,
    querystring: { type: 'object', properties: { ...PAGE_QUERY_PROPERTIES, status: { enum: ['pending', 'delivered'] } } },
    response: { 200: pageSchema(DELIVERY) },
    async handler(request, _reply, { ctx }) {
      const query = request.query as PageQuery & { status?: 'pending' | 'delivered' };
      const list = `webhook-deliveries:${(request.params as WebhookParams).id}`;
      const after = query.cursor === undefined ? undefined : decodeCursor(list, query.cursor);
      const rows = await listWebhookDeliveriesOf(ctx, (request.params as WebhookParams).id, {
        limit: DELIVERIES_WINDOW,
        ...(query.status ? { status: query.status } : {}),
      });
      const sorted = rows.sort((a, b) => (deliveryKey(a) < deliveryKey(b) ? 1 : deliveryKey(a) > deliveryKey(b) ? -1 : 0));
      const rest = after === undefined ? sorted : sorted.filter((d) => deliveryKey(d) < after);
      const limit = query.limit ?? DEFAULT_LIMIT;
      const items = rest.slice(0, limit);
      const next = rest.length > limit ? encodeCursor(list, deliveryKey(items[items.length - 1]!)) : null;
      return { items: items.map(deliveryJson), next_cursor: next };
    },
  });
}
