// Who may read the security events: an admin with ADMIN_API_TOKEN, or a client holding a client_credentials
// access token granted the dedicated scope (RFC 6750 bearer tokens both).
import { InsufficientScope, InvalidToken } from '../../errors/oauth-error.js';
import { findAccessTokenWithClientScope } from '../../storage/access-tokens.js';
import type { ProviderContext } from '../context.js';
import { splitScope } from '../authorization/scope.js';
import { safeEqual, sha256 } from '../secrets.js';

/**
 * The scope that lets a client read security events. Not an OIDC scope: the authorization endpoint drops it
 * (src/domain/authorization/scope.ts knows only the standard ones), so only the client_credentials grant can issue it, and
 * only to a client whose registered `scope` metadata lists it.
 */
export const SECURITY_EVENTS_SCOPE = 'security_events:read';

export type SecurityEventsReader = { kind: 'admin' } | { kind: 'client'; clientId: string };

/**
 * The reader a bearer token stands for. Throws InvalidToken (401) for a token that is unknown, expired or
 * revoked, and InsufficientScope (403) for a good token that may not read the events.
 */
export async function securityEventsReader(ctx: ProviderContext, token: string): Promise<SecurityEventsReader> {
  const admin = ctx.config.adminApiToken;
  // Digests of equal length, compared in constant time: neither the token's content nor its length leaks.
  if (admin !== undefined && safeEqual(sha256(token), sha256(admin))) return { kind: 'admin' };

  const found = await findAccessTokenWithClientScope(ctx.db, sha256(token));
  // RFC 6750 3.1 invalid_token: "The access token provided is expired, revoked, malformed, or invalid for other reasons."
  if (!found || found.revoked_at !== null || found.expires_at <= ctx.clock() || !found.client_exists) {
    throw new InvalidToken('the access token is invalid, expired or revoked');
  }
  // RFC 6750 3.1 insufficient_scope: "The request requires higher privileges than provided by the access token."
  // A token acting for a user never qualifies, and a client that no longer registers the scope has lost it.
  const granted = splitScope(found.scope).includes(SECURITY_EVENTS_SCOPE);
  const registered = splitScope(found.registered_scope ?? '').includes(SECURITY_EVENTS_SCOPE);
  if (found.user_id !== null || !granted || !registered) {
    throw new InsufficientScope(
      `reading security events needs a client_credentials token with the ${SECURITY_EVENTS_SCOPE} scope`,
      SECURITY_EVENTS_SCOPE,
    );
  }
  return { kind: 'client', clientId: found.client_id };
}
