// Which user claims an ID token carries beside sub, sid and amr: those the granted scopes release, or none.
import type { ClaimsUser } from '../../storage/user-claim-columns.js';
import { scopeClaims } from '../accounts/users.js';
import { applyClaimsRequest, type UnreadableClaimsRequest } from './claims-request.js';

/**
 * `scopes`: the claims of the granted profile, email, address and phone scopes go in the ID token too. OIDC Core 5.4
 * puts them at userinfo when an access token is issued, but does not forbid them in the ID token; Keycloak and Auth0
 * put them there, and RP libraries that read only the ID token (Auth.js, express-openid-connect) expect them.
 * `minimal`: the ID token carries no user claims; they are at userinfo (node-oidc-provider's conformIdTokenClaims).
 */
export const ID_TOKEN_CLAIMS_MODES = ['scopes', 'minimal'] as const;
export type IdTokenClaimsMode = (typeof ID_TOKEN_CLAIMS_MODES)[number];

export function isIdTokenClaimsMode(value: unknown): value is IdTokenClaimsMode {
  return (ID_TOKEN_CLAIMS_MODES as readonly unknown[]).includes(value);
}

/**
 * The user claims of an ID token for `scopes`: none when minimal (the client's `id_token_claims`, else the
 * ID_TOKEN_CLAIMS setting), else the scope-granted ones the user has.
 */
export function idTokenUserClaims(
  mode: IdTokenClaimsMode,
  user: ClaimsUser,
  scopes: readonly string[],
  claimsRequest: string | null = null,
  unreadable?: UnreadableClaimsRequest,
): Record<string, unknown> | undefined {
  if (mode === 'minimal' && claimsRequest === null) return undefined;
  const base = mode === 'minimal' ? {} : scopeClaims(user, scopes);
  // OIDC Core 5.5: claims asked for the ID token by the claims parameter, even when it is otherwise minimal.
  const claims = applyClaimsRequest(claimsRequest, 'id_token', base, () => scopeClaims(user, scopes), scopes, unreadable);
  return Object.keys(claims).length === 0 ? undefined : claims;
}
