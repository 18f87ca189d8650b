// The UserInfo endpoint (OIDC Core 5.3), GET and POST, with an RFC 6750 bearer token.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import { single, type RawParams } from '../../domain/params.js';
import { userinfo } from '../../domain/tokens/userinfo.js';
import { InvalidRequest, InvalidToken } from '../../errors/oauth-error.js';

/** RFC 6750 2.1 (header) or 2.2 (form body, POST only), never both: "MUST NOT use more than one method". */
function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const body = request.method === 'POST' && request.body && typeof request.body === 'object' ? (request.body as RawParams) : {};
  const fromBody = single(body, 'access_token');
  if (header !== undefined) {
    if (fromBody !== undefined) throw new InvalidRequest('send the access token in one place only');
    const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header.trim());
    if (!match?.[1]) throw new InvalidToken('the Authorization header is not a Bearer token');
    return match[1];
  }
  if (fromBody === undefined) throw new InvalidToken('an access token is required');
  return fromBody;
}

export default async function userinfoRoutes(app: FastifyInstance, opts: { ctx: ProviderContext }) {
  const { ctx } = opts;
  const handler = async (request: FastifyRequest) => userinfo(ctx, bearerToken(request));
  const send = (reply: FastifyReply, claims: Record<string, unknown>) =>
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(claims);
  app.get('/userinfo', async (request, reply) => send(reply, await handler(request)));
  app.post('/userinfo', async (request, reply) => send(reply, await handler(request)));
}
