// The pushed authorization request endpoint (RFC 9126 2): form-encoded, the client authenticated as at the token
// endpoint, answered 201 with a single-use request_uri; errors in the JSON body (RFC 9126 2.3), never redirected.
import type { FastifyInstance } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import { pushAuthorizationRequest } from '../../domain/authorization/pushed-request.js';
import { claimPushedRequest } from '../../domain/authorization/pushed-request-throttle.js';
import { currentNonce, verifyDpopProof } from '../../domain/tokens/dpop.js';
import type { RawParams } from '../../domain/params.js';
import { CLIENT_AUTH_FIELDS, clientAuthentication } from './client-auth.js';

const responseSchema = {
  201: {
    type: 'object',
    properties: { request_uri: { type: 'string' }, expires_in: { type: 'integer' } },
  },
} as const;

// Authorization request parameters are many and open-ended (RFC 9126 2.1: "all the authorization request
// parameters"); the authorization request rules check them (authorization-request.ts), this schema the credentials.
const bodySchema = { type: 'object', properties: { ...CLIENT_AUTH_FIELDS } } as const;

export default async function parRoutes(app: FastifyInstance, opts: { ctx: ProviderContext }) {
  const { ctx } = opts;
  // RFC 9126 2.1: "The rules for client authentication as defined in [RFC6749] for token endpoint requests,
  // including the applicable authentication methods, apply for the PAR endpoint as well."
  app.post<{ Body: RawParams }>(
    '/par',
    { schema: { body: bodySchema, response: responseSchema }, preHandler: clientAuthentication(ctx) },
    async (request, reply) => {
      const client = request.client!;
      await claimPushedRequest(ctx, client.clientId, request.ip);
      // RFC 9449 10.1: a DPoP proof sent with the push binds the code to its key; it is checked as at the token endpoint.
      const dpop = await verifyDpopProof(ctx, request.headers.dpop, { method: 'POST', url: `${ctx.config.issuer}/par`, resource: false });
      const response = await pushAuthorizationRequest(ctx, client, request.body ?? {}, dpop);
      // RFC 9449 8: with nonces required, every answer to a proof carries the nonce for the next one.
      if (dpop !== undefined && ctx.config.dpop.nonceRequired) reply.header('dpop-nonce', currentNonce(ctx));
      // RFC 9126 2.2: "201 Created"; the request_uri stands for the request, so like a credential it is not cached.
      return reply.code(201).header('cache-control', 'no-store').send(response);
    },
  );
}
