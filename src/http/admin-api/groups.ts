// /groups: groups of users (src/domain/groups/group-admin.ts, as `sso-admin groups`): list by name with a cursor,
// read with an ETag, create (Idempotency-Key), change by JSON Merge Patch or replace whole (If-Match), delete
// (If-Match), and their members. A group is named in the path by its id or its name (any case).
import type { FastifyRequest } from 'fastify';
import { groupJson, memberJson } from '../../domain/admin/representations.js';
import {
  addMember,
  createGroup,
  deleteGroup,
  listGroups,
  listMembers,
  removeMember,
  showGroup,
  updateGroup,
  type GroupSummary,
} from '../../domain/groups/group-admin.js';
import { changeIfMatch, etagOf, IF_MATCH_HEADERS, type IfMatchGuard } from './etag.js';
import { editableGroup } from '../etag.js';
import { IDEMPOTENCY_HEADERS, idempotentCreate } from './idempotency.js';
import { PAGE_QUERY_PROPERTIES, pageOf, pageSchema, type PageQuery } from './pagination.js';
import type { AdminApi, JsonSchema } from './route.js';
import { DATE_TIME, includesText, SEARCH_QUERY } from './schemas.js';

const GROUP_REF = { type: 'string', minLength: 1, maxLength: 255, description: "the group's id or name (any case)" } as const;
const USER_REF = { type: 'string', minLength: 1, maxLength: 255, description: "the user's id or username" } as const;
const PARAMS = { type: 'object', required: ['group'], properties: { group: GROUP_REF } } as const;
const MEMBER_PARAMS = { type: 'object', required: ['group', 'user'], properties: { group: GROUP_REF, user: USER_REF } } as const;
type GroupParams = { group: string };
type MemberParams = { group: string; user: string };

const GROUP_PROPERTIES = {
  id: { type: 'string' },
  name: { type: 'string' },
  description: { type: ['string', 'null'] },
  members: { type: 'integer', description: 'how many users are in it' },
  created_at: DATE_TIME,
  updated_at: DATE_TIME,
} as const;
const GROUP: JsonSchema = { type: 'object', required: Object.keys(GROUP_PROPERTIES), properties: GROUP_PROPERTIES };
const MEMBER: JsonSchema = {
  type: 'object',
  required: ['id', 'username', 'email', 'added_at'],
  properties: { id: { type: 'string' }, username: { type: 'string' }, email: { type: ['string', 'null'] }, added_at: DATE_TIME },
};
/** The name and description are checked by the domain (group-names.ts), which names the rule a value breaks. */
const NAME = { type: 'string', minLength: 1, maxLength: 255 } as const;
const DESCRIPTION = { type: ['string', 'null'], maxLength: 1000 } as const;
const MEMBERSHIP: JsonSchema = {
  type: 'object',
  required: ['group', 'username'],
  properties: { group: { type: 'string' }, username: { type: 'string' }, added: { type: 'boolean' }, removed: { type: 'boolean' } },
};

const etagOfGroup = (g: GroupSummary) => etagOf(editableGroup(g));

/** The group of the path, locked for a change under If-Match (etag.ts changeIfMatch). */
const groupGuard = (request: FastifyRequest): IfMatchGuard<GroupSummary> => ({
  read: (ctx) => showGroup(ctx, (request.params as GroupParams).group),
  lock: (g) => ({ type: 'group', id: g.id }),
  tagged: editableGroup,
});

export function groupRoutes(api: AdminApi): void {
  api.route({
    method: 'GET',
    url: '/groups',
    access: 'read',
    operationId: 'listGroups',
    summary: 'List the groups, by name; name finds one by its name (any case), q searches names and descriptions.',
    tag: 'groups',
    querystring: { type: 'object', properties: { ...PAGE_QUERY_PROPERTIES, name: NAME, q: SEARCH_QUERY } },
    response: { 200: pageSchema(GROUP) },
    async handler(request, _reply, { ctx }) {
      const query = request.query as PageQuery & { name?: string; q?: string };
      const named = (g: GroupSummary) => query.name === undefined || g.name.toLowerCase() === query.name.toLowerCase();
      const all = (await listGroups(ctx)).filter((g) => named(g) && includesText([g.name, g.description], query.q));
      // Names are unique in any case: the lowercase name orders the pages and continues them.
      const page = pageOf('groups', all, (g) => g.name.toLowerCase(), query);
      return { items: page.items.map(groupJson), next_cursor: page.next_cursor };
    },
  });

  api.route({
    method: 'GET',
    url: '/groups/:group',
    access: 'read',
    operationId: 'getGroup',
    summary: 'One group, with its number of members and its ETag.',
    tag: 'groups',
    params: PARAMS,
    response: { 200: GROUP },
    async handler(request, reply, { ctx }) {
      const group = await showGroup(ctx, (request.params as GroupParams).group);
      return reply.header('etag', etagOfGroup(group)).send(groupJson(group));
    },
  });

  api.route({
    method: 'POST',
    url: '/groups',
    access: 'write',
    operationId: 'createGroup',
    summary: 'Create a group; its name is unique in any case and is what the groups claim says of its members.',
    tag: 'groups',
    headers: IDEMPOTENCY_HEADERS,
    body: { type: 'object', required: ['name'], properties: { name: NAME, description: DESCRIPTION }, additionalProperties: false },
    response: { 201: GROUP },
    async handler(request, reply, { ctx, principal }) {
      return idempotentCreate(ctx, principal, request, reply, async () => {
        const body = request.body as { name: string; description?: string | null };
        const group = await createGroup(ctx, { name: body.name, description: body.description ?? null });
        reply.header('location', `${api.prefix}/groups/${group.id}`).header('etag', etagOfGroup(group));
        return { status: 201, body: groupJson(group) };
      });
    },
  });

  api.route({
    method: 'PATCH',
    url: '/groups/:group',
    access: 'write',
    operationId: 'updateGroup',
    summary: 'Rename a group or change its description (JSON Merge Patch: null removes it); If-Match is required.',
    tag: 'groups',
    params: PARAMS,
    headers: IF_MATCH_HEADERS,
    body: { type: 'object', minProperties: 1, properties: { name: NAME, description: DESCRIPTION }, additionalProperties: false },
    response: { 200: GROUP },
    async handler(request, reply, { ctx }) {
      const { group } = await changeIfMatch(request, ctx, groupGuard(request), (tctx, current) =>
        updateGroup(tctx, current.id, request.body as { name?: string; description?: string | null }),
      );
      return reply.header('etag', etagOfGroup(group)).send(groupJson(group));
    },
  });

  api.route({
    method: 'PUT',
    url: '/groups/:group',
    access: 'write',
    operationId: 'replaceGroup',
    summary: 'Replace a group whole: its name, and its description (none when left out); If-Match is required.',
    tag: 'groups',
    params: PARAMS,
    headers: IF_MATCH_HEADERS,
    body: { type: 'object', required: ['name'], properties: { name: NAME, description: DESCRIPTION }, additionalProperties: false },
    response: { 200: GROUP },
    async handler(request, reply, { ctx }) {
      const body = request.body as { name: string; description?: string | null };
      const { group } = await changeIfMatch(request, ctx, groupGuard(request), (tctx, current) =>
        updateGroup(tctx, current.id, { name: body.name, description: body.description ?? null }),
      );
      return reply.header('etag', etagOfGroup(group)).send(groupJson(group));
    },
  });

  api.route({
    method: 'DELETE',
    url: '/groups/:group',
    access: 'write',
    operationId: 'deleteGroup',
    summary: 'Delete a group and its memberships; a client limited to it keeps its other groups. If-Match is required.',
    tag: 'groups',
    params: PARAMS,
    headers: IF_MATCH_HEADERS,
    response: { 200: GROUP },
    async handler(request, _reply, { ctx }) {
      return groupJson(await changeIfMatch(request, ctx, groupGuard(request), (tctx, current) => deleteGroup(tctx, current.id)));
    },
  });

  api.route({
    method: 'GET',
    url: '/groups/:group/members',
    access: 'read',
    operationId: 'listGroupMembers',
    summary: 'The members of a group, by username.',
    tag: 'groups',
    params: PARAMS,
    querystring: { type: 'object', properties: PAGE_QUERY_PROPERTIES },
    response: { 200: pageSchema(MEMBER) },
    async handler(request, _reply, { ctx }) {
      const { members } = await listMembers(ctx, (request.params as GroupParams).group);
      const page = pageOf('group-members', members, (m) => m.username, request.query as PageQuery);
      return { items: page.items.map(memberJson), next_cursor: page.next_cursor };
    },
  });

  api.route({
    method: 'PUT',
    url: '/groups/:group/members/:user',
    access: 'write',
    operationId: 'addGroupMember',
    summary: 'Add a user to a group: 201 when added, 200 when they were a member already (nothing written).',
    tag: 'groups',
    params: MEMBER_PARAMS,
    response: { 200: MEMBERSHIP, 201: MEMBERSHIP },
    async handler(request, reply, { ctx }) {
      const { group, user } = request.params as MemberParams;
      const done = await addMember(ctx, group, user);
      return reply.code(done.added ? 201 : 200).send(done);
    },
  });

  api.route({
    method: 'DELETE',
    url: '/groups/:group/members/:user',
    access: 'write',
    operationId: 'removeGroupMember',
    summary: 'Remove a user from a group (removed is false when they were not in it); what was issued to them stays valid.',
    tag: 'groups',
    params: MEMBER_PARAMS,
    response: { 200: MEMBERSHIP },
    async handler(request, _reply, { ctx }) {
      const { group, user } = request.params as MemberParams;
      return removeMember(ctx, group, user);
    },
  });
}
