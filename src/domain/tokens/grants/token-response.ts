// The token response (RFC 6749 5.1) and its ID token (OIDC Core 3.1.3.3, 12.2), built alike by every grant.
import type { Client } from '../../clients/clients.js';
import type { ProviderContext } from '../../context.js';
import type { ClaimsUser } from '../../../storage/user-claim-columns.js';
import { signIdToken } from '../id-token.js';
import type { IssuedAccessToken } from '../access-token.js';
import { idTokenUserClaims } from '../id-token-claims.js';
import { splitScope } from '../../scope.js';
import { organizationClaims } from '../organization-claims.js';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  scope: string;
  id_token?: string;
  refresh_token?: string;
}

/** The sign-in a grant for a user stands on, as its committing statement returned it. */
export interface UserGrant {
  userId: string;
  authTime: Date;
  /** OIDC Core 3.1.3.6: the authorization request's nonce; null where there is none (refresh, device). */
  nonce: string | null;
  sid: string | null;
  amr: string[] | null;
  /** OIDC Core 2 `acr` of that sign-in, when one is known. */
  acr: string | null;
  /** The user, as the committing statement read them with the grant (no second query for the ID token's claims). */
  user: ClaimsUser;
  /** The claims request parameter of the authorization (OIDC Core 5.5), reduced; null: none (refresh keeps it). */
  claims: string | null;
}

/** RFC 6749 5.1: a Bearer access token, its lifetime and its scope (for a resource server, the scopes it defines). */
export function bearerResponse(accessToken: IssuedAccessToken): TokenResponse {
  return {
    access_token: accessToken.value,
    token_type: accessToken.tokenType,
    expires_in: accessToken.expiresIn,
    scope: accessToken.scope,
  };
}

/**
 * The response of a grant for a user: the access token, the refresh token when one was issued, and an ID token
 * when the granted scope (`scope`, which a resource server's access token may not carry) includes openid
 * (OIDC Core 3.1.3.3), signed as the client registered
 * (id_token_signed_response_alg) and bound to the access token by at_hash.
 */
export async function userTokenResponse(
  ctx: ProviderContext,
  client: Client,
  issued: { accessToken: IssuedAccessToken; scope: string; refreshToken: string | null; grant: UserGrant; now: Date },
): Promise<TokenResponse> {
  const response = bearerResponse(issued.accessToken);
  if (issued.refreshToken !== null) response.refresh_token = issued.refreshToken;
  const scopes = splitScope(issued.scope);
  if (scopes.includes('openid')) {
    logUnreadableClaims(ctx, issued.grant.user);
    response.id_token = await signIdToken(ctx.keys, {
      alg: client.idTokenSignedResponseAlg,
      issuer: ctx.config.issuer,
      subject: ctx.subjects.subjectFor(client.pairwiseSector, issued.grant.userId),
      audience: client.clientId,
      authTime: issued.grant.authTime,
      nonce: issued.grant.nonce,
      sid: issued.grant.sid,
      amr: issued.grant.amr,
      acr: issued.grant.acr,
      userClaims: idTokenUserClaims(
        client.idTokenClaims ?? ctx.config.idTokenClaims,
        issued.grant.user,
        scopes,
        issued.grant.claims,
        logUnreadableClaimsRequest(ctx, client.clientId),
      ),
      organizationClaims: organizationClaims(issued.grant.user.organization),
      accessToken: issued.accessToken.value,
      now: issued.now,
      ttlSeconds: ctx.config.idTokenTtlSeconds,
    });
  }
  return response;
}

/** A user whose stored claims this version does not read has none of them released: the log says why (no value). */
export function logUnreadableClaims(ctx: Pick<ProviderContext, 'log'>, user: ClaimsUser): void {
  if (user.claims_unreadable === undefined) return;
  ctx.log.warn({ event: 'user_claims_unreadable', userId: user.id, reason: user.claims_unreadable }, 'stored claims not released');
}

/** A stored claims request this version does not read releases no requested claim: the log says why (no value). */
export function logUnreadableClaimsRequest(ctx: Pick<ProviderContext, 'log'>, clientId: string): (reason: string) => void {
  return (reason) => ctx.log.warn({ event: 'claims_request_unreadable', clientId, reason }, 'requested claims not released');
}
