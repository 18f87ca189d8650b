// GET /connections/:id/callback: the redirect URI registered upstream ({issuer}/connections/{id}/callback). The state
// is used up, the code redeemed and the ID token verified (src/domain/connections/upstream-login.ts); then what an
// upstream's word leads to (upstream-arrival.ts). Each refusal is a page with its status.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { enabledConnection } from '../../domain/connections/connections.js';
import type { UpstreamDirectory } from '../../domain/connections/upstream-directory.js';
import { UpstreamRefusal } from '../../domain/connections/upstream-errors.js';
import { finishUpstreamLogin } from '../../domain/connections/upstream-login.js';
import type { ProviderContext } from '../../domain/context.js';
import { upstreamCookie } from '../cookies.js';
import { connectionIdParams } from './connection-params.js';
import { upstreamArrival } from './upstream-arrival.js';

// RFC 6749 4.1.2 and 4.1.2.1, RFC 9207 2: the members of the response; a repeated one is not a string and is refused.
const querySchema = {
  type: 'object',
  properties: {
    state: { type: 'string', maxLength: 512 },
    code: { type: 'string', maxLength: 4096 },
    iss: { type: 'string', maxLength: 512 },
    error: { type: 'string', maxLength: 256 },
    error_description: { type: 'string', maxLength: 2048 },
  },
} as const;

interface Query {
  state?: string;
  code?: string;
  iss?: string;
  error?: string;
}

export default async function connectionCallbackRoutes(app: FastifyInstance, opts: { ctx: ProviderContext; directory: UpstreamDirectory }) {
  const { ctx, directory } = opts;
  const arriveAfter = upstreamArrival(ctx);

  app.get<{ Params: { id: string }; Querystring: Query }>(
    '/connections/:id/callback',
    { schema: { params: connectionIdParams, querystring: querySchema }, config: { html: true } },
    async (request: FastifyRequest<{ Params: { id: string }; Querystring: Query }>, reply: FastifyReply) => {
      const connectionId = request.params.id;
      return arriveAfter(request, reply, connectionId, async () => {
        const connection = await enabledConnection(ctx, connectionId);
        if (!connection) throw new UpstreamRefusal('unknown-connection', `no enabled connection ${connectionId}`);
        const browserSecret = request.cookies[upstreamCookie(ctx.config).name];
        const { identity, purpose, tokens } = await finishUpstreamLogin(ctx, directory, {
          connection,
          params: request.query,
          browserSecret,
        });
        return { connection, identity, purpose, tokens, browserSecret };
      });
    },
  );
}
