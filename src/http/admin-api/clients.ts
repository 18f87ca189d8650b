// /clients: the registered clients (src/domain/clients/client-admin.ts), as the seed file and `sso-admin clients`
// know them. A generated secret is answered once, at creation, on rotation, or when an update makes the client
// confidential; it is never readable afterwards, nor in a replayed create (idempotency.ts).
import type { FastifyRequest } from 'fastify';
import { clientJson } from '../../domain/admin/representations.js';
import {
  createClient,
  deleteClient,
  listClientPage,
  rotateClientSecret,
  showClient,
  updateClient,
  type RegisteredClient,
} from '../../domain/clients/client-admin.js';
import type { ClientEntry } from '../../domain/client-entry.js';
import { asOneChange } from '../../domain/admin/admin.js';
import { setAdminOrganization } from '../../domain/clients/client-admin-organization.js';
import { checkIfMatch, etagOf, IF_MATCH_HEADERS, sendWithEtag } from './etag.js';
import { IDEMPOTENCY_HEADERS, idempotentCreate } from './idempotency.js';
import { PAGE_QUERY_PROPERTIES, pageSchema, readPage, type PageQuery } from './pagination.js';
import type { AdminApi, JsonSchema } from './route.js';
import { DATE_TIME, SEARCH_QUERY } from './schemas.js';

const CLIENT_ID = { type: 'string', minLength: 1, maxLength: 255 } as const;
const PARAMS = { type: 'object', required: ['client_id'], properties: { client_id: CLIENT_ID } } as const;

/** RFC 7591 2 client metadata, as the seed file takes it; the domain checks the values as a whole. */
const CLIENT_METADATA: JsonSchema = {
  client_name: { type: 'string' },
  token_endpoint_auth_method: { type: 'string' },
  redirect_uris: { type: 'array', items: { type: 'string' } },
  post_logout_redirect_uris: { type: 'array', items: { type: 'string' } },
  grant_types: { type: 'array', items: { type: 'string' } },
  response_types: { type: 'array', items: { type: 'string' } },
  scope: { type: 'string' },
  require_mfa: { type: 'boolean', description: 'its users sign in with a second factor (RFC 8176 amr mfa)' },
  allowed_groups: {
    type: 'array',
    items: { type: 'string' },
    description: 'limits sign-in to the members of these groups (by name); absent: not limited; empty: nobody',
  },
  organization_usage: {
    type: 'string',
    enum: ['none', 'allow', 'require'],
    description: 'whether its sign-ins name an organization (the organization parameter): none (default), allow, require',
  },
};

/** Issue 40: limits the client's admin:* tokens to one organization (its id or slug); null or "none" lifts it. */
const ADMIN_ORGANIZATION = {
  type: ['string', 'null'],
  minLength: 1,
  maxLength: 255,
  description: 'its admin:* tokens administer this organization only (its id or slug); null or "none": the whole provider',
} as const;

/** The body without admin_organization, and what it says of it (undefined: nothing). */
function splitAdminOrganization(body: Record<string, unknown>): [Record<string, unknown>, string | null | undefined] {
  const { admin_organization: org, ...rest } = body;
  return [rest, org as string | null | undefined];
}

const CLIENT: JsonSchema = {
  type: 'object',
  required: ['client_id', 'has_secret', 'revision', 'created_at', 'updated_at'],
  properties: {
    client_id: { type: 'string' },
    ...CLIENT_METADATA,
    has_secret: { type: 'boolean' },
    revision: { type: 'integer' },
    created_at: DATE_TIME,
    updated_at: DATE_TIME,
  },
  additionalProperties: true,
};

const WITH_SECRET: JsonSchema = {
  ...CLIENT,
  properties: {
    ...(CLIENT.properties as JsonSchema),
    client_secret: { type: 'string', description: 'shown this once' },
    client_secret_replayed_without_secret: { type: 'boolean', description: 'a replayed create: the secret is not shown twice' },
  },
};

const CREATE_BODY: JsonSchema = {
  type: 'object',
  required: ['client_id'],
  properties: { client_id: CLIENT_ID, ...CLIENT_METADATA, admin_organization: ADMIN_ORGANIZATION },
  // The secret is generated here, never chosen by the caller.
  not: { required: ['client_secret'] },
  additionalProperties: true,
};

/** JSON Merge Patch (RFC 7396): a member set to null removes the field; client_id and the secret stay as they are. */
const PATCH_BODY: JsonSchema = {
  type: 'object',
  minProperties: 1,
  properties: { client_id: CLIENT_ID, admin_organization: ADMIN_ORGANIZATION },
  not: { anyOf: [{ required: ['client_secret'] }, { required: ['client_secret_hash'] }] },
  additionalProperties: true,
};

type ClientParams = { client_id: string };

export function clientRoutes(api: AdminApi): void {
  api.route({
    method: 'GET',
    url: '/clients',
    access: 'read',
    operationId: 'listClients',
    summary: 'List the clients, by client_id; q searches client_id and client_name.',
    tag: 'clients',
    querystring: {
      type: 'object',
      properties: { ...PAGE_QUERY_PROPERTIES, q: SEARCH_QUERY, token_endpoint_auth_method: { type: 'string', maxLength: 64 } },
    },
    response: { 200: pageSchema(CLIENT) },
    async handler(request, _reply, { ctx }) {
      const query = request.query as PageQuery & { q?: string; token_endpoint_auth_method?: string };
      const filter = { text: query.q, tokenEndpointAuthMethod: query.token_endpoint_auth_method };
      const page = await readPage(
        'clients',
        query,
        (after, limit) => listClientPage(ctx, filter, after, limit),
        (c) => c.entry.client_id,
      );
      return { items: page.items.map(clientJson), next_cursor: page.next_cursor };
    },
  });

  api.route({
    method: 'GET',
    url: '/clients/:client_id',
    access: 'read',
    operationId: 'getClient',
    summary: 'One client, with its ETag.',
    tag: 'clients',
    params: PARAMS,
    response: { 200: CLIENT },
    async handler(request, reply, { ctx }) {
      return sendWithEtag(reply, clientJson(await showClient(ctx, (request.params as ClientParams).client_id)));
    },
  });

  api.route({
    method: 'POST',
    url: '/clients',
    access: 'write',
    operationId: 'createClient',
    summary: 'Register a client; a confidential one gets a generated secret, shown in this answer only.',
    tag: 'clients',
    headers: IDEMPOTENCY_HEADERS,
    body: CREATE_BODY,
    response: { 201: WITH_SECRET },
    async handler(request, reply, { ctx, principal }) {
      return idempotentCreate(ctx, principal, request, reply, async () => {
        const [entry, adminOrganization] = splitAdminOrganization(request.body as Record<string, unknown>);
        const { client, clientSecret } = await asOneChange(ctx, async (tctx) => {
          const created = await createClient(tctx, entry as unknown as ClientEntry);
          if (adminOrganization !== undefined) await setAdminOrganization(tctx, created.client.entry.client_id, adminOrganization);
          return created;
        });
        reply.header('location', `${api.prefix}/clients/${encodeURIComponent(client.entry.client_id)}`);
        const body = { ...clientJson(client), ...(clientSecret === undefined ? {} : { client_secret: clientSecret }) };
        return { status: 201, body, secretFields: ['client_secret'] };
      });
    },
  });

  api.route({
    method: 'PATCH',
    url: '/clients/:client_id',
    access: 'write',
    operationId: 'updateClient',
    summary: 'Change a client (JSON Merge Patch: null removes a field); If-Match with its ETag is required.',
    tag: 'clients',
    params: PARAMS,
    headers: IF_MATCH_HEADERS,
    body: PATCH_BODY,
    response: { 200: WITH_SECRET },
    async handler(request, reply, { ctx }) {
      const { client_id } = request.params as ClientParams;
      const [patch, adminOrganization] = splitAdminOrganization(request.body as Record<string, unknown>);
      const remove = Object.keys(patch).filter((k) => patch[k] === null);
      const set = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== null)) as Partial<ClientEntry>;
      // If-Match is checked on the row locked for the change: a change in between cannot slip past it.
      const precondition = (current: RegisteredClient) => checkIfMatch(request, clientJson(current));
      // If-Match is checked first, on the client as read before this change.
      const { client, clientSecret } = await asOneChange(ctx, async (tctx) => {
        const updated = await updateClient(tctx, client_id, { set, remove, precondition });
        if (adminOrganization === undefined) return updated;
        await setAdminOrganization(tctx, client_id, adminOrganization);
        return { ...updated, client: await showClient(tctx, client_id) };
      });
      const json = clientJson(client);
      if (clientSecret === undefined) return sendWithEtag(reply, json);
      return reply.header('etag', etagOf(json)).send({ ...json, client_secret: clientSecret });
    },
  });

  api.route({
    method: 'POST',
    url: '/clients/:client_id/secret',
    access: 'write',
    operationId: 'rotateClientSecret',
    summary: 'Replace the secret of a confidential client: the old one stops working at once; the new one is shown once.',
    tag: 'clients',
    params: PARAMS,
    response: {
      200: {
        type: 'object',
        required: ['client_id', 'client_secret', 'revision'],
        properties: { client_id: { type: 'string' }, client_secret: { type: 'string' }, revision: { type: 'integer' } },
      },
    },
    async handler(request, _reply, { ctx }) {
      const { client_id } = request.params as ClientParams;
      const { clientSecret, revision } = await rotateClientSecret(ctx, client_id);
      return { client_id, client_secret: clientSecret, revision };
    },
  });

  api.route({
    method: 'DELETE',
    url: '/clients/:client_id',
    access: 'write',
    operationId: 'deleteClient',
    summary: 'Remove a client with every code and token it holds; If-Match with its ETag is required.',
    tag: 'clients',
    params: PARAMS,
    headers: IF_MATCH_HEADERS,
    response: {
      200: {
        type: 'object',
        required: ['client_id', 'access_tokens', 'refresh_tokens', 'codes'],
        properties: {
          client_id: { type: 'string' },
          access_tokens: { type: 'integer' },
          refresh_tokens: { type: 'integer' },
          codes: { type: 'integer' },
        },
      },
    },
    async handler(request: FastifyRequest, _reply, { ctx }) {
      const { client_id } = request.params as ClientParams;
      const deleted = await deleteClient(ctx, client_id, (current) => checkIfMatch(request, clientJson(current)));
      return { client_id, access_tokens: deleted.accessTokens, refresh_tokens: deleted.refreshTokens, codes: deleted.codes };
    },
  });
}
