// The introspection endpoint (RFC 7662): form-encoded, client authenticated in the token endpoint's preHandler.
import type { FastifyInstance } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import { introspectToken } from '../../domain/tokens/introspection.js';
import type { RawParams } from '../../domain/params.js';
import { CLIENT_AUTH_FIELDS, clientAuthentication } from './client-auth.js';

const str = { type: 'string' } as const;

const bodySchema = {
  type: 'object',
  properties: { token: str, token_type_hint: str, ...CLIENT_AUTH_FIELDS },
} as const;

const responseSchema = {
  200: {
    type: 'object',
    required: ['active'],
    properties: {
      active: { type: 'boolean' },
      scope: str,
      client_id: str,
      sub: str,
      exp: { type: 'integer' },
      iat: { type: 'integer' },
      token_type: str,
      iss: str,
      aud: str,
      cnf: { type: 'object', properties: { jkt: str } },
      // Issue 40: the organization the grant is for (RFC 7662 2.2 allows such service-specific members).
      org_id: str,
      org_name: str,
      org_roles: { type: 'array', items: str },
    },
  },
} as const;

export default async function introspectionRoutes(app: FastifyInstance, opts: { ctx: ProviderContext }) {
  const { ctx } = opts;
  app.post<{ Body: RawParams | undefined }>(
    '/introspect',
    { schema: { body: bodySchema, response: responseSchema }, preHandler: clientAuthentication(ctx) },
    async (request, reply) => {
      const answer = await introspectToken(ctx, request.client!, request.body ?? {});
      // An answer about a token is as sensitive as the token: never cached (RFC 7662 4).
      return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(answer);
    },
  );
}
