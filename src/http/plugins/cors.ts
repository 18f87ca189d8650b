// CORS for browser-based clients (single-page apps) on the endpoints they call with a bearer token or with
// credentials in the body: discovery, JWKS, token, userinfo, revocation, introspection. Never on the
// authorization endpoint or the sign-in and consent pages, which browsers reach by navigation only.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ROUTES_PREFIX } from '../../config.js';

/** The exact paths that answer cross-origin requests; every other path sends no CORS header at all. */
export const CORS_PATHS: readonly string[] = [
  '/.well-known/openid-configuration',
  '/jwks',
  '/token',
  '/userinfo',
  '/revoke',
  '/introspect',
].map((endpoint) => `${ROUTES_PREFIX}${endpoint}`);

/** How long a browser may cache a preflight answer (browsers cap it lower: Chromium at 2 hours). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

export default fp(
  async function cors(app: FastifyInstance, opts: { paths?: readonly string[] }) {
    const paths = new Set(opts.paths ?? CORS_PATHS);

    // These endpoints read no cookie: a request proves itself with what it carries (client credentials, a
    // bearer token), so any origin may call them. The wildcard also keeps browsers from sending cookies
    // (Fetch: "*" does not combine with credentials), and Access-Control-Allow-Credentials is never sent.
    app.addHook('onRequest', async (request, reply) => {
      if (!paths.has(request.url.split('?', 1)[0]!)) return;
      reply.header('access-control-allow-origin', '*');
      reply.header('access-control-expose-headers', 'WWW-Authenticate, Retry-After, DPoP-Nonce');
    });

    for (const url of paths) {
      // The preflight (Fetch "CORS-preflight request"): Authorization for bearer tokens and Basic client
      // authentication, Content-Type for form bodies; GET and POST are the only methods these endpoints take.
      app.options(url, async (_request, reply) =>
        reply
          .code(204)
          .header('access-control-allow-methods', 'GET, POST')
          .header('access-control-allow-headers', 'Authorization, Content-Type')
          .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS))
          .send(),
      );
    }
  },
  { name: 'cors' },
);
