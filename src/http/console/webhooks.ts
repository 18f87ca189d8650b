// The console's webhook pages (issue 20): the subscriptions with their state (a paused one says why), create (event
// types as checkboxes, the secret shown once), a subscription with its recent deliveries, edit it (a rotated secret
// shown once), pause it with a reason, resume a paused one, delete after a confirmation. Each is a thin layer over
// src/domain/webhooks/webhook-admin.ts, as the management API's are (src/http/admin-api/webhooks.ts), so each change
// is audited with the person as actor.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  addWebhook,
  currentWebhookFailures,
  listWebhookDeliveriesOf,
  listWebhooks,
  pauseWebhook,
  removeWebhook,
  resumeWebhook,
  showWebhook,
  updateWebhook,
} from '../../domain/webhooks/webhook-admin.js';
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from '../../domain/webhooks/event-types.js';
import { WEBHOOK_ID_PATTERN } from '../../domain/webhooks/webhook-entry.js';
import { consoleFormToken } from '../../domain/console/console-sessions.js';
import type { ProviderContext } from '../../domain/context.js';
import type { RawParams } from '../../domain/params.js';
import { seeOther } from '../redirect.js';
import {
  deleteWebhookBody,
  eventField,
  newWebhookBody,
  webhookBody,
  webhookListBody,
  webhookSecretBody,
  type WebhookFormValues,
} from './views/webhooks.js';
import { adminContextOf, mayWrite, personOf, sendPage, textOf } from './console-http.js';
import { editableWebhook, type IfMatchGuard } from '../etag.js';
import type { WebhookDetails } from '../../domain/webhooks/webhook-admin.js';
import { attempt, field, noticeOf, notFound } from './console-forms.js';
import type { MessageKey } from '../../i18n/catalog.js';
import { changeIfRevision, formRevision, revisionOf } from './console-revision.js';

const idParams = {
  type: 'object',
  properties: { id: { type: 'string', pattern: WEBHOOK_ID_PATTERN.source } },
  required: ['id'],
} as const;
const doneQuery = { type: 'object', properties: { done: { type: 'string', maxLength: 32 } } } as const;

/** How many of a subscription's newest deliveries its page lists. */
const RECENT_DELIVERIES = 50;

/** What the subscription page says after a change (`?done=`): a fixed list, so nothing from the URL is shown. */
const DONE: Readonly<Record<string, MessageKey>> = {
  resumed: 'console.webhooks.done.resumed',
  updated: 'console.webhooks.done.updated',
  unchanged: 'console.done.unchanged',
  paused: 'console.webhooks.done.paused',
};

/**
 * The checked event types. Each box has a name of its own (`event:user.created`, `event:*`): the app's form parser
 * refuses a repeated name (src/http/form-parser.ts), so boxes sharing one name could not be sent together.
 */
const checkedEvents = (body: RawParams | undefined): string[] =>
  [ALL_EVENTS, ...WEBHOOK_EVENT_TYPES].filter((type) => field(body, eventField(type)) !== '');

const valuesOf = (body: RawParams | undefined): WebhookFormValues => ({
  id: field(body, 'id'),
  url: field(body, 'url'),
  description: field(body, 'description'),
  events: checkedEvents(body),
  enabled: field(body, 'enabled') !== '',
});

/** The subscription of the path, locked for a change made from a form of a given revision (console-revision.ts). */
const webhookGuard = (id: string): IfMatchGuard<WebhookDetails> => ({
  read: (c) => showWebhook(c, id),
  lock: (w) => ({ type: 'webhook', id: w.id }),
  tagged: editableWebhook,
});

export function webhookPages(app: FastifyInstance, ctx: ProviderContext, base: string): void {
  const csrf = (request: FastifyRequest) => consoleFormToken(personOf(request).cookie);
  const path = (id: string) => `${base}/webhooks/${id}`;

  /** The subscription's page with its recent deliveries, and a notice or why a change was refused. */
  async function renderWebhook(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    extra: { status?: number; notice?: string | undefined; error?: string; form?: WebhookFormValues } = {},
  ) {
    const person = personOf(request);
    const admin = adminContextOf(ctx, request);
    const found = await attempt(
      async () => ({
        hook: await showWebhook(admin, id),
        failure: (await currentWebhookFailures(admin, id)).get(id),
        deliveries: await listWebhookDeliveriesOf(admin, id, { limit: RECENT_DELIVERIES }),
      }),
      (message, status) => notFound(reply, base, person, message, status),
    );
    if (!found.ok) return found.reply;
    const { status, ...rest } = extra;
    const revision = revisionOf(editableWebhook(found.value.hook));
    const body = webhookBody(textOf(request), base, { ...found.value, csrf: mayWrite(request) ? csrf(request) : null, revision, ...rest });
    return sendPage(reply, base, { status, title: textOf(request)('console.webhooks.page', { id }), section: '/webhooks', body }, person);
  }

  app.get('/webhooks', async (request, reply) =>
    sendPage(
      reply,
      base,
      {
        title: textOf(request)('console.nav.webhooks'),
        section: '/webhooks',
        body: webhookListBody(
          textOf(request),
          base,
          await listWebhooks(adminContextOf(ctx, request)),
          await currentWebhookFailures(adminContextOf(ctx, request)),
          mayWrite(request),
        ),
      },
      personOf(request),
    ),
  );

  app.get('/webhooks/new', { config: { consoleWrite: true } }, async (request, reply) =>
    sendPage(
      reply,
      base,
      {
        title: textOf(request)('console.webhooks.newTitle'),
        section: '/webhooks',
        body: newWebhookBody(textOf(request), base, csrf(request), { id: '', url: '', description: '', events: [], enabled: true }),
      },
      personOf(request),
    ),
  );

  app.post<{ Body: RawParams }>('/webhooks', async (request, reply) => {
    const values = valuesOf(request.body);
    const person = personOf(request);
    const done = await attempt(
      () =>
        addWebhook(adminContextOf(ctx, request), {
          id: values.id,
          url: values.url,
          events: [...values.events],
          ...(values.description ? { description: values.description } : {}),
          enabled: values.enabled,
        }),
      (message, status) =>
        sendPage(
          reply,
          base,
          {
            status,
            title: textOf(request)('console.webhooks.newTitle'),
            section: '/webhooks',
            body: newWebhookBody(textOf(request), base, csrf(request), values, message),
          },
          person,
        ),
    );
    if (!done.ok) return done.reply;
    return sendPage(
      reply.header('cache-control', 'no-store'),
      base,
      {
        status: 201,
        title: textOf(request)('console.webhooks.createdTitle'),
        section: '/webhooks',
        body: webhookSecretBody(textOf(request), base, done.value.subscription.id, done.value.secret),
      },
      person,
    );
  });

  app.get<{ Params: { id: string }; Querystring: { done?: string } }>(
    '/webhooks/:id',
    { schema: { params: idParams, querystring: doneQuery } },
    async (request, reply) =>
      renderWebhook(request, reply, request.params.id, { notice: noticeOf(textOf(request), DONE, request.query.done) }),
  );

  app.post<{ Params: { id: string }; Body: RawParams }>(
    '/webhooks/:id/resume',
    { schema: { params: idParams } },
    async (request, reply) => {
      const { id } = request.params;
      const done = await attempt(
        () => resumeWebhook(adminContextOf(ctx, request), id),
        (error, status) => renderWebhook(request, reply, id, { status, error }),
      );
      if (!done.ok) return done.reply;
      return seeOther(reply, `${path(id)}?done=resumed`);
    },
  );

  app.post<{ Params: { id: string }; Body: RawParams }>('/webhooks/:id/edit', { schema: { params: idParams } }, async (request, reply) => {
    const { id } = request.params;
    const values = { ...valuesOf(request.body), id };
    const done = await attempt(
      () =>
        changeIfRevision(adminContextOf(ctx, request), webhookGuard(id), formRevision(request), (tctx) =>
          updateWebhook(tctx, id, {
            url: values.url,
            events: [...values.events],
            description: values.description,
            enabled: values.enabled,
            rotateSecret: field(request.body, 'rotate_secret') !== '',
          }),
        ),
      // Changed meanwhile: the form shows the subscription as it is now, not what was typed over an older version.
      (error, status) => renderWebhook(request, reply, id, { status, error, ...(status === 412 ? {} : { form: values }) }),
    );
    if (!done.ok) return done.reply;
    const { secret, changed } = done.value;
    if (secret === undefined) return seeOther(reply, `${path(id)}?done=${changed.length === 0 ? 'unchanged' : 'updated'}`);
    return sendPage(
      reply.header('cache-control', 'no-store'),
      base,
      {
        title: textOf(request)('console.webhooks.rotatedTitle'),
        section: '/webhooks',
        body: webhookSecretBody(textOf(request), base, id, secret, 'updated'),
      },
      personOf(request),
    );
  });

  app.post<{ Params: { id: string }; Body: RawParams }>('/webhooks/:id/pause', { schema: { params: idParams } }, async (request, reply) => {
    const { id } = request.params;
    const done = await attempt(
      () => pauseWebhook(adminContextOf(ctx, request), id, field(request.body, 'reason')),
      (error, status) => renderWebhook(request, reply, id, { status, error }),
    );
    if (!done.ok) return done.reply;
    return seeOther(reply, `${path(id)}?done=paused`);
  });

  app.get<{ Params: { id: string } }>(
    '/webhooks/:id/delete',
    { schema: { params: idParams }, config: { consoleWrite: true } },
    async (request, reply) => {
      const person = personOf(request);
      const found = await attempt(
        () => showWebhook(adminContextOf(ctx, request), request.params.id),
        (message, status) => notFound(reply, base, person, message, status),
      );
      if (!found.ok) return found.reply;
      return sendPage(
        reply,
        base,
        {
          title: textOf(request)('console.webhooks.deleteTitle'),
          section: '/webhooks',
          body: deleteWebhookBody(textOf(request), base, found.value, csrf(request), revisionOf(editableWebhook(found.value))),
        },
        person,
      );
    },
  );

  app.post<{ Params: { id: string }; Body: RawParams }>(
    '/webhooks/:id/delete',
    { schema: { params: idParams } },
    async (request, reply) => {
      const person = personOf(request);
      const done = await attempt(
        () =>
          changeIfRevision(adminContextOf(ctx, request), webhookGuard(request.params.id), formRevision(request), (tctx) =>
            removeWebhook(tctx, request.params.id),
          ),
        (message, status) => notFound(reply, base, person, message, status),
      );
      if (!done.ok) return done.reply;
      return seeOther(reply, `${base}/webhooks`);
    },
  );
}
