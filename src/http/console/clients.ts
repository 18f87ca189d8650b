// The console's client pages (issue 20): list and search, create (the secret shown once), edit, rotate the secret,
// delete after a confirmation. Each is a thin layer over src/domain/clients/client-admin.ts, as the API's are.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  createClient,
  deleteClient,
  listClientPage,
  rotateClientSecret,
  showClient,
  updateClient,
} from '../../domain/clients/client-admin.js';
import type { ClientEntry } from '../../domain/client-entry.js';
import { clientJson } from '../../domain/admin/representations.js';
import { CONSOLE_CLIENT_ID } from '../../domain/console/console-client.js';
import { consoleFormToken } from '../../domain/console/console-sessions.js';
import type { ProviderContext } from '../../domain/context.js';
import type { RawParams } from '../../domain/params.js';
import { seeOther } from '../redirect.js';
import { clientBody, clientListBody, deleteClientBody, newClientBody, secretBody, type ClientFormValues } from './views/clients.js';
import { adminContextOf, mayWrite, personOf, sendPage, textOf } from './console-http.js';
import { attempt, field, list, noticeOf, notFound } from './console-forms.js';
import type { MessageKey } from '../../i18n/catalog.js';
import { CONSOLE_PREFIX } from './console-http.js';
import { checkRevision, formRevision, revisionOf } from './console-revision.js';

const idParams = { type: 'object', properties: { id: { type: 'string', maxLength: 256 } }, required: ['id'] } as const;
const searchQuery = {
  type: 'object',
  properties: {
    q: { type: 'string', maxLength: 256 },
    done: { type: 'string', maxLength: 16 },
    // The last client id of the page before (keyset pagination, src/storage/clients.ts pageClientRows).
    after: { type: 'string', minLength: 1, maxLength: 255 },
  },
} as const;

/** Clients per page of the list (the database reads one more, to know there is a next page). */
const CLIENTS_PER_PAGE = 50;

const DONE: Readonly<Record<string, MessageKey>> = { saved: 'console.done.saved', unchanged: 'console.done.unchanged' };

function valuesOf(body: RawParams | undefined): ClientFormValues {
  return {
    client_id: field(body, 'client_id'),
    client_name: field(body, 'client_name'),
    redirect_uris: field(body, 'redirect_uris'),
    post_logout_redirect_uris: field(body, 'post_logout_redirect_uris'),
    grant_types: field(body, 'grant_types'),
    token_endpoint_auth_method: field(body, 'token_endpoint_auth_method'),
    // An unchecked box is not sent at all (HTML's form submission): absent means off.
    require_mfa: field(body, 'require_mfa') === 'on' ? 'on' : '',
    limit_groups: field(body, 'limit_groups') === 'on' ? 'on' : '',
    allowed_groups: field(body, 'allowed_groups'),
  };
}

/** One group name per line: a name may hold spaces, so the lines are not split further. */
const lines = (value: string): string[] =>
  value
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');

/** The form's values as the seed file writes a client; an empty name means none. */
function entryOf(v: ClientFormValues): Omit<ClientEntry, 'client_id'> {
  return {
    ...(v.client_name ? { client_name: v.client_name } : {}),
    redirect_uris: list(v.redirect_uris),
    post_logout_redirect_uris: list(v.post_logout_redirect_uris),
    grant_types: list(v.grant_types),
    token_endpoint_auth_method: v.token_endpoint_auth_method as ClientEntry['token_endpoint_auth_method'],
    ...(v.require_mfa === 'on' ? { require_mfa: true } : {}),
    ...(v.limit_groups === 'on' ? { allowed_groups: lines(v.allowed_groups) } : {}),
  };
}

/** The fields an edit removes: a name left empty, a second factor no longer required, a group limit lifted. */
function removedBy(v: ClientFormValues): string[] {
  return [
    ...(v.client_name ? [] : ['client_name']),
    ...(v.require_mfa === 'on' ? [] : ['require_mfa']),
    ...(v.limit_groups === 'on' ? [] : ['allowed_groups']),
  ];
}

export function clientPages(app: FastifyInstance, ctx: ProviderContext, base: string): void {
  const csrf = (request: FastifyRequest) => consoleFormToken(personOf(request).cookie);
  const path = (id: string) => `${base}/clients/${encodeURIComponent(id)}`;

  // The console's own client is shown but not changed here: a change could lock every admin out of the console.
  app.addHook('preHandler', async (request, reply) => {
    const { id } = (request.params ?? {}) as { id?: string };
    if (
      id !== CONSOLE_CLIENT_ID ||
      !request.routeOptions.url?.startsWith(`${CONSOLE_PREFIX}/clients/`) ||
      (request.method !== 'POST' && request.routeOptions.config?.consoleWrite !== true)
    )
      return;
    return notFound(reply, base, personOf(request), textOf(request)('console.clients.ownClient'), 403);
  });

  app.get<{ Querystring: { q?: string; after?: string } }>('/clients', { schema: { querystring: searchQuery } }, async (request, reply) => {
    const q = (request.query.q ?? '').trim();
    // A page read from the database and searched there, as the users list is.
    const rows = await listClientPage(adminContextOf(ctx, request), { text: q || undefined }, request.query.after, CLIENTS_PER_PAGE + 1);
    const clients = rows.slice(0, CLIENTS_PER_PAGE);
    const next = rows.length > CLIENTS_PER_PAGE ? clients[clients.length - 1]!.entry.client_id : undefined;
    return sendPage(
      reply,
      base,
      {
        title: textOf(request)('console.clients.title'),
        section: '/clients',
        body: clientListBody(textOf(request), base, clients, q, mayWrite(request), next),
      },
      personOf(request),
    );
  });

  app.get('/clients/new', { config: { consoleWrite: true } }, async (request, reply) =>
    sendPage(
      reply,
      base,
      {
        title: textOf(request)('console.clients.new'),
        section: '/clients',
        body: newClientBody(textOf(request), base, csrf(request), {
          client_id: '',
          client_name: '',
          redirect_uris: '',
          post_logout_redirect_uris: '',
          grant_types: 'authorization_code refresh_token',
          token_endpoint_auth_method: 'client_secret_basic',
          require_mfa: '',
          limit_groups: '',
          allowed_groups: '',
        }),
      },
      personOf(request),
    ),
  );

  app.post<{ Body: RawParams }>('/clients', async (request, reply) => {
    const values = valuesOf(request.body);
    const person = personOf(request);
    const done = await attempt(
      () => createClient(adminContextOf(ctx, request), { client_id: values.client_id, ...entryOf(values) }),
      (message, status) =>
        sendPage(
          reply,
          base,
          {
            status,
            title: textOf(request)('console.clients.new'),
            section: '/clients',
            body: newClientBody(textOf(request), base, csrf(request), values, message),
          },
          person,
        ),
    );
    if (!done.ok) return done.reply;
    const { client, clientSecret } = done.value;
    if (clientSecret === undefined) return seeOther(reply, `${path(client.entry.client_id)}?done=saved`);
    return sendPage(
      reply.header('cache-control', 'no-store'),
      base,
      {
        status: 201,
        title: textOf(request)('console.clients.createdTitle'),
        section: '/clients',
        body: secretBody(
          textOf(request),
          base,
          client.entry.client_id,
          clientSecret,
          textOf(request)('console.clients.created', { id: client.entry.client_id }),
        ),
      },
      person,
    );
  });

  app.get<{ Params: { id: string }; Querystring: { done?: string } }>(
    '/clients/:id',
    { schema: { params: idParams, querystring: searchQuery } },
    async (request, reply) => {
      const person = personOf(request);
      const found = await attempt(
        () => showClient(adminContextOf(ctx, request), request.params.id),
        (message, status) => notFound(reply, base, person, message, status),
      );
      if (!found.ok) return found.reply;
      const notice = noticeOf(textOf(request), DONE, request.query.done);
      const editable = mayWrite(request) && request.params.id !== CONSOLE_CLIENT_ID;
      const revision = revisionOf(clientJson(found.value));
      const body = clientBody(textOf(request), base, found.value, { csrf: editable ? csrf(request) : null, revision, notice });
      return sendPage(
        reply,
        base,
        { title: textOf(request)('console.clients.page', { id: request.params.id }), section: '/clients', body },
        person,
      );
    },
  );

  app.post<{ Params: { id: string }; Body: RawParams }>('/clients/:id', { schema: { params: idParams } }, async (request, reply) => {
    const { id } = request.params;
    const person = personOf(request);
    const admin = adminContextOf(ctx, request);
    const values = { ...valuesOf(request.body), client_id: id };
    const done = await attempt(
      () =>
        updateClient(admin, id, {
          set: entryOf(values),
          remove: removedBy(values),
          // As the API's If-Match: checked on the row locked for the change.
          precondition: (current) => checkRevision(formRevision(request), clientJson(current)),
        }),
      async (message, status) => {
        const current = await showClient(admin, id).catch(() => undefined);
        if (!current) return notFound(reply, base, person, message, status);
        // Changed meanwhile: the form shows the client as it is now, not what was typed over an older version.
        const typed = status === 412 ? {} : { values };
        const body = clientBody(textOf(request), base, current, {
          csrf: csrf(request),
          revision: revisionOf(clientJson(current)),
          ...typed,
          error: message,
        });
        return sendPage(reply, base, { status, title: textOf(request)('console.clients.page', { id }), section: '/clients', body }, person);
      },
    );
    if (!done.ok) return done.reply;
    if (done.value.clientSecret !== undefined) {
      return sendPage(
        reply,
        base,
        {
          title: textOf(request)('console.clients.changedTitle'),
          section: '/clients',
          body: secretBody(textOf(request), base, id, done.value.clientSecret, textOf(request)('console.clients.nowConfidential')),
        },
        person,
      );
    }
    return seeOther(reply, `${path(id)}?done=${done.value.changed.length ? 'saved' : 'unchanged'}`);
  });

  app.post<{ Params: { id: string }; Body: RawParams }>('/clients/:id/rotate', { schema: { params: idParams } }, async (request, reply) => {
    const { id } = request.params;
    const person = personOf(request);
    const done = await attempt(
      () => rotateClientSecret(adminContextOf(ctx, request), id),
      (message, status) => notFound(reply, base, person, message, status),
    );
    if (!done.ok) return done.reply;
    return sendPage(
      reply,
      base,
      {
        title: textOf(request)('console.clients.rotatedTitle'),
        section: '/clients',
        body: secretBody(textOf(request), base, id, done.value.clientSecret, textOf(request)('console.clients.rotated')),
      },
      person,
    );
  });

  app.get<{ Params: { id: string } }>(
    '/clients/:id/delete',
    { schema: { params: idParams }, config: { consoleWrite: true } },
    async (request, reply) => {
      const person = personOf(request);
      const found = await attempt(
        () => showClient(adminContextOf(ctx, request), request.params.id),
        (message, status) => notFound(reply, base, person, message, status),
      );
      if (!found.ok) return found.reply;
      return sendPage(
        reply,
        base,
        {
          title: textOf(request)('console.clients.deleteTitle'),
          section: '/clients',
          body: deleteClientBody(textOf(request), base, request.params.id, csrf(request), revisionOf(clientJson(found.value))),
        },
        person,
      );
    },
  );

  app.post<{ Params: { id: string }; Body: RawParams }>('/clients/:id/delete', { schema: { params: idParams } }, async (request, reply) => {
    const person = personOf(request);
    const done = await attempt(
      () =>
        deleteClient(adminContextOf(ctx, request), request.params.id, (current) =>
          checkRevision(formRevision(request), clientJson(current)),
        ),
      (message, status) => notFound(reply, base, person, message, status),
    );
    if (!done.ok) return done.reply;
    return seeOther(reply, `${base}/clients`);
  });
}
