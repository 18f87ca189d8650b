// The protocol endpoints (OAuth 2.0, OpenID Connect and their extensions) at {BASE_URL}/sso: JSON errors as RFC 6749
// 5.2 says, or a page where the endpoint is a browser's (the authorization and end-session endpoints mark it html).
import type { FastifyInstance } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import { oauthErrorHandler } from '../plugins/error-handler.js';
import authorizeRoutes from './authorize.js';
import deviceAuthorizationRoutes from './device-authorization.js';
import discoveryRoutes from './discovery.js';
import endSessionRoutes from './end-session.js';
import introspectionRoutes from './introspection.js';
import jwksRoutes from './jwks.js';
import parRoutes from './par.js';
import registrationRoutes from './registration.js';
import revocationRoutes from './revocation.js';
import securityEventsRoutes from './security-events.js';
import tokenRoutes from './token.js';
import userinfoRoutes from './userinfo.js';

export interface ProtocolOptions {
  ctx: ProviderContext;
  /** Sessions ended at the end-session endpoint queued back-channel logouts: deliver them now. */
  onLogoutsQueued: () => void;
}

export default async function protocolRoutes(app: FastifyInstance, opts: ProtocolOptions) {
  const { ctx } = opts;
  const { config } = ctx;
  app.setErrorHandler(oauthErrorHandler(config));
  await app.register(discoveryRoutes, { config });
  await app.register(jwksRoutes, { keys: ctx.keys });
  await app.register(authorizeRoutes, { ctx });
  await app.register(tokenRoutes, { ctx });
  await app.register(userinfoRoutes, { ctx });
  await app.register(revocationRoutes, { ctx });
  await app.register(introspectionRoutes, { ctx });
  await app.register(endSessionRoutes, { ctx, onLogoutsQueued: opts.onLogoutsQueued });
  await app.register(deviceAuthorizationRoutes, { ctx });
  await app.register(parRoutes, { ctx });
  // RFC 7591 / RFC 7592: off (404) unless REGISTRATION_OPEN or REGISTRATION_INITIAL_ACCESS_TOKEN says otherwise.
  if (config.registration.enabled) await app.register(registrationRoutes, { ctx });
  await app.register(securityEventsRoutes, { ctx });
}
