// GET /sso/security-events: stored security events as JSON for admins (ADMIN_API_TOKEN) and for clients with a
// client_credentials token granted security_events:read. RFC 6750 bearer tokens, in the Authorization header only.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import type { RawParams } from '../../domain/params.js';
import { listSecurityEvents, parseEventQuery } from '../../domain/risk/security-event-query.js';
import { SECURITY_EVENTS_SCOPE, securityEventsReader } from '../../domain/risk/security-events-access.js';
import { InvalidRequest, InvalidToken, OAuthError } from '../../errors/oauth-error.js';

/**
 * RFC 6750 3.1: "If the request lacks any authentication information (e.g., the client was unaware that
 * authentication is necessary or attempted using an unsupported authentication method), the resource server
 * SHOULD NOT include an error code or other error information" in the challenge.
 */
class BearerTokenRequired extends OAuthError {
  constructor() {
    super('invalid_token', 'a bearer access token is required', 401, {
      'www-authenticate': `Bearer realm="sso", scope="${SECURITY_EVENTS_SCOPE}"`,
    });
  }
}

/** RFC 6750 2.1: `Authorization: Bearer b64token`; the query parameter of 2.3 is refused, as it ends up in logs. */
function bearerToken(request: FastifyRequest<{ Querystring: RawParams }>): string {
  if (request.query.access_token !== undefined) throw new InvalidRequest('send the access token in the Authorization header');
  const header = request.headers.authorization?.trim();
  if (!header || !/^Bearer(\s|$)/i.test(header)) throw new BearerTokenRequired();
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header);
  if (!match?.[1]) throw new InvalidToken('the Authorization header is not a Bearer token');
  return match[1];
}

const stringParam = { type: 'string' } as const;
const querySchema = {
  type: 'object',
  properties: { user: stringParam, since: stringParam, until: stringParam, type: stringParam, limit: stringParam, cursor: stringParam },
} as const;

export default async function securityEventsRoutes(app: FastifyInstance, opts: { ctx: ProviderContext }) {
  const { ctx } = opts;
  app.get<{ Querystring: RawParams }>('/security-events', { schema: { querystring: querySchema } }, async (request, reply) => {
    // Who asks before what: without a good token, nothing is said about the parameters' values.
    await securityEventsReader(ctx, bearerToken(request));
    const page = await listSecurityEvents(ctx, parseEventQuery(request.query));
    return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(page);
  });
}
