// preHandler that authenticates the client of a token-endpoint request (RFC 6749 2.3) and puts it on
// request.client. Exactly one method per request: HTTP Basic, client_secret_post, or none (public clients).
import type { FastifyRequest } from 'fastify';
import { InvalidClient, InvalidRequest } from '../../errors/oauth-error.js';
import type { ClientLookup } from '../../domain/clients/client-cache.js';
import { authenticateClient, decodeBasicCredentials, type Client, type ClientCredentials } from '../../domain/clients/clients.js';
import { lookupClient } from '../../domain/clients/current-client.js';
import { claimClientAuthentication } from '../../domain/clients/client-auth-throttle.js';
import type { ProviderContext } from '../../domain/context.js';
import { single, type RawParams } from '../../domain/params.js';

declare module 'fastify' {
  interface FastifyRequest {
    client: Client | null;
  }
}

function presentedCredentials(request: FastifyRequest): ClientCredentials {
  const body = (request.body ?? {}) as RawParams;
  const header = request.headers.authorization;
  const bodyId = single(body, 'client_id');
  const bodySecret = single(body, 'client_secret');
  if (header !== undefined && /^basic /i.test(header)) {
    if (bodySecret !== undefined) throw new InvalidRequest('use only one client authentication method');
    const basic = decodeBasicCredentials(header);
    if (bodyId !== undefined && bodyId !== basic.clientId) throw new InvalidRequest('client_id does not match the Authorization header');
    return { method: 'client_secret_basic', ...basic };
  }
  if (header !== undefined) throw new InvalidClient('unsupported client authentication scheme');
  if (bodyId === undefined) throw new InvalidClient('client authentication is required');
  if (bodySecret !== undefined) return { method: 'client_secret_post', clientId: bodyId, secret: bodySecret };
  return { method: 'none', clientId: bodyId };
}

/**
 * The client read from the database (revocation, introspection, device authorization). The token endpoint
 * authenticates in its handler instead, with a client that may come from memory (withCurrentClient).
 */
export function clientAuthentication(ctx: ProviderContext) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    await authenticateRequestClient(ctx, request, (clientId) => lookupClient(ctx, clientId, true));
  };
}

/** Authenticates the request's client, read with `lookup`, and puts it on the request. */
export async function authenticateRequestClient(
  ctx: ProviderContext,
  request: FastifyRequest,
  lookup: (clientId: string) => Promise<ClientLookup | undefined>,
): Promise<Client> {
  const credentials = presentedCredentials(request);
  const { client } = await authenticateClient(
    {
      lookup,
      passwords: ctx.passwords,
      cache: ctx.clientSecrets,
      now: ctx.clock,
      claim: () => claimClientAuthentication(ctx, credentials.clientId, request.ip),
    },
    credentials,
  );
  request.client = client;
  return client;
}
