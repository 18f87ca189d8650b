// The client_credentials grant (RFC 6749 4.4): an access token for the client itself; no user, no ID token, no refresh token.
import { InvalidClient, InvalidScope, InvalidTarget, UnauthorizedClient } from '../../../errors/oauth-error.js';
import { findResourceServers } from '../../../storage/resource-servers.js';
import { rowToResourceServer } from '../../resources/resource-servers.js';
import { tokenRequestResource } from '../../authorization/resource-request.js';
import { finishAccessToken, prepareAccessToken } from '../access-token.js';
import type { DpopProof } from '../dpop.js';
import { insertClientAccessToken } from '../../../storage/access-tokens.js';
import type { Client } from '../../clients/clients.js';
import { addSeconds } from '../../clock.js';
import type { ProviderContext } from '../../context.js';
import { ClientChanged } from '../../clients/current-client.js';
import { single, type RawParams } from '../../params.js';
import { splitScope } from '../../scope.js';
import { bearerResponse, type TokenResponse } from './token-response.js';

export async function clientCredentialsGrant(
  ctx: ProviderContext,
  client: Client,
  params: RawParams,
  _attempt?: unknown,
  dpop?: DpopProof,
): Promise<TokenResponse> {
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

  // RFC 8707 2.2: the resource named, else the client's default; its token carries the asked scopes it defines.
  const resource = tokenRequestResource(params, client) ?? client.defaultResource;
  const server = resource === null ? undefined : (await findResourceServers(ctx.db, [resource])).map(rowToResourceServer)[0];
  if (resource !== null && !server) throw new InvalidTarget('the resource is not known to this server');
  const tokenScope = server ? scope.filter((s) => server.scopes.some((d) => d.name === s)) : scope;
  if (tokenScope.length === 0) throw new InvalidScope('none of the requested scopes is defined by the resource');

  const now = ctx.clock();
  const prepared = prepareAccessToken(ctx, client, resource, now, dpop?.jkt ?? null);
  const jwt = server?.tokenFormat === 'jwt';
  const expiresAt = server ? addSeconds(now, server.accessTokenTtlSeconds) : prepared.target.atDefaultExpiresAt;
  const stored = {
    at_hash: jwt ? prepared.target.atJwtHash : prepared.target.atOpaqueHash,
    at_audience: server?.identifier ?? null,
    at_scope: tokenScope.join(' '),
    at_expires_at: expiresAt,
    at_signing_alg: server?.signingAlg ?? null,
  };
  const issued = await insertClientAccessToken(ctx.db, {
    tokenHash: stored.at_hash,
    clientId: client.clientId,
    clientRevision: client.revision,
    scope: stored.at_scope,
    issuedAt: now,
    expiresAt,
    audience: stored.at_audience,
    jkt: prepared.target.atJkt,
  });
  // The statement issues only while the client keeps the revision it was authenticated with: redone afresh.
  if (!issued) throw new ClientChanged(new InvalidClient('client authentication failed'));
  // RFC 6749 4.4.3: "A refresh token SHOULD NOT be included." RFC 9068 2.2: sub is the client's own id.
  return bearerResponse(
    await finishAccessToken(ctx, prepared, stored, { clientId: client.clientId, subject: client.clientId, authTime: null, now }),
  );
}
