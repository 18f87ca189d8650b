// The revocation endpoint (RFC 7009): form-encoded, client authenticated in the token endpoint's preHandler.
import type { FastifyInstance } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import type { RawParams } from '../../domain/params.js';
import { revokeToken } from '../../domain/tokens/revocation.js';
import { CLIENT_AUTH_FIELDS, clientAuthentication } from './client-auth.js';

const str = { type: 'string' } as const;

const bodySchema = {
  type: 'object',
  properties: { token: str, token_type_hint: str, ...CLIENT_AUTH_FIELDS },
} as const;

export default async function revocationRoutes(app: FastifyInstance, opts: { ctx: ProviderContext }) {
  const { ctx } = opts;
  app.post<{ Body: RawParams | undefined }>(
    '/revoke',
    { schema: { body: bodySchema }, preHandler: clientAuthentication(ctx) },
    async (request, reply) => {
      await revokeToken(ctx, request.client!, request.body ?? {});
      // RFC 7009 2.2: "HTTP status code 200 if the token has been revoked successfully or if the client
      // submitted an invalid token"; "The content of the response body is ignored by the client".
      return reply.code(200).header('cache-control', 'no-store').send();
    },
  );
}
