// The console's user pages (issue 20): list and search, create, edit (profile and console role), disable and
// enable, sessions (sign out everywhere), devices (revoke), linked connections, a password reset link (emailed or
// shown), and resetting the second factor. Each is a thin layer over src/domain/admin/user-admin.ts, as the API's are.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  createUser,
  disableUser,
  enableUser,
  listSessions,
  listUserDevices,
  listUserPage,
  resetLink,
  resetSecondFactor,
  revokeSessions,
  revokeUserDevices,
  setRole,
  showUser,
  updateUserProfile,
} from '../../domain/admin/user-admin.js';
import { findUserByRef } from '../../domain/admin/admin.js';
import { isAdminRoleChoice } from '../../domain/user-entry.js';
import { accountLinks } from '../../domain/connections/account-links.js';
import { consoleFormToken } from '../../domain/console/console-sessions.js';
import type { ProviderContext } from '../../domain/context.js';
import type { RawParams } from '../../domain/params.js';
import { editableUser } from '../etag.js';
import { seeOther } from '../redirect.js';
import { newUserBody, userBody, userListBody, type NewUserValues } from './views/users.js';
import { adminContextOf, mayWrite, personOf, sendPage, textOf } from './console-http.js';
import { attempt, field, noticeOf, notFound } from './console-forms.js';
import type { MessageKey } from '../../i18n/catalog.js';
import { changeIfRevision, formRevision, revisionOf } from './console-revision.js';
import type { ConsoleOptions } from './index.js';

const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
const idParams = { type: 'object', properties: { id: { type: 'string', pattern: UUID_PATTERN } }, required: ['id'] } as const;
const deviceParams = {
  type: 'object',
  properties: { id: { type: 'string', pattern: UUID_PATTERN }, device: { type: 'string', maxLength: 64 } },
  required: ['id', 'device'],
} as const;
const query = {
  type: 'object',
  properties: {
    q: { type: 'string', maxLength: 256 },
    done: { type: 'string', maxLength: 32 },
    // The last user id of the page before (keyset pagination, src/storage/users.ts pageUserRows).
    after: { type: 'string', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' },
  },
} as const;

/** Users per page of the list: the database reads this many (and one more, to know there is a next page). */
const USERS_PER_PAGE = 50;

/** What the user page says after a change (`?done=`): a fixed list, so nothing from the URL is shown. */
const DONE: Readonly<Record<string, MessageKey>> = {
  created: 'console.users.done.created',
  saved: 'console.done.saved',
  disabled: 'console.users.done.disabled',
  enabled: 'console.users.done.enabled',
  'link-sent': 'console.users.done.linkSent',
  'factor-reset': 'console.users.done.factorReset',
  'sessions-revoked': 'console.users.done.sessionsRevoked',
  'device-revoked': 'console.users.done.deviceRevoked',
};

export function userPages(
  app: FastifyInstance,
  ctx: ProviderContext,
  base: string,
  opts: Pick<ConsoleOptions, 'onLogoutsQueued' | 'onMessagesQueued'>,
): void {
  const csrf = (request: FastifyRequest) => consoleFormToken(personOf(request).cookie);
  const path = (id: string) => `${base}/users/${id}`;

  async function renderUser(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    extra: { status?: number; notice?: string; error?: string; resetUrl?: string } = {},
  ) {
    const person = personOf(request);
    const admin = adminContextOf(ctx, request);
    const found = await attempt(
      async () => {
        const row = await findUserByRef(ctx.db, id);
        const [user, sessions, devices, links] = await Promise.all([
          showUser(admin, id),
          listSessions(admin, id),
          listUserDevices(admin, id),
          accountLinks(ctx, row),
        ]);
        return { user, sessions: sessions.sessions, devices: devices.devices, links };
      },
      (message, status) => notFound(reply, base, person, message, status),
    );
    if (!found.ok) return found.reply;
    const revision = revisionOf(editableUser(found.value.user));
    const t = textOf(request);
    const body = userBody(t, base, { ...found.value, csrf: mayWrite(request) ? csrf(request) : null, revision, ...extra });
    const title = t('console.users.page', { username: found.value.user.username });
    return sendPage(reply, base, { status: extra.status, title, section: '/users', body }, person);
  }

  /** A one-button action on the user: done, back to their page saying so; refused, their page saying why. */
  function action(
    url: string,
    run: (request: FastifyRequest<{ Params: { id: string }; Body: RawParams }>) => Promise<unknown>,
    done: string,
    after?: () => void,
  ) {
    app.post<{ Params: { id: string }; Body: RawParams }>(url, { schema: { params: idParams } }, async (request, reply) => {
      const result = await attempt(
        () => run(request),
        (error, status) => renderUser(request, reply, request.params.id, { status, error }),
      );
      if (!result.ok) return result.reply;
      after?.();
      return seeOther(reply, `${path(request.params.id)}?done=${done}`);
    });
  }

  app.get<{ Querystring: { q?: string; after?: string } }>('/users', { schema: { querystring: query } }, async (request, reply) => {
    const q = (request.query.q ?? '').trim();
    // A page read from the database, searched there: a million users are not read to show fifty.
    const rows = await listUserPage(adminContextOf(ctx, request), { text: q || undefined }, request.query.after, USERS_PER_PAGE + 1);
    const users = rows.slice(0, USERS_PER_PAGE);
    const next = rows.length > USERS_PER_PAGE ? users[users.length - 1]!.id : undefined;
    const t = textOf(request);
    return sendPage(
      reply,
      base,
      { title: t('console.users.title'), section: '/users', body: userListBody(t, base, users, q, mayWrite(request), next) },
      personOf(request),
    );
  });

  const blank: NewUserValues = { username: '', email: '', name: '', role: 'none' };
  app.get('/users/new', { config: { consoleWrite: true } }, async (request, reply) => {
    const t = textOf(request);
    const body = newUserBody(t, base, csrf(request), blank);
    return sendPage(reply, base, { title: t('console.users.new'), section: '/users', body }, personOf(request));
  });

  app.post<{ Body: RawParams }>('/users', async (request, reply) => {
    const values: NewUserValues = {
      username: field(request.body, 'username'),
      email: field(request.body, 'email'),
      name: field(request.body, 'name'),
      role: field(request.body, 'role') || 'none',
    };
    const password = (request.body?.password as string | undefined) ?? '';
    const done = await attempt(
      () =>
        createUser(adminContextOf(ctx, request), {
          username: values.username,
          password,
          ...(values.email ? { email: values.email } : {}),
          ...(values.name ? { name: values.name } : {}),
          ...(isAdminRoleChoice(values.role) && values.role !== 'none' ? { role: values.role } : {}),
        }),
      (message, status) =>
        sendPage(
          reply,
          base,
          {
            status,
            title: textOf(request)('console.users.new'),
            section: '/users',
            body: newUserBody(textOf(request), base, csrf(request), values, message),
          },
          personOf(request),
        ),
    );
    if (!done.ok) return done.reply;
    return seeOther(reply, `${path(done.value.id)}?done=created`);
  });

  app.get<{ Params: { id: string }; Querystring: { done?: string } }>(
    '/users/:id',
    { schema: { params: idParams, querystring: query } },
    async (request, reply) =>
      renderUser(request, reply, request.params.id, { notice: noticeOf(textOf(request), DONE, request.query.done) }),
  );

  action(
    '/users/:id',
    async (request) => {
      const { body } = request;
      const admin = adminContextOf(ctx, request);
      const email = field(body, 'email');
      const name = field(body, 'name');
      const role = field(body, 'role');
      // One form, one transaction: the profile and the role change together or not at all, each with its own audit
      // record (admin.user.updated, admin.user.role_set), as the command line and the API record them; and only
      // if the user is still as the page showed them (the API's If-Match, on the row locked for the change).
      const guard = {
        read: (c: typeof admin) => showUser(c, request.params.id),
        lock: (u: { id: string }) => ({ type: 'user' as const, id: u.id }),
        tagged: editableUser,
      };
      await changeIfRevision(admin, guard, formRevision(request), async (tctx, user) => {
        await updateUserProfile(tctx, user.id, { username: field(body, 'username'), email: email || null, name: name || null });
        if (isAdminRoleChoice(role)) await setRole(tctx, user.id, role);
      });
    },
    'saved',
  );
  action('/users/:id/disable', (r) => disableUser(adminContextOf(ctx, r), r.params.id), 'disabled', opts.onLogoutsQueued);
  action('/users/:id/enable', (r) => enableUser(adminContextOf(ctx, r), r.params.id), 'enabled');
  action('/users/:id/reset-link', (r) => resetLink(adminContextOf(ctx, r), r.params.id, true), 'link-sent', opts.onMessagesQueued);
  action(
    '/users/:id/second-factor/reset',
    (r) => resetSecondFactor(adminContextOf(ctx, r), r.params.id),
    'factor-reset',
    opts.onLogoutsQueued,
  );
  action(
    '/users/:id/sessions/revoke',
    (r) => revokeSessions(adminContextOf(ctx, r), r.params.id),
    'sessions-revoked',
    opts.onLogoutsQueued,
  );

  // The link itself is shown on the page that answers the POST, never put in a URL.
  app.post<{ Params: { id: string }; Body: RawParams }>(
    '/users/:id/reset-link/show',
    { schema: { params: idParams } },
    async (request, reply) => {
      const result = await attempt(
        () => resetLink(adminContextOf(ctx, request), request.params.id, false),
        (error, status) => renderUser(request, reply, request.params.id, { status, error }),
      );
      if (!result.ok) return result.reply;
      return renderUser(request, reply, request.params.id, { resetUrl: result.value.url });
    },
  );

  app.post<{ Params: { id: string; device: string }; Body: RawParams }>(
    '/users/:id/devices/:device/revoke',
    { schema: { params: deviceParams } },
    async (request, reply) => {
      const result = await attempt(
        () => revokeUserDevices(adminContextOf(ctx, request), request.params.id, request.params.device),
        (error, status) => renderUser(request, reply, request.params.id, { status, error }),
      );
      if (!result.ok) return result.reply;
      opts.onLogoutsQueued?.();
      return seeOther(reply, `${path(request.params.id)}?done=device-revoked`);
    },
  );
}
