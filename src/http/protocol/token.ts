// The token endpoint (RFC 6749 3.2): form-encoded, client authenticated first, one handler per grant.
import type { FastifyInstance } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import { withCurrentClient } from '../../domain/clients/current-client.js';
import { exchangeAuthorizationCode } from '../../domain/tokens/grants/authorization-code.js';
import { clientCredentialsGrant } from '../../domain/tokens/grants/client-credentials.js';
import { deviceCodeGrant } from '../../domain/tokens/grants/device-code.js';
import { DEVICE_CODE_GRANT } from '../../domain/device-flow/device-authorization.js';
import { refreshTokenGrant } from '../../domain/tokens/grants/refresh-token.js';
import { required, type RawParams } from '../../domain/params.js';
import { DpopError, UnauthorizedClient, UnsupportedGrantType } from '../../errors/oauth-error.js';
import { currentNonce, DPOP_ALGS, verifyDpopProof } from '../../domain/tokens/dpop.js';
import { FAPI2_ALGS, isFapi2Alg } from '../../domain/clients/fapi2.js';
import { CLIENT_AUTH_FIELDS, authenticateRequestClient } from './client-auth.js';

const str = { type: 'string' } as const;

const bodySchema = {
  type: 'object',
  properties: {
    grant_type: str,
    code: str,
    redirect_uri: str,
    code_verifier: str,
    ...CLIENT_AUTH_FIELDS,
    refresh_token: str,
    scope: str,
    device_code: str,
  },
} as const;

const responseSchema = {
  200: {
    type: 'object',
    properties: { access_token: str, token_type: str, expires_in: { type: 'integer' }, scope: str, id_token: str, refresh_token: str },
  },
} as const;

const grants = {
  authorization_code: exchangeAuthorizationCode,
  refresh_token: refreshTokenGrant,
  client_credentials: clientCredentialsGrant,
  [DEVICE_CODE_GRANT]: deviceCodeGrant,
} as const;

export default async function tokenRoutes(app: FastifyInstance, opts: { ctx: ProviderContext }) {
  const { ctx } = opts;
  // One counter child per grant type, made once and exposed from the start at 0.
  const issued = Object.fromEntries(Object.keys(grants).map((g) => [g, ctx.metrics.tokensIssued.labels(g)])) as Record<
    keyof typeof grants,
    { inc(value?: number): void }
  >;
  for (const child of Object.values(issued)) child.inc(0);
  app.post<{ Body: RawParams }>('/token', { schema: { body: bodySchema, response: responseSchema } }, async (request, reply) => {
    // RFC 9449 4.3: the DPoP proof is checked once, before the client, however often the request is redone below.
    const dpop = await verifyDpopProof(ctx, request.headers.dpop, { method: 'POST', url: `${ctx.config.issuer}/token`, resource: false });
    // The client may come from memory; a grant refused while that copy is stale is redone once, authenticated
    // afresh, with the client as registered now (domain/clients/current-client.ts).
    const response = await withCurrentClient(ctx, async (attempt) => {
      const client = await authenticateRequestClient(ctx, request, (clientId) => attempt.lookup(clientId));
      const grantType = required(request.body, 'grant_type');
      // The value is the sender's own text: not echoed back (the supported ones are in the discovery document).
      if (!Object.hasOwn(grants, grantType)) throw new UnsupportedGrantType('this grant_type is not supported');
      // RFC 6749 5.2 unauthorized_client: "not authorized to use this authorization grant type".
      if (!client.grantTypes.includes(grantType)) throw new UnauthorizedClient(`this client may not use ${grantType}`);
      // RFC 9449 5.2 dpop_bound_access_tokens: the client "always uses DPoP for token requests".
      // FAPI 2.0 5.3.2.1 (5): "shall only issue sender-constrained access tokens" (DPoP here), signed as 5.4.1 says.
      if ((client.dpopBoundAccessTokens || client.fapi2) && dpop === undefined)
        throw new DpopError('invalid_dpop_proof', 'this client must send a DPoP proof', { resource: false, algs: DPOP_ALGS });
      if (client.fapi2 && dpop !== undefined && !isFapi2Alg(dpop.alg))
        throw new DpopError('invalid_dpop_proof', 'FAPI 2.0 takes DPoP proofs signed with PS256, ES256 or EdDSA', {
          resource: false,
          algs: FAPI2_ALGS,
        });
      const tokens = await grants[grantType as keyof typeof grants](ctx, client, request.body, attempt, dpop);
      issued[grantType as keyof typeof grants].inc();
      return tokens;
    });
    // RFC 6749 5.1: "Cache-Control: no-store" and "Pragma: no-cache" on every response with tokens.
    // RFC 9449 8: with nonces required, every answer to a proof carries the nonce for the next one.
    if (dpop !== undefined && ctx.config.dpop.nonceRequired) reply.header('dpop-nonce', currentNonce(ctx));
    return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(response);
  });
}
