// The UserInfo endpoint's rules (OIDC Core 5.3) for an opaque bearer access token (RFC 6750).
import { DpopError, InsufficientScope, InvalidToken } from '../../errors/oauth-error.js';
import { DPOP_ALGS } from './dpop.js';
import { STORED_USER_CLAIMS } from '../claims.js';
import { findAccessTokenWithUser } from '../../storage/access-tokens.js';
import type { ProviderContext } from '../context.js';
import { opaqueTokenHash } from './access-token.js';
import { claimsForScopes } from '../accounts/users.js';
import { lookupClient } from '../clients/current-client.js';
import { applyClaimsRequest } from './claims-request.js';
import { logUnreadableClaims, logUnreadableClaimsRequest } from './grants/token-response.js';
import { splitScope } from '../scope.js';
import { organizationClaims } from './organization-claims.js';

/**
 * `jkt`: the thumbprint of the DPoP proof's key when the token came with the DPoP scheme and a valid proof (RFC 9449
 * 7.1), null when it came as a Bearer token.
 */
export async function userinfo(ctx: ProviderContext, accessToken: string, jkt: string | null = null): Promise<Record<string, unknown>> {
  const tokenHash = opaqueTokenHash(accessToken);
  const token = tokenHash === undefined ? undefined : await findAccessTokenWithUser(ctx.db, STORED_USER_CLAIMS, tokenHash);
  if (!token || token.revokedAt !== null || token.expiresAt <= ctx.clock() || token.user.disabled_at !== null) {
    throw new InvalidToken('the access token is invalid, expired or revoked');
  }
  // RFC 9449 7.1 / 7.2: a DPoP-bound token is taken only with a proof by its key, and a bearer token only as Bearer.
  if (token.jkt !== jkt) {
    throw new DpopError(
      'invalid_token',
      token.jkt === null
        ? 'the access token is a Bearer token'
        : 'the access token is bound to a DPoP key: send it with a proof made with that key',
      { resource: true, algs: DPOP_ALGS },
    );
  }
  // RFC 8707 / RFC 9068: a token for a resource server is not for this provider's userinfo (RFC 6750 3.1 invalid_token).
  if (token.audience !== null) throw new InvalidToken('the access token is for another resource');
  const scopes = splitScope(token.scope);
  if (!scopes.includes('openid')) throw new InsufficientScope('the access token was not granted the openid scope', 'openid');
  // OIDC Core 5.3.2: the sub of the UserInfo response is the ID token's, pairwise for a pairwise client (8.1).
  // The client as remembered (domain/clients/client-cache.ts): no join on the hot path for what says its subject type.
  const client = (await lookupClient(ctx, token.clientId))?.client;
  if (!client) throw new InvalidToken('the access token is invalid, expired or revoked');
  const sector = client.pairwiseSector;
  logUnreadableClaims(ctx, token.user);
  const released = claimsForScopes(token.user, scopes);
  // OIDC Core 5.5: the claims the authorization asked for userinfo (value and values honoured).
  const claims = applyClaimsRequest(
    token.claims,
    'userinfo',
    released,
    () => released,
    scopes,
    logUnreadableClaimsRequest(ctx, client.clientId),
  );
  // Issue 40: the organization the grant is for (org_id, org_name, org_roles), as in the ID token.
  return Object.assign({}, claims, organizationClaims(token.user.organization), { sub: ctx.subjects.subjectFor(sector, token.user.id) });
}
