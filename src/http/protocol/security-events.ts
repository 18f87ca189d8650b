// GET /sso/security-events: stored security events as JSON for admins (ADMIN_API_TOKEN) and for clients with a
// client_credentials token granted security_events:read. RFC 6750 bearer tokens, in the Authorization header only.
import type { FastifyInstance } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import type { RawParams } from '../../domain/params.js';
import { listSecurityEvents, parseEventQuery } from '../../domain/risk/security-event-query.js';
import { SECURITY_EVENTS_SCOPE, securityEventsReader } from '../../domain/risk/security-events-access.js';
import { bearerToken } from '../bearer-token.js';

const stringParam = { type: 'string' } as const;
const querySchema = {
  type: 'object',
  properties: { user: stringParam, since: stringParam, until: stringParam, type: stringParam, limit: stringParam, cursor: stringParam },
} as const;

export default async function securityEventsRoutes(app: FastifyInstance, opts: { ctx: ProviderContext }) {
  const { ctx } = opts;
  app.get<{ Querystring: RawParams }>('/security-events', { schema: { querystring: querySchema } }, async (request, reply) => {
    // Who asks before what: without a good token, nothing is said about the parameters' values.
    await securityEventsReader(ctx, bearerToken(request, SECURITY_EVENTS_SCOPE));
    const page = await listSecurityEvents(ctx, parseEventQuery(request.query));
    return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(page);
  });
}
