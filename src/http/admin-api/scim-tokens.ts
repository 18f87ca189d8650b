// /scim-tokens: long-lived bearer tokens for SCIM provisioning (src/domain/scim/scim-tokens.ts, as `sso-admin
// scim-tokens`), for Entra's "Secret Token" and Okta's "HTTP Header" mode: list, read, create with the token shown in
// that answer only (a replay under the same Idempotency-Key never shows it), and revoke, which counts at once.
import {
  createScimToken,
  listScimTokens,
  MAX_EXPIRES_IN_DAYS,
  revokeScimToken,
  SCIM_TOKEN_NAME,
  scimTokenJson,
  showScimToken,
} from '../../domain/scim/scim-tokens.js';
import { IDEMPOTENCY_HEADERS, idempotentCreate } from './idempotency.js';
import { PAGE_QUERY_PROPERTIES, pageOf, pageSchema, type PageQuery } from './pagination.js';
import type { AdminApi, JsonSchema } from './route.js';
import { NULLABLE_DATE_TIME, DATE_TIME } from './schemas.js';

const NAME = { type: 'string', pattern: SCIM_TOKEN_NAME.source, description: 'the name the admins know the token by' } as const;
const PARAMS = { type: 'object', required: ['name'], properties: { name: NAME } } as const;
type TokenParams = { name: string };

const TOKEN_PROPERTIES = {
  name: { type: 'string' },
  created_at: DATE_TIME,
  expires_at: { ...NULLABLE_DATE_TIME, description: 'null: it does not expire' },
  last_used_at: { ...NULLABLE_DATE_TIME, description: 'to the minute; null: never used' },
  expired: { type: 'boolean' },
} as const;
const TOKEN: JsonSchema = { type: 'object', required: Object.keys(TOKEN_PROPERTIES), properties: TOKEN_PROPERTIES };
const WITH_TOKEN: JsonSchema = {
  type: 'object',
  required: Object.keys(TOKEN_PROPERTIES),
  properties: {
    ...TOKEN_PROPERTIES,
    token: { type: 'string', pattern: '^scim_', description: 'the bearer token, shown this once: only its digest is kept' },
    token_replayed_without_secret: { type: 'boolean', description: 'a replayed create: the token is not shown twice' },
  },
};

export function scimTokenRoutes(api: AdminApi): void {
  api.route({
    method: 'GET',
    url: '/scim-tokens',
    access: 'read',
    operationId: 'listScimTokens',
    summary: 'List the long-lived SCIM tokens by name: created, expires, last used; never a token.',
    tag: 'scim-tokens',
    querystring: { type: 'object', properties: { ...PAGE_QUERY_PROPERTIES } },
    response: { 200: pageSchema(TOKEN) },
    async handler(request, _reply, { ctx }) {
      const now = ctx.clock();
      const page = pageOf('scim-tokens', await listScimTokens(ctx), (t) => t.name, request.query as PageQuery);
      return { items: page.items.map((t) => scimTokenJson(t, now)), next_cursor: page.next_cursor };
    },
  });

  api.route({
    method: 'GET',
    url: '/scim-tokens/:name',
    access: 'read',
    operationId: 'getScimToken',
    summary: 'One SCIM token, never its value.',
    tag: 'scim-tokens',
    params: PARAMS,
    response: { 200: TOKEN },
    async handler(request, _reply, { ctx }) {
      return scimTokenJson(await showScimToken(ctx, (request.params as TokenParams).name), ctx.clock());
    },
  });

  api.route({
    method: 'POST',
    url: '/scim-tokens',
    access: 'write',
    operationId: 'createScimToken',
    summary: 'Make a SCIM token for a provisioning client that takes a fixed one; the token is shown in this answer only.',
    tag: 'scim-tokens',
    headers: IDEMPOTENCY_HEADERS,
    body: {
      type: 'object',
      required: ['name'],
      properties: {
        name: NAME,
        expires_in_days: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_EXPIRES_IN_DAYS,
          description: 'whole days from now; without it the token does not expire (Entra and Okta do not renew it)',
        },
      },
      // The token is generated here, never chosen by the caller.
      not: { required: ['token'] },
    },
    response: { 201: WITH_TOKEN },
    async handler(request, reply, { ctx, principal }) {
      return idempotentCreate(ctx, principal, request, reply, async () => {
        const body = request.body as { name: string; expires_in_days?: number };
        const { token, secret } = await createScimToken(ctx, {
          name: body.name,
          ...(body.expires_in_days === undefined ? {} : { expiresInDays: body.expires_in_days }),
        });
        reply.header('location', `${api.prefix}/scim-tokens/${token.name}`);
        return { status: 201, body: { ...scimTokenJson(token, ctx.clock()), token: secret }, secretFields: ['token'] };
      });
    },
  });

  api.route({
    method: 'DELETE',
    url: '/scim-tokens/:name',
    access: 'write',
    operationId: 'revokeScimToken',
    summary: 'Revoke a SCIM token: the next SCIM request with it, on any instance, is refused with 401.',
    tag: 'scim-tokens',
    params: PARAMS,
    response: {
      200: { type: 'object', required: ['name', 'revoked'], properties: { name: { type: 'string' }, revoked: { const: true } } },
    },
    async handler(request, _reply, { ctx }) {
      const { name } = request.params as TokenParams;
      await revokeScimToken(ctx, name);
      return { name, revoked: true };
    },
  });
}
