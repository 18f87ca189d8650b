// Who may read the security events: an admin with ADMIN_API_TOKEN, or a client holding a client_credentials
// access token granted the dedicated scope (RFC 6750 bearer tokens both).
import type { ProviderContext } from '../context.js';
import { safeEqual, sha256 } from '../secrets.js';
import { clientTokenScopes } from '../tokens/client-token-scopes.js';

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
  const { clientId } = await clientTokenScopes(ctx, token, [SECURITY_EVENTS_SCOPE], {
    description: `reading security events needs a client_credentials token with the ${SECURITY_EVENTS_SCOPE} scope`,
    challenge: SECURITY_EVENTS_SCOPE,
  });
  return { kind: 'client', clientId };
}
