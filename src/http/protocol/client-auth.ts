// preHandler that authenticates the client of a token-endpoint request (RFC 6749 2.3) and puts it on
// request.client. Exactly one method per request: HTTP Basic, client_secret_post, a client assertion (RFC 7523:
// client_secret_jwt, private_key_jwt), or none (public clients).
import type { FastifyRequest } from 'fastify';
import { decodeJwt } from 'jose';
import { InvalidClient, InvalidRequest } from '../../errors/oauth-error.js';
import type { ClientLookup } from '../../domain/clients/client-cache.js';
import { authenticateClient, decodeBasicCredentials, type Client, type ClientCredentials } from '../../domain/clients/clients.js';
import { lookupClient } from '../../domain/clients/current-client.js';
import { claimClientAuthentication } from '../../domain/clients/client-auth-throttle.js';
import { verifyClientAssertion } from '../../domain/clients/client-assertion.js';
import { JWT_BEARER_ASSERTION } from '../../domain/clients/auth-methods.js';
import type { ProviderContext } from '../../domain/context.js';
import { single, type RawParams } from '../../domain/params.js';

declare module 'fastify' {
  interface FastifyRequest {
    client: Client | null;
    /** The client assertion this request already had accepted (and its jti recorded), should it be authenticated again. */
    acceptedAssertion?: string;
  }
}

/** The body fields of client authentication, for the JSON schema of each endpoint that authenticates clients. */
export const CLIENT_AUTH_FIELDS = {
  client_id: { type: 'string' },
  client_secret: { type: 'string' },
  client_assertion: { type: 'string' },
  client_assertion_type: { type: 'string' },
} as const;

function presentedCredentials(request: FastifyRequest): ClientCredentials {
  const body = (request.body ?? {}) as RawParams;
  const header = request.headers.authorization;
  const bodyId = single(body, 'client_id');
  const bodySecret = single(body, 'client_secret');
  const assertionType = single(body, 'client_assertion_type');
  const assertion = single(body, 'client_assertion');
  if (assertionType !== undefined || assertion !== undefined) {
    if (header !== undefined || bodySecret !== undefined) throw new InvalidRequest('use only one client authentication method');
    return assertionCredentials(bodyId, assertionType, assertion);
  }
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
 * RFC 7521 4.2: client_assertion_type and client_assertion go together; client_id is optional, and "MUST identify
 * the same client as is identified by the client assertion" (RFC 7523 3: its sub). The claims are read here only to
 * find the client; the signature is checked once its keys are known (src/domain/clients/client-assertion.ts).
 */
function assertionCredentials(bodyId: string | undefined, type: string | undefined, assertion: string | undefined): ClientCredentials {
  if (type === undefined || assertion === undefined)
    throw new InvalidRequest('client_assertion and client_assertion_type must be sent together (RFC 7521 4.2)');
  // RFC 7521 4.2.1: "If the client_assertion_type is not understood [...] invalid_client".
  if (type !== JWT_BEARER_ASSERTION) throw new InvalidClient('unsupported client_assertion_type');
  let subject: unknown;
  try {
    subject = decodeJwt(assertion).sub;
  } catch {
    throw new InvalidClient('client authentication failed', { detail: 'the client assertion is not a JWT' });
  }
  if (typeof subject !== 'string' || subject === '')
    throw new InvalidClient('client authentication failed', { detail: 'the client assertion has no sub' });
  if (bodyId !== undefined && bodyId !== subject) throw new InvalidClient('client_id does not match the client assertion');
  return { method: 'client_assertion', clientId: subject, assertion };
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
      verifyAssertion: async (client, assertion) => {
        await verifyClientAssertion(ctx, client, assertion, { recordJti: request.acceptedAssertion !== assertion });
        request.acceptedAssertion = assertion;
      },
    },
    credentials,
  );
  request.client = client;
  return client;
}
