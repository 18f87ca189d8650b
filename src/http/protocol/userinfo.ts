// The UserInfo endpoint (OIDC Core 5.3), GET and POST, with an RFC 6750 bearer token.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import { single, type RawParams } from '../../domain/params.js';
import { userinfo } from '../../domain/tokens/userinfo.js';
import { DpopError, InvalidRequest, InvalidToken } from '../../errors/oauth-error.js';
import { DPOP_ALGS, verifyDpopProof } from '../../domain/tokens/dpop.js';

/**
 * RFC 6750 2.1 (header) or 2.2 (form body, POST only), never both: "MUST NOT use more than one method"; or RFC 9449
 * 7.1, the DPoP scheme in the header.
 */
function presentedToken(request: FastifyRequest): { token: string; scheme: 'bearer' | 'dpop' } {
  const header = request.headers.authorization;
  const body = request.method === 'POST' && request.body && typeof request.body === 'object' ? (request.body as RawParams) : {};
  const fromBody = single(body, 'access_token');
  if (header !== undefined) {
    if (fromBody !== undefined) throw new InvalidRequest('send the access token in one place only');
    const match = /^(Bearer|DPoP) ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header.trim());
    if (!match?.[2]) throw new InvalidToken('the Authorization header is not a Bearer or DPoP token');
    return { token: match[2], scheme: match[1]!.toLowerCase() === 'dpop' ? 'dpop' : 'bearer' };
  }
  if (fromBody === undefined) throw new InvalidToken('an access token is required');
  return { token: fromBody, scheme: 'bearer' };
}

export default async function userinfoRoutes(app: FastifyInstance, opts: { ctx: ProviderContext }) {
  const { ctx } = opts;
  const handler = async (request: FastifyRequest) => {
    const { token, scheme } = presentedToken(request);
    if (scheme === 'bearer') return userinfo(ctx, token);
    // RFC 9449 7.1: the proof names this request (htm, htu) and this token (ath).
    const proof = await verifyDpopProof(ctx, request.headers.dpop, {
      method: request.method,
      url: `${ctx.config.issuer}/userinfo`,
      resource: true,
      accessToken: token,
    });
    if (!proof)
      throw new DpopError('invalid_dpop_proof', 'a DPoP proof is required with the DPoP scheme', { resource: true, algs: DPOP_ALGS });
    return userinfo(ctx, token, proof.jkt);
  };
  const send = (reply: FastifyReply, claims: Record<string, unknown>) =>
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(claims);
  app.get('/userinfo', async (request, reply) => send(reply, await handler(request)));
  app.post('/userinfo', async (request, reply) => send(reply, await handler(request)));
}
