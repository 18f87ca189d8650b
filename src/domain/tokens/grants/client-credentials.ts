// The client_credentials grant (RFC 6749 4.4): an access token for the client itself; no user, no ID token, no refresh token.
import { InvalidClient, InvalidScope, UnauthorizedClient } from '../../../errors/oauth-error.js';
import { insertClientAccessToken } from '../../../storage/access-tokens.js';
import type { Client } from '../../clients/clients.js';
import { addSeconds } from '../../clock.js';
import type { ProviderContext } from '../../context.js';
import { ClientChanged } from '../../clients/current-client.js';
import { single, type RawParams } from '../../params.js';
import { splitScope } from '../../authorization/scope.js';
import { randomToken, sha256 } from '../../secrets.js';
import { bearerResponse, type TokenResponse } from './token-response.js';

export async function clientCredentialsGrant(ctx: ProviderContext, client: Client, params: RawParams): Promise<TokenResponse> {
  // RFC 6749 4.4: "The client credentials grant type MUST only be used by confidential clients."
  if (client.isPublic) throw new UnauthorizedClient('a public client may not use client_credentials');
  const registered = splitScope(client.registeredScope ?? '');
  const asked = splitScope(single(params, 'scope') ?? '');
  // RFC 6749 3.3: without a scope parameter the server "MUST either process the request using a pre-defined
  // default value or fail the request indicating an invalid scope": the default is the registered scope.
  const scope = asked.length > 0 ? asked : registered;
  if (scope.length === 0) throw new InvalidScope('this client has no registered scope to grant');
  if (!scope.every((s) => registered.includes(s)))
    throw new InvalidScope('the requested scope exceeds the scope registered for this client');

  const accessToken = randomToken();
  const now = ctx.clock();
  const issued = await insertClientAccessToken(ctx.db, {
    tokenHash: sha256(accessToken),
    clientId: client.clientId,
    clientRevision: client.revision,
    scope: scope.join(' '),
    issuedAt: now,
    expiresAt: addSeconds(now, ctx.config.accessTokenTtlSeconds),
  });
  // The statement issues only while the client keeps the revision it was authenticated with: redone afresh.
  if (!issued) throw new ClientChanged(new InvalidClient('client authentication failed'));
  // RFC 6749 4.4.3: "A refresh token SHOULD NOT be included."
  return bearerResponse(ctx, accessToken, scope.join(' '));
}
