// Finds an access or refresh token by its value for the revocation and introspection endpoints, and says
// whether it is still good (RFC 7009 2.1, RFC 7662 2.1).
import { findAccessToken, type AccessTokenWithUserState } from '../../storage/access-tokens.js';
import { findRefreshToken, type RefreshTokenWithUser } from '../../storage/refresh-tokens.js';
import type { ProviderContext } from '../context.js';
import { jwtAccessTokenRowKey, opaqueTokenHash } from './access-token.js';

export type TokenTypeHint = 'access_token' | 'refresh_token';

export type IssuedToken = { type: 'access_token'; row: AccessTokenWithUserState } | { type: 'refresh_token'; row: RefreshTokenWithUser };

/** RFC 7009 2.1: an unsupported token_type_hint is not an error; it is ignored like an absent one. */
export function parseTokenTypeHint(raw: string | undefined): TokenTypeHint | undefined {
  return raw === 'access_token' || raw === 'refresh_token' ? raw : undefined;
}

/**
 * RFC 7009 2.1: the hint only says where to look first; "If the server is unable to locate the token using
 * the given hint, it MUST extend its search across all of its supported token types."
 */
export async function findIssuedToken(
  ctx: ProviderContext,
  token: string,
  hint: TokenTypeHint | undefined,
): Promise<IssuedToken | undefined> {
  // An RFC 9068 JWT of ours is found by its jti; anything else by the digest of the value, when it can be one of ours.
  const jwtKey = await jwtAccessTokenRowKey(ctx, token);
  if (jwtKey !== undefined) {
    const row = await findAccessToken(ctx.db, jwtKey);
    return row && { type: 'access_token', row };
  }
  const tokenHash = opaqueTokenHash(token);
  if (tokenHash === undefined) return undefined;
  const access = async (): Promise<IssuedToken | undefined> => {
    const row = await findAccessToken(ctx.db, tokenHash);
    return row && { type: 'access_token', row };
  };
  const refresh = async (): Promise<IssuedToken | undefined> => {
    const row = await findRefreshToken(ctx.db, tokenHash);
    return row && { type: 'refresh_token', row };
  };
  const [first, second] = hint === 'refresh_token' ? [refresh, access] : [access, refresh];
  return (await first()) ?? (await second());
}

/** Usable now: not revoked, not expired, its user (if any) enabled, and, for a refresh token, not yet rotated. */
export function isActive(token: IssuedToken, now: Date): boolean {
  const { row } = token;
  if (row.revoked_at !== null || row.expires_at <= now || row.user_disabled_at !== null) return false;
  return token.type === 'access_token' || token.row.rotated_at === null;
}
