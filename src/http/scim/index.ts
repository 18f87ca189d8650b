// SCIM 2.0 provisioning (issue 20; RFC 7643, RFC 7644) at {BASE_URL}/scim/v2: Users, Groups and the discovery
// endpoints, for a client holding a client_credentials token with the scim scope. JSON in (application/scim+json or
// application/json) and application/scim+json out; errors as RFC 7644 3.12 bodies (error-handler.ts).
import type { FastifyInstance } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import { authenticateScim } from './call.js';
import { discoveryRoutes } from './discovery.js';
import { answerWithScimErrors } from './error-handler.js';
import { groupRoutes } from './groups.js';
import { userRoutes } from './users.js';

export { SCIM_PREFIX } from './call.js';

interface ScimOptions {
  ctx: ProviderContext;
  bodyLimit: number;
}

/** Registered at SCIM_PREFIX: SCIM error bodies for errors and unknown paths, then the endpoints. */
export default async function scimApi(app: FastifyInstance, opts: ScimOptions) {
  answerWithScimErrors(app);
  // The endpoints' hooks (authentication) stay inside: an unknown path is a 404 before anyone is asked who they are.
  await app.register(scimEndpoints, { ctx: opts.ctx, bodyLimit: opts.bodyLimit });
}

async function scimEndpoints(app: FastifyInstance, opts: ScimOptions) {
  const { ctx } = opts;
  app.decorateRequest('scimClientId', null);
  // The app parses forms only; SCIM takes JSON (RFC 7644 3.1: application/scim+json, and application/json).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    ['application/scim+json', 'application/json'],
    { parseAs: 'string', bodyLimit: opts.bodyLimit },
    app.getDefaultJsonParser('error', 'error'),
  );
  // Who asks before what: without a good token, nothing is said about the request's parameters or body.
  app.addHook('onRequest', async (request) => authenticateScim(ctx, request));
  discoveryRoutes(app, ctx);
  userRoutes(app, ctx);
  groupRoutes(app, ctx);
}
