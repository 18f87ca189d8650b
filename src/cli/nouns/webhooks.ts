// sso-admin webhooks list|show|add|update|remove|pause|resume|deliveries, over src/domain/webhooks/webhook-admin.ts: the URLs
// that are told of users, sign-ins, risk verdicts, devices, sessions and clients as they change (docs/webhooks.md).
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from '../../domain/webhooks/event-types.js';
import {
  addWebhook,
  listWebhookDeliveriesOf,
  listWebhooks,
  pauseWebhook,
  removeWebhook,
  resumeWebhook,
  showWebhook,
  updateWebhook,
  type WebhookChanges,
  type WebhookDetails,
  type WebhookSubscription,
} from '../../domain/webhooks/webhook-admin.js';
import { webhookEntryProblems, type WebhookEntry } from '../../domain/webhooks/webhook-entry.js';
import { AdminError } from '../../domain/admin-error.js';
import { deliveryJson, webhookJson } from '../../domain/admin/representations.js';
import { iso } from '../output.js';
import { UsageError, verb, type Noun, type Session } from '../command.js';

const ID = { name: 'id', description: 'the subscription id: lowercase letters, digits, "-" or "_"' } as const;

const state = (w: WebhookSubscription) => (w.pausedAt ? 'paused' : w.enabled ? 'active' : 'disabled');

function printWebhook(session: Session, w: WebhookDetails): void {
  session.out.fields([
    ['id', w.id],
    ['url', w.url],
    ['events', w.events.join(' ')],
    ['description', w.description],
    ['organization_id', w.organizationId],
    ['secret', '(set, sealed)'],
    ['state', state(w)],
    ['paused_at', w.pausedAt && iso(w.pausedAt)],
    ['pause_reason', w.pauseReason],
    ['consecutive_failures', w.consecutiveFailures],
    ['last_success_at', w.lastSuccessAt && iso(w.lastSuccessAt)],
    ['pending', w.pending],
    ['delivered', w.delivered],
    ['created_at', iso(w.createdAt)],
  ]);
}

export const webhooks: Noun = {
  name: 'webhooks',
  summary: 'URLs told of users, sign-ins, risk verdicts, devices, sessions and clients as they change',
  verbs: [
    verb({
      name: 'list',
      summary: 'List every subscription and whether it is active, paused or disabled.',
      async run(session, input) {
        const all = await listWebhooks(session.ctx);
        if (input.json) return session.out.json(all.map(webhookJson));
        session.out.table(
          ['id', 'state', 'url', 'events', 'failures'],
          all.map((w) => [w.id, state(w), w.url, w.events.join(' '), String(w.consecutiveFailures)]),
          'no webhooks',
        );
      },
    }),
    verb({
      name: 'show',
      summary: 'Show one subscription, why it is paused if it is, and how many deliveries are pending.',
      args: [ID],
      async run(session, input) {
        const w = await showWebhook(session.ctx, input.args.id!);
        if (input.json) return session.out.json({ ...webhookJson(w), pending: w.pending, delivered: w.delivered });
        printWebhook(session, w);
      },
    }),
    verb({
      name: 'add',
      summary: 'Add a subscription; its signing secret is generated and printed once (or read from stdin).',
      args: [ID],
      options: {
        url: { type: 'string', value: 'URL', required: true, description: 'where deliveries are POSTed: https (http only on loopback)' },
        event: {
          type: 'string',
          value: 'TYPE',
          multiple: true,
          required: true,
          description: `an event type to send (repeat the option), or ${ALL_EVENTS} for all`,
        },
        description: { type: 'string', value: 'TEXT', description: 'what the receiver is, for the admins (at most 200 characters)' },
        'secret-stdin': {
          type: 'boolean',
          description: 'read the signing secret from stdin (at least 32 characters) instead of generating one',
        },
        disabled: { type: 'boolean', description: 'keep it, but queue no event for it' },
        organization: { type: 'string', value: 'ORG', description: "only this organization's events (its id or slug)" },
      },
      notes: `Event types: ${WEBHOOK_EVENT_TYPES.join(', ')}. The URL is checked as a client's jwks_uri is: no
address of this machine or of a private network (unless the issuer is on loopback, or OUTBOUND_ALLOW_NETWORKS
allows it). Each delivery is signed with the secret (X-SSO-Signature, docs/webhooks.md); copy it from the output,
it is kept sealed and never shown again.`,
      async prepare(input, terminal) {
        let secret: string | undefined;
        if (input.options['secret-stdin'] === true) {
          secret = (await terminal.readAll()).replace(/\r?\n$/, '');
          if (secret === '') throw new UsageError('--secret-stdin read nothing from stdin');
        }
        const entry: WebhookEntry = {
          id: input.args.id!,
          url: input.options.url as string,
          events: input.options.event as string[],
          ...(secret === undefined ? {} : { secret }),
          ...(typeof input.options.description === 'string' ? { description: input.options.description } : {}),
          ...(input.options.disabled === true ? { enabled: false } : {}),
          ...(typeof input.options.organization === 'string' ? { organization: input.options.organization } : {}),
        };
        const problems = webhookEntryProblems(entry, { secretRequired: false });
        if (problems.length > 0) throw new AdminError(`webhook "${entry.id}" was refused: ${problems.join('; ')}`);
        return entry;
      },
      async run(session, input, entry: WebhookEntry) {
        const { subscription, secret } = await addWebhook(session.ctx, entry);
        const generated = entry.secret === undefined;
        if (input.json) return session.out.json({ ...webhookJson(subscription), ...(generated ? { secret } : {}) });
        session.out.line(`webhook "${subscription.id}" added: ${subscription.events.join(' ')} to ${subscription.url}`);
        if (generated) {
          session.out.line(`secret: ${secret}`);
          session.out.line(`This is the only time the secret of "${subscription.id}" is shown: it is kept sealed.`);
        }
      },
    }),
    verb({
      name: 'update',
      summary: 'Change a subscription in place, keeping its pending deliveries; --rotate-secret prints a new secret once.',
      args: [ID],
      options: {
        url: { type: 'string', value: 'URL', description: 'where deliveries are POSTed from now on: https (http only on loopback)' },
        events: {
          type: 'string',
          value: 'TYPES',
          description: `the event types to send, separated by commas (they replace the current ones), or ${ALL_EVENTS} for all`,
        },
        description: { type: 'string', value: 'TEXT', description: 'what the receiver is, for the admins ("" removes it)' },
        enabled: { type: 'string', value: 'true|false', description: 'false keeps it, but queues no event for it' },
        'rotate-secret': { type: 'boolean', description: 'generate a new signing secret, printed once; the old one signs nothing more' },
      },
      notes: `The URL is checked as at creation. Pending deliveries stay with the subscription and go, from the next round,
to its URL as it is then, signed with its secret as it is then: give the receiver a rotated secret first.`,
      prepare(input) {
        const changes: WebhookChanges = {};
        if (typeof input.options.url === 'string') changes.url = input.options.url;
        if (typeof input.options.events === 'string') {
          const events = input.options.events.split(',').map((e) => e.trim());
          if (events.some((e) => e === '')) throw new UsageError('--events takes event types separated by commas, none empty');
          changes.events = events;
        }
        if (typeof input.options.description === 'string') changes.description = input.options.description;
        const enabled = input.options.enabled;
        if (enabled !== undefined) {
          if (enabled !== 'true' && enabled !== 'false') throw new UsageError('--enabled must be true or false');
          changes.enabled = enabled === 'true';
        }
        if (input.options['rotate-secret'] === true) changes.rotateSecret = true;
        if (Object.keys(changes).length === 0)
          throw new UsageError('nothing to change: give --url, --events, --description, --enabled or --rotate-secret');
        return changes;
      },
      async run(session, input, changes: WebhookChanges) {
        const { subscription: w, changed, secret } = await updateWebhook(session.ctx, input.args.id!, changes);
        if (input.json)
          return session.out.json({
            ...webhookJson(w),
            pending: w.pending,
            delivered: w.delivered,
            changed,
            ...(secret === undefined ? {} : { secret }),
          });
        session.out.line(changed.length === 0 ? `webhook "${w.id}" unchanged` : `webhook "${w.id}" updated: ${changed.join(', ')}`);
        if (secret !== undefined) {
          session.out.line(`secret: ${secret}`);
          session.out.line(`This is the only time the new secret of "${w.id}" is shown: it is kept sealed.`);
        }
      },
    }),
    verb({
      name: 'remove',
      summary: 'Remove a subscription and every delivery still owed to it.',
      args: [ID],
      destructive: true,
      async run(session, input) {
        const id = input.args.id!;
        const shown = await showWebhook(session.ctx, id);
        await session.confirm(`Remove webhook "${id}" and its ${shown.pending} pending deliveries?`);
        const removed = await removeWebhook(session.ctx, id);
        if (input.json) return session.out.json({ id, removed: true, pending_dropped: removed.pending });
        session.out.line(`webhook "${id}" removed (${removed.pending} pending deliveries dropped)`);
      },
    }),
    verb({
      name: 'pause',
      summary: 'Pause a subscription by hand: nothing is sent (events still queue) until it is resumed.',
      args: [ID],
      options: {
        reason: { type: 'string', value: 'TEXT', required: true, description: 'why, shown with its state (at most 200 characters)' },
      },
      async run(session, input) {
        const w = await pauseWebhook(session.ctx, input.args.id!, input.options.reason as string);
        if (input.json) return session.out.json({ ...webhookJson(w), pending: w.pending, delivered: w.delivered });
        session.out.line(`webhook "${w.id}" paused: ${w.pauseReason ?? ''}; its ${w.pending} pending deliveries wait until it is resumed`);
      },
    }),
    verb({
      name: 'resume',
      summary: 'Resume a paused subscription: its oldest pending delivery goes first, at the next round.',
      args: [ID],
      async run(session, input) {
        const w = await resumeWebhook(session.ctx, input.args.id!);
        if (input.json) return session.out.json({ ...webhookJson(w), pending: w.pending, delivered: w.delivered });
        session.out.line(`webhook "${w.id}" resumed; ${w.pending} pending deliveries will be sent in order`);
      },
    }),
    verb({
      name: 'deliveries',
      summary: "List a subscription's deliveries, newest first, with their status and last error.",
      args: [ID],
      options: {
        status: { type: 'string', value: 'STATUS', description: 'pending or delivered (default: both)' },
        limit: { type: 'string', value: 'N', description: 'at most this many (1 to 500, default 50)' },
      },
      prepare(input) {
        const status = input.options.status;
        if (status !== undefined && status !== 'pending' && status !== 'delivered')
          throw new UsageError('--status takes pending or delivered');
        const limit = input.options.limit === undefined ? 50 : Number(input.options.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new UsageError('--limit takes a whole number from 1 to 500');
        return { status: status as 'pending' | 'delivered' | undefined, limit };
      },
      async run(session, input, options: { status: 'pending' | 'delivered' | undefined; limit: number }) {
        const rows = await listWebhookDeliveriesOf(session.ctx, input.args.id!, {
          limit: options.limit,
          ...(options.status ? { status: options.status } : {}),
        });
        if (input.json) return session.out.json(rows.map(deliveryJson));
        session.out.table(
          ['id', 'type', 'status', 'attempts', 'created', 'last'],
          rows.map((d) => [
            d.id,
            d.eventType,
            d.status,
            String(d.attempts),
            iso(d.createdAt),
            d.lastError ?? (d.lastStatus === null ? '-' : String(d.lastStatus)),
          ]),
          'no deliveries',
        );
      },
    }),
  ],
};
