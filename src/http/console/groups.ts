// The console's group pages (issue 20): list with member counts, create, rename and describe, members (add by
// username or email, remove), delete after a confirmation. Each is a thin layer over src/domain/groups/group-admin.ts,
// as the management API's are (src/http/admin-api/groups.ts), so each change is audited with the person as actor.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  addMember,
  clientsLimitedTo,
  createGroup,
  deleteGroup,
  findMemberCandidate,
  listGroups,
  listMembers,
  removeMember,
  showGroup,
  updateGroup,
} from '../../domain/groups/group-admin.js';
import { consoleFormToken } from '../../domain/console/console-sessions.js';
import type { ProviderContext } from '../../domain/context.js';
import type { RawParams } from '../../domain/params.js';
import { seeOther } from '../redirect.js';
import { deleteGroupBody, groupBody, groupListBody, newGroupBody, type GroupFormValues, type GroupView } from './views/groups.js';
import { adminContextOf, mayWrite, personOf, sendPage, textOf } from './console-http.js';
import type { AdminContext } from '../../domain/admin/admin.js';
import { editableGroup, type IfMatchGuard } from '../etag.js';
import type { GroupSummary } from '../../domain/groups/group-admin.js';
import { attempt, field, noticeOf, notFound } from './console-forms.js';
import type { MessageKey } from '../../i18n/catalog.js';
import { changeIfRevision, formRevision, revisionOf } from './console-revision.js';

const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
const idParams = { type: 'object', properties: { id: { type: 'string', pattern: UUID_PATTERN } }, required: ['id'] } as const;
const memberParams = {
  type: 'object',
  properties: { id: { type: 'string', pattern: UUID_PATTERN }, user: { type: 'string', pattern: UUID_PATTERN } },
  required: ['id', 'user'],
} as const;
const doneQuery = { type: 'object', properties: { done: { type: 'string', maxLength: 32 } } } as const;

/** What the group page says after a change (`?done=`): a fixed list, so nothing from the URL is shown. */
const DONE: Readonly<Record<string, MessageKey>> = {
  created: 'console.groups.done.created',
  saved: 'console.done.saved',
  unchanged: 'console.done.unchanged',
  added: 'console.groups.done.added',
  'already-member': 'console.groups.done.alreadyMember',
  removed: 'console.groups.done.removed',
  'not-member': 'console.groups.done.notMember',
};

const valuesOf = (body: RawParams | undefined): GroupFormValues => ({
  name: field(body, 'name'),
  description: field(body, 'description'),
});

/** The form's values as the domain takes them: an empty description is none. */
const inputOf = (v: GroupFormValues) => ({ name: v.name, description: v.description === '' ? null : v.description });

/** The group of the path, locked for a change made from a form of a given revision (console-revision.ts). */
const groupGuard = (id: string): IfMatchGuard<GroupSummary> => ({
  read: (ctx: AdminContext) => showGroup(ctx, id),
  lock: (g) => ({ type: 'group', id: g.id }),
  tagged: editableGroup,
});

export function groupPages(app: FastifyInstance, ctx: ProviderContext, base: string): void {
  const csrf = (request: FastifyRequest) => consoleFormToken(personOf(request).cookie);
  const path = (id: string) => `${base}/groups/${id}`;

  /** The group's page, with a notice, or with the refused form and why. */
  async function renderGroup(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    extra: Pick<GroupView, 'values' | 'member' | 'notice' | 'error'> & { status?: number } = {},
  ) {
    const person = personOf(request);
    const admin = adminContextOf(ctx, request);
    const found = await attempt(
      async () => ({ ...(await listMembers(admin, id)), clients: await clientsLimitedTo(admin, id) }),
      (message, status) => notFound(reply, base, person, message, status),
    );
    if (!found.ok) return found.reply;
    const { status, ...rest } = extra;
    const revision = revisionOf(editableGroup(found.value.group));
    const body = groupBody(textOf(request), base, { ...found.value, csrf: mayWrite(request) ? csrf(request) : null, revision, ...rest });
    return sendPage(
      reply,
      base,
      { status, title: textOf(request)('console.groups.page', { name: found.value.group.name }), section: '/groups', body },
      person,
    );
  }

  app.get('/groups', async (request, reply) =>
    sendPage(
      reply,
      base,
      {
        title: textOf(request)('console.groups.title'),
        section: '/groups',
        body: groupListBody(textOf(request), base, await listGroups(adminContextOf(ctx, request)), mayWrite(request)),
      },
      personOf(request),
    ),
  );

  app.get('/groups/new', { config: { consoleWrite: true } }, async (request, reply) =>
    sendPage(
      reply,
      base,
      {
        title: textOf(request)('console.groups.new'),
        section: '/groups',
        body: newGroupBody(textOf(request), base, csrf(request), { name: '', description: '' }),
      },
      personOf(request),
    ),
  );

  app.post<{ Body: RawParams }>('/groups', async (request, reply) => {
    const values = valuesOf(request.body);
    const done = await attempt(
      () => createGroup(adminContextOf(ctx, request), inputOf(values)),
      (message, status) =>
        sendPage(
          reply,
          base,
          {
            status,
            title: textOf(request)('console.groups.new'),
            section: '/groups',
            body: newGroupBody(textOf(request), base, csrf(request), values, message),
          },
          personOf(request),
        ),
    );
    if (!done.ok) return done.reply;
    return seeOther(reply, `${path(done.value.id)}?done=created`);
  });

  app.get<{ Params: { id: string }; Querystring: { done?: string } }>(
    '/groups/:id',
    { schema: { params: idParams, querystring: doneQuery } },
    async (request, reply) =>
      renderGroup(request, reply, request.params.id, { notice: noticeOf(textOf(request), DONE, request.query.done) }),
  );

  app.post<{ Params: { id: string }; Body: RawParams }>('/groups/:id', { schema: { params: idParams } }, async (request, reply) => {
    const { id } = request.params;
    const values = valuesOf(request.body);
    const done = await attempt(
      () =>
        changeIfRevision(adminContextOf(ctx, request), groupGuard(id), formRevision(request), (tctx, current) =>
          updateGroup(tctx, current.id, inputOf(values)),
        ),
      // Changed meanwhile: the form shows the group as it is now, not what was typed over an older version.
      (error, status) => renderGroup(request, reply, id, { status, ...(status === 412 ? {} : { values }), error }),
    );
    if (!done.ok) return done.reply;
    return seeOther(reply, `${path(id)}?done=${done.value.changed.length ? 'saved' : 'unchanged'}`);
  });

  app.post<{ Params: { id: string }; Body: RawParams }>('/groups/:id/members', { schema: { params: idParams } }, async (request, reply) => {
    const { id } = request.params;
    const member = field(request.body, 'member');
    const admin = adminContextOf(ctx, request);
    const done = await attempt(
      async () => addMember(admin, id, await findMemberCandidate(admin, member)),
      (error, status) => renderGroup(request, reply, id, { status, member, error }),
    );
    if (!done.ok) return done.reply;
    return seeOther(reply, `${path(id)}?done=${done.value.added ? 'added' : 'already-member'}`);
  });

  app.post<{ Params: { id: string; user: string }; Body: RawParams }>(
    '/groups/:id/members/:user/remove',
    { schema: { params: memberParams } },
    async (request, reply) => {
      const { id, user } = request.params;
      const done = await attempt(
        () => removeMember(adminContextOf(ctx, request), id, user),
        (error, status) => renderGroup(request, reply, id, { status, error }),
      );
      if (!done.ok) return done.reply;
      return seeOther(reply, `${path(id)}?done=${done.value.removed ? 'removed' : 'not-member'}`);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/groups/:id/delete',
    { schema: { params: idParams }, config: { consoleWrite: true } },
    async (request, reply) => {
      const person = personOf(request);
      const admin = adminContextOf(ctx, request);
      const found = await attempt(
        async () => ({ group: await showGroup(admin, request.params.id), clients: await clientsLimitedTo(admin, request.params.id) }),
        (message, status) => notFound(reply, base, person, message, status),
      );
      if (!found.ok) return found.reply;
      const revision = revisionOf(editableGroup(found.value.group));
      const body = deleteGroupBody(textOf(request), base, found.value.group, found.value.clients, csrf(request), revision);
      return sendPage(reply, base, { title: textOf(request)('console.groups.deleteTitle'), section: '/groups', body }, person);
    },
  );

  app.post<{ Params: { id: string }; Body: RawParams }>('/groups/:id/delete', { schema: { params: idParams } }, async (request, reply) => {
    const person = personOf(request);
    const done = await attempt(
      () =>
        changeIfRevision(adminContextOf(ctx, request), groupGuard(request.params.id), formRevision(request), (tctx, current) =>
          deleteGroup(tctx, current.id),
        ),
      (message, status) => notFound(reply, base, person, message, status),
    );
    if (!done.ok) return done.reply;
    return seeOther(reply, `${base}/groups`);
  });
}
