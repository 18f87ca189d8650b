// Token revocation (RFC 7009): a client revokes one of its own access or refresh tokens.
import { InvalidRequest } from '../../errors/oauth-error.js';
import { revokeAccessToken } from '../../storage/access-tokens.js';
import { revokeRefreshFamily } from '../../storage/refresh-tokens.js';
import type { Client } from '../clients/clients.js';
import type { ProviderContext } from '../context.js';
import { required, single, type RawParams } from '../params.js';
import { findIssuedToken, parseTokenTypeHint } from './token-lookup.js';

export async function revokeToken(ctx: ProviderContext, client: Client, params: RawParams): Promise<void> {
  const token = required(params, 'token');
  const hint = parseTokenTypeHint(single(params, 'token_type_hint'));
  const found = await findIssuedToken(ctx, token, hint);
  // RFC 7009 2.2: "invalid tokens do not cause an error response since the client cannot handle such an error".
  if (!found) return;
  // RFC 7009 2.1: the server "verifies whether the token was issued to the client making the revocation request.
  // If this validation fails, the request is refused and the client is informed of the error" (as node-oidc-provider
  // does: invalid_request, and the token stays valid).
  if (found.row.client_id !== client.clientId) throw new InvalidRequest('the token was not issued to this client');
  const now = ctx.clock();
  if (found.type === 'refresh_token') {
    // RFC 7009 2.1: revoking a refresh token "SHOULD also invalidate all access tokens based on the same
    // authorization grant": every refresh token of its family and every access token issued with them.
    await revokeRefreshFamily(ctx.db, found.row.family_id, now);
  } else {
    // The row as found: an opaque token's digest, or a JWT's jti digest (src/domain/tokens/access-token.ts).
    await revokeAccessToken(ctx.db, found.row.token_hash, now);
  }
}
