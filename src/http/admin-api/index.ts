// The management API (issue 20) at {BASE_URL}/admin/api/v1: JSON in and out, every caller authenticated before
// anything else (authenticate.ts), errors as RFC 9457 problem details (error-handler.ts), and an OpenAPI 3.1
// document made from the routes' own schemas. A resource is one module in RESOURCES.
import type { FastifyInstance } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import { auditRoutes } from './audit.js';
import { answerWithProblems } from './error-handler.js';
import { authenticate, type PersonPrincipal } from './authenticate.js';
import { clientRoutes } from './clients.js';
import { connectionRoutes } from './connections.js';
import { samlServiceProviderRoutes } from './saml-service-providers.js';
import { groupRoutes } from './groups.js';
import { openApiRoute } from './openapi.js';
import { organizationInvitationRoutes } from './organization-invitations.js';
import { organizationDomainVerifyRoutes } from './organization-domains-verify.js';
import { organizationRoutes } from './organizations.js';
import { resourceServerRoutes } from './resource-servers.js';
import { AdminApi, type AdminResource } from './route.js';
import { ruleRoutes } from './rules.js';
import { scimTokenRoutes } from './scim-tokens.js';
import { securityEventRoutes } from './security-events.js';
import { signingKeyRoutes } from './signing-keys.js';
import { userRoutes } from './users.js';
import { webhookRoutes } from './webhooks.js';

/** Where the API's errors, and its unknown paths, are problem details: every version of the API. */
export const ADMIN_API_ROOT = '/admin/api';
const VERSION = '/v1';
export const ADMIN_API_PREFIX = `${ADMIN_API_ROOT}${VERSION}`;

/** Every resource of the API, in the order of the OpenAPI document; a new one is added here. */
export const RESOURCES: readonly AdminResource[] = [
  clientRoutes,
  userRoutes,
  groupRoutes,
  ruleRoutes,
  securityEventRoutes,
  signingKeyRoutes,
  resourceServerRoutes,
  connectionRoutes,
  samlServiceProviderRoutes,
  webhookRoutes,
  scimTokenRoutes,
  organizationInvitationRoutes,
  organizationDomainVerifyRoutes,
  organizationRoutes,
  auditRoutes,
];

/** JSON bodies only (RFC 8259), and JSON Merge Patch (RFC 7396) for PATCH. */
const JSON_TYPES = ['application/json', 'application/merge-patch+json'];

export interface AdminApiOptions {
  ctx: ProviderContext;
  person?: PersonPrincipal;
  bodyLimit: number;
}

/** Registered at ADMIN_API_ROOT: problem details for errors and unknown paths, then the API's version. */
export default async function adminApi(app: FastifyInstance, opts: AdminApiOptions) {
  answerWithProblems(app);
  // The version's hooks (authentication) stay inside it: an unknown path is a 404 before anyone is asked who they are.
  await app.register(adminApiVersion, { ...opts, prefix: VERSION });
}

async function adminApiVersion(app: FastifyInstance, opts: AdminApiOptions) {
  const { ctx } = opts;
  app.decorateRequest('adminPrincipal', null);
  // The app parses forms only; this API takes JSON only.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_TYPES, { parseAs: 'string', bodyLimit: opts.bodyLimit }, app.getDefaultJsonParser('error', 'error'));
  // Who asks before what: without a good token, nothing is said about the request's parameters or body.
  app.addHook('onRequest', async (request) => authenticate(ctx, request, opts.person));

  const api = new AdminApi(app, ctx, ADMIN_API_PREFIX);
  for (const resource of RESOURCES) resource(api);
  openApiRoute(api);
}
