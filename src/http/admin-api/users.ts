// /users: the people who sign in (src/domain/admin/user-admin.ts, as `sso-admin users`, `sessions` and `devices`):
// list and search, read with an ETag, create, change (JSON Merge Patch, If-Match), disable and enable, delete, set a
// password, send a reset link, end their sessions, revoke their devices, reset their second factor. A password is
// never answered; a reset link is only ever mailed to the user (the API never shows one).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ADMIN_ROLES, type AdminRoleChoice, type UserEntry } from '../../domain/user-entry.js';
import { deviceJson, sessionJson, userJson } from '../../domain/admin/representations.js';
import {
  createUser,
  deleteUser,
  disableUser,
  enableUser,
  listSessions,
  listUserDevices,
  listUserPage,
  resetLink,
  resetSecondFactor,
  revokeSessions,
  revokeUserDevices,
  roleOf,
  setPassword,
  setRole,
  showUser,
  updateUserProfile,
  type UserDetails,
} from '../../domain/admin/user-admin.js';
import { changeIfMatch, etagOf, IF_MATCH_HEADERS, type IfMatchGuard } from './etag.js';
import { editableUser } from '../etag.js';
import { IDEMPOTENCY_HEADERS, idempotentCreate } from './idempotency.js';
import { PAGE_QUERY_PROPERTIES, pageOf, pageSchema, readPage, UUID_KEY, type PageQuery } from './pagination.js';
import type { AdminApi, JsonSchema } from './route.js';
import { DATE_TIME, NULLABLE_DATE_TIME, SEARCH_QUERY } from './schemas.js';

const USER_REF = { type: 'string', minLength: 1, maxLength: 255, description: "the user's id or username" } as const;
const PARAMS = { type: 'object', required: ['user'], properties: { user: USER_REF } } as const;
type UserParams = { user: string };

const USER_PROPERTIES = {
  id: { type: 'string' },
  username: { type: 'string' },
  email: { type: ['string', 'null'] },
  email_verified: { type: 'boolean' },
  disabled: { type: 'boolean' },
  disabled_at: NULLABLE_DATE_TIME,
  created_at: DATE_TIME,
  updated_at: DATE_TIME,
} as const;
const USER_SUMMARY: JsonSchema = { type: 'object', required: Object.keys(USER_PROPERTIES), properties: USER_PROPERTIES };
const USER_DETAILS: JsonSchema = {
  type: 'object',
  required: [...Object.keys(USER_PROPERTIES), 'claims', 'live_sessions', 'devices', 'authenticator_app'],
  properties: {
    ...USER_PROPERTIES,
    claims: { type: 'object', additionalProperties: true, description: 'the OIDC Core 5.1 claims kept beside username and email' },
    live_sessions: { type: 'integer' },
    devices: { type: 'integer' },
    authenticator_app: { type: 'boolean' },
    role: { enum: ADMIN_ROLES, description: 'the console role (admin: everything; auditor: read only)' },
    groups: { type: 'array', items: { type: 'string' }, description: 'the names of their groups here' },
  },
};
const SESSION: JsonSchema = {
  type: 'object',
  properties: {
    kind: {
      enum: ['browser', 'console'],
      description: 'browser: signed in at the provider (sid is its sid claim); console: signed in to the web console.',
    },
    sid: { type: 'string' },
    created_at: DATE_TIME,
    auth_time: DATE_TIME,
    expires_at: DATE_TIME,
    last_seen_at: { ...NULLABLE_DATE_TIME, description: 'When a console session was last used; null for a browser session.' },
    amr: { type: 'array', items: { type: 'string' } },
    device_id: { type: ['string', 'null'] },
    device: { type: ['string', 'null'] },
    clients: { type: 'array', items: { type: 'string' } },
  },
};
const DEVICE: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    label: { type: 'string' },
    first_seen_at: DATE_TIME,
    last_seen_at: DATE_TIME,
    sign_ins: { type: 'integer' },
    trusted: { type: 'boolean' },
  },
};
const ENDED: JsonSchema = {
  type: 'object',
  required: ['user', 'sessions_ended', 'logouts_queued'],
  properties: { user: USER_SUMMARY, sessions_ended: { type: 'integer' }, logouts_queued: { type: 'integer' } },
};
const ROLE: JsonSchema = {
  type: 'object',
  required: ['user', 'role'],
  properties: { user: USER_SUMMARY, role: { enum: ADMIN_ROLES }, previous: { enum: ADMIN_ROLES }, changed: { type: 'boolean' } },
};
const PASSWORD = { type: 'string', minLength: 1, maxLength: 256 } as const;

const detailsJson = (u: UserDetails) => ({
  ...userJson(u),
  claims: u.claims,
  live_sessions: u.liveSessions,
  devices: u.devices,
  authenticator_app: u.authenticatorApp,
  role: u.role,
  groups: u.groups,
});
const sendUser = (reply: FastifyReply, u: UserDetails, status = 200) =>
  reply.code(status).header('etag', etagOfUser(u)).send(detailsJson(u));
const etagOfUser = (u: UserDetails) => etagOf(editableUser(u));

/** The user of the path, locked for a change under If-Match (etag.ts changeIfMatch). */
const userGuard = (request: FastifyRequest): IfMatchGuard<UserDetails> => ({
  read: (ctx) => showUser(ctx, (request.params as UserParams).user),
  lock: (u) => ({ type: 'user', id: u.id }),
  tagged: editableUser,
});

export function userRoutes(api: AdminApi): void {
  api.route({
    method: 'GET',
    url: '/users',
    access: 'read',
    operationId: 'listUsers',
    summary: 'List the users, by id; q searches username and email; disabled filters.',
    tag: 'users',
    querystring: { type: 'object', properties: { ...PAGE_QUERY_PROPERTIES, q: SEARCH_QUERY, disabled: { type: 'boolean' } } },
    response: { 200: pageSchema(USER_SUMMARY) },
    async handler(request, _reply, { ctx }) {
      const query = request.query as PageQuery & { q?: string; disabled?: boolean };
      const filter = { text: query.q, disabled: query.disabled };
      const page = await readPage(
        'users',
        query,
        (after, limit) => listUserPage(ctx, filter, after, limit),
        (u) => u.id,
        UUID_KEY,
      );
      return { items: page.items.map(userJson), next_cursor: page.next_cursor };
    },
  });

  api.route({
    method: 'GET',
    url: '/users/:user',
    access: 'read',
    operationId: 'getUser',
    summary: 'One user, with claims, live sessions, devices and authenticator app; with its ETag.',
    tag: 'users',
    params: PARAMS,
    response: { 200: USER_DETAILS },
    async handler(request, reply, { ctx }) {
      return sendUser(reply, await showUser(ctx, (request.params as UserParams).user));
    },
  });

  api.route({
    method: 'POST',
    url: '/users',
    access: 'write',
    operationId: 'createUser',
    summary: 'Create a user, checked as the seed file checks one (the password policy included).',
    tag: 'users',
    headers: IDEMPOTENCY_HEADERS,
    body: {
      type: 'object',
      required: ['username', 'password'],
      properties: {
        username: { type: 'string', minLength: 1, maxLength: 255 },
        password: PASSWORD,
        email: { type: 'string' },
        email_verified: { type: 'boolean' },
      },
      additionalProperties: true,
    },
    response: { 201: USER_DETAILS },
    async handler(request, reply, { ctx, principal }) {
      return idempotentCreate(ctx, principal, request, reply, async () => {
        const created = await createUser(ctx, request.body as UserEntry);
        const user = await showUser(ctx, created.id);
        reply.header('location', `${api.prefix}/users/${created.id}`).header('etag', etagOfUser(user));
        return { status: 201, body: detailsJson(user) };
      });
    },
  });

  api.route({
    method: 'PATCH',
    url: '/users/:user',
    access: 'write',
    operationId: 'updateUser',
    summary: 'Change username, email or claims (JSON Merge Patch: null removes a claim); If-Match with its ETag is required.',
    tag: 'users',
    params: PARAMS,
    headers: IF_MATCH_HEADERS,
    body: {
      type: 'object',
      minProperties: 1,
      not: { anyOf: [{ required: ['password'] }, { required: ['id'] }] },
      additionalProperties: true,
    },
    response: { 200: USER_DETAILS },
    async handler(request, reply, { ctx }) {
      const changed = await changeIfMatch(request, ctx, userGuard(request), (tctx, user) =>
        updateUserProfile(tctx, user.id, request.body as Record<string, unknown>),
      );
      return sendUser(reply, changed);
    },
  });

  api.route({
    method: 'DELETE',
    url: '/users/:user',
    access: 'write',
    operationId: 'deleteUser',
    summary: 'Delete the user and everything of theirs, ending their sessions (back-channel logouts); If-Match required.',
    tag: 'users',
    params: PARAMS,
    headers: IF_MATCH_HEADERS,
    response: { 200: ENDED },
    async handler(request, _reply, { ctx }) {
      const done = await changeIfMatch(request, ctx, userGuard(request), (tctx, user) => deleteUser(tctx, user.id));
      return { user: userJson(done.user), sessions_ended: done.sessionsEnded, logouts_queued: done.logoutsQueued };
    },
  });

  api.route({
    method: 'POST',
    url: '/users/:user/disable',
    access: 'write',
    operationId: 'disableUser',
    summary: 'Disable the user: their sessions end and everything issued to them is revoked.',
    tag: 'users',
    params: PARAMS,
    response: {
      200: {
        type: 'object',
        required: ['user'],
        properties: {
          user: USER_SUMMARY,
          already_disabled: { type: 'boolean' },
          sessions_ended: { type: 'integer' },
          logouts_queued: { type: 'integer' },
          codes_revoked: { type: 'integer' },
          refresh_tokens_revoked: { type: 'integer' },
          access_tokens_revoked: { type: 'integer' },
        },
      },
    },
    async handler(request, _reply, { ctx }) {
      const done = await disableUser(ctx, (request.params as UserParams).user);
      return {
        user: userJson(done.user),
        already_disabled: done.alreadyDisabled,
        sessions_ended: done.sessionsEnded,
        logouts_queued: done.logoutsQueued,
        codes_revoked: done.codesRevoked,
        refresh_tokens_revoked: done.refreshTokensRevoked,
        access_tokens_revoked: done.accessTokensRevoked,
      };
    },
  });

  api.route({
    method: 'POST',
    url: '/users/:user/enable',
    access: 'write',
    operationId: 'enableUser',
    summary: 'Let a disabled user sign in again (what was revoked stays revoked).',
    tag: 'users',
    params: PARAMS,
    response: { 200: { type: 'object', required: ['user', 'changed'], properties: { user: USER_SUMMARY, changed: { type: 'boolean' } } } },
    async handler(request, _reply, { ctx }) {
      const done = await enableUser(ctx, (request.params as UserParams).user);
      return { user: userJson(done.user), changed: done.changed };
    },
  });

  api.route({
    method: 'PUT',
    url: '/users/:user/password',
    access: 'write',
    operationId: 'setUserPassword',
    summary: "Replace the user's password (the password policy applies); it is never answered nor recorded.",
    tag: 'users',
    params: PARAMS,
    body: { type: 'object', required: ['password'], properties: { password: PASSWORD }, additionalProperties: false },
    response: {
      200: { type: 'object', required: ['user', 'password_set'], properties: { user: USER_SUMMARY, password_set: { type: 'boolean' } } },
    },
    async handler(request, _reply, { ctx }) {
      const user = await setPassword(ctx, (request.params as UserParams).user, (request.body as { password: string }).password);
      return { user: userJson(user), password_set: true };
    },
  });

  api.route({
    method: 'POST',
    url: '/users/:user/reset-link',
    access: 'write',
    operationId: 'sendUserResetLink',
    summary: 'Mail the user a password reset link (valid PASSWORD_RESET_TTL_SECONDS); the link itself is never answered.',
    tag: 'users',
    params: PARAMS,
    response: { 202: { type: 'object', required: ['user', 'sent'], properties: { user: USER_SUMMARY, sent: { type: 'boolean' } } } },
    async handler(request, reply, { ctx }) {
      const done = await resetLink(ctx, (request.params as UserParams).user, true);
      return reply.code(202).send({ user: userJson(done.user), sent: true });
    },
  });

  api.route({
    method: 'DELETE',
    url: '/users/:user/second-factor',
    access: 'write',
    operationId: 'resetUserSecondFactor',
    summary: "Remove the user's authenticator app, for a person who lost it; passkeys stay.",
    tag: 'users',
    params: PARAMS,
    response: { 200: { type: 'object', required: ['user', 'removed'], properties: { user: USER_SUMMARY, removed: { type: 'boolean' } } } },
    async handler(request, _reply, { ctx }) {
      const done = await resetSecondFactor(ctx, (request.params as UserParams).user);
      return { user: userJson(done.user), removed: done.removed };
    },
  });

  api.route({
    method: 'GET',
    url: '/users/:user/sessions',
    access: 'read',
    operationId: 'listUserSessions',
    summary: "The user's live sessions.",
    tag: 'sessions',
    params: PARAMS,
    querystring: { type: 'object', properties: PAGE_QUERY_PROPERTIES },
    response: { 200: pageSchema(SESSION) },
    async handler(request, _reply, { ctx }) {
      const { sessions } = await listSessions(ctx, (request.params as UserParams).user);
      const page = pageOf('sessions', sessions, (s) => s.sid, request.query as PageQuery);
      return { items: page.items.map(sessionJson), next_cursor: page.next_cursor };
    },
  });

  api.route({
    method: 'DELETE',
    url: '/users/:user/sessions',
    access: 'write',
    operationId: 'revokeUserSessions',
    summary: 'Sign the user out everywhere, console sessions too (back-channel logouts queued); tokens already issued stay.',
    tag: 'sessions',
    params: PARAMS,
    response: { 200: ENDED },
    async handler(request, _reply, { ctx }) {
      const done = await revokeSessions(ctx, (request.params as UserParams).user);
      const ended = done.endedSids.length + done.consoleSessionsEnded;
      return { user: userJson(done.user), sessions_ended: ended, logouts_queued: done.logoutsQueued };
    },
  });

  api.route({
    method: 'GET',
    url: '/users/:user/devices',
    access: 'read',
    operationId: 'listUserDevices',
    summary: "The user's devices that are not revoked.",
    tag: 'devices',
    params: PARAMS,
    querystring: { type: 'object', properties: PAGE_QUERY_PROPERTIES },
    response: { 200: pageSchema(DEVICE) },
    async handler(request, _reply, { ctx }) {
      const { devices } = await listUserDevices(ctx, (request.params as UserParams).user);
      const page = pageOf('devices', devices, (d) => d.id, request.query as PageQuery);
      return { items: page.items.map(deviceJson), next_cursor: page.next_cursor };
    },
  });

  const REVOKED: JsonSchema = {
    type: 'object',
    required: ['user', 'revoked'],
    properties: {
      user: USER_SUMMARY,
      revoked: {
        type: 'array',
        items: {
          type: 'object',
          properties: { id: { type: 'string' }, sessions_ended: { type: 'integer' }, logouts_queued: { type: 'integer' } },
        },
      },
    },
  };
  const revokedJson = (done: Awaited<ReturnType<typeof revokeUserDevices>>) => ({
    user: userJson(done.user),
    revoked: done.revoked.map((d) => ({ id: d.id, sessions_ended: d.endedSids.length, logouts_queued: d.logoutsQueued })),
  });

  api.route({
    method: 'DELETE',
    url: '/users/:user/devices/:device_id',
    access: 'write',
    operationId: 'revokeUserDevice',
    summary: "Revoke one of the user's devices: its sessions end and the tokens issued through them are revoked.",
    tag: 'devices',
    params: {
      type: 'object',
      required: ['user', 'device_id'],
      properties: { user: USER_REF, device_id: { type: 'string', minLength: 1, maxLength: 64 } },
    },
    response: { 200: REVOKED },
    async handler(request, _reply, { ctx }) {
      const { user, device_id } = request.params as UserParams & { device_id: string };
      return revokedJson(await revokeUserDevices(ctx, user, device_id));
    },
  });

  api.route({
    method: 'DELETE',
    url: '/users/:user/devices',
    access: 'write',
    operationId: 'revokeUserDevices',
    summary: "Revoke every device of the user's.",
    tag: 'devices',
    params: PARAMS,
    response: { 200: REVOKED },
    async handler(request, _reply, { ctx }) {
      return revokedJson(await revokeUserDevices(ctx, (request.params as UserParams).user));
    },
  });

  api.route({
    method: 'GET',
    url: '/users/:user/role',
    access: 'read',
    operationId: 'getUserRole',
    summary: "The user's console role: admin, auditor or none.",
    tag: 'users',
    params: PARAMS,
    response: { 200: ROLE },
    async handler(request, _reply, { ctx }) {
      const { user, role } = await roleOf(ctx, (request.params as UserParams).user);
      return { user: userJson(user), role };
    },
  });

  api.route({
    method: 'PUT',
    url: '/users/:user/role',
    access: 'write',
    operationId: 'setUserRole',
    summary: 'Give the user a console role (admin: everything; auditor: read only), or take theirs away (none).',
    tag: 'users',
    params: PARAMS,
    body: { type: 'object', required: ['role'], properties: { role: { enum: ADMIN_ROLES } }, additionalProperties: false },
    response: { 200: ROLE },
    async handler(request, _reply, { ctx }) {
      const done = await setRole(ctx, (request.params as UserParams).user, (request.body as { role: AdminRoleChoice }).role);
      return { user: userJson(done.user), role: done.role, previous: done.previous, changed: done.changed };
    },
  });
}
