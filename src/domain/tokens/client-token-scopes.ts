// What a client's own access token (client_credentials, RFC 6749 4.4) may do at one of our APIs: the scopes it holds
// among those the API knows. Shared by the security events endpoint and the management API.
import { InsufficientScope, InvalidToken } from '../../errors/oauth-error.js';
import { findAccessTokenWithClientScope } from '../../storage/access-tokens.js';
import { splitScope } from '../scope.js';
import type { ProviderContext } from '../context.js';
import { storedKey } from '../secrets.js';

export interface ClientTokenHolder {
  clientId: string;
  /** The API's scopes the token holds: granted to it, and still registered for its client. */
  scopes: string[];
}

/**
 * The client a bearer token stands for and which of `known` it holds. Throws InvalidToken (401) for a token that is
 * unknown, expired or revoked, or whose client is gone, and InsufficientScope (403, naming `challenge`) for a good
 * token that holds none of them or that acts for a user.
 */
export async function clientTokenScopes(
  ctx: Pick<ProviderContext, 'db' | 'clock'>,
  token: string,
  known: readonly string[],
  refusal: { description: string; challenge: string },
): Promise<ClientTokenHolder> {
  const found = await findAccessTokenWithClientScope(ctx.db, storedKey(token));
  // RFC 6750 3.1 invalid_token: "The access token provided is expired, revoked, malformed, or invalid for other reasons."
  if (!found || found.revoked_at !== null || found.expires_at <= ctx.clock() || !found.client_exists) {
    throw new InvalidToken('the access token is invalid, expired or revoked');
  }
  // RFC 6750 3.1 insufficient_scope: "The request requires higher privileges than provided by the access token."
  // A token acting for a user never qualifies, and a client that no longer registers a scope has lost it.
  const registered = splitScope(found.registered_scope ?? '');
  const scopes = splitScope(found.scope).filter((s) => known.includes(s) && registered.includes(s));
  if (found.user_id !== null || scopes.length === 0) throw new InsufficientScope(refusal.description, refusal.challenge);
  return { clientId: found.client_id, scopes };
}
