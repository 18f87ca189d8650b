// The refresh_token grant (RFC 6749 6, OIDC Core 12), rotated on every use (RFC 9700 4.14.2), and the
// refresh tokens the authorization_code grant issues (OIDC Core 11).
import { InvalidGrant, InvalidScope } from '../../../errors/oauth-error.js';
import { findRefreshToken, revokeRefreshFamily, rotateRefreshToken, type RefreshRefusal } from '../../../storage/refresh-tokens.js';
import { STORED_USER_CLAIMS } from '../../claims.js';
import { claimsUserOf } from '../../../storage/user-claim-columns.js';
import type { Client } from '../../clients/clients.js';
import { addSeconds } from '../../clock.js';
import type { ProviderContext } from '../../context.js';
import { required, single, type RawParams } from '../../params.js';
import { splitScope } from '../../scope.js';
import { storedKey } from '../../secrets.js';
import { userTokenResponse, type TokenResponse } from './token-response.js';
import { finishAccessToken, prepareAccessToken } from '../access-token.js';
import type { DpopProof } from '../dpop.js';
import { TARGET_REFUSALS } from '../token-target.js';
import type { GrantRefusals } from './grant-refusals.js';
import { tokenRequestResource } from '../../authorization/resource-request.js';

/** OIDC Core 11: the scope by which the user grants a refresh token. */
export const OFFLINE_ACCESS = 'offline_access';

export interface NewRefreshToken {
  /** What the client receives. */
  value: string;
  /** What is stored: the digest, never the value. */
  row: { tokenHash: string; familyId: string; expiresAt: Date };
}

/** A refresh token starting a new family (a new grant), or continuing `familyId` on rotation. */
export function newRefreshToken(ctx: ProviderContext, now: Date, familyId: string = ctx.random.timeOrderedUuid(now)): NewRefreshToken {
  const value = ctx.random.timedToken(now);
  return { value, row: { tokenHash: storedKey(value), familyId, expiresAt: addSeconds(now, ctx.config.refreshTokenTtlSeconds) } };
}

/**
 * What a code or device grant's statement stores of `token`: issued only when the user granted offline_access.
 * RFC 9449 5: a public client's refresh token is bound to its DPoP key (`jkt`); a confidential client's to its credentials.
 */
export function grantRefreshRow(token: NewRefreshToken, client: Client, jkt: string | null) {
  const { tokenHash, familyId, expiresAt } = token.row;
  return { tokenHash, familyId, expiresAt, onlyWithScope: OFFLINE_ACCESS, jkt: client.isPublic ? jkt : null };
}

export async function refreshTokenGrant(
  ctx: ProviderContext,
  client: Client,
  params: RawParams,
  _attempt?: unknown,
  dpop?: DpopProof,
): Promise<TokenResponse> {
  const presented = required(params, 'refresh_token');
  const rawScope = single(params, 'scope');
  const asked = rawScope === undefined ? [] : splitScope(rawScope);
  // RFC 6749 6: the scope, "if omitted is treated as equal to the scope originally granted by the resource owner".
  const scope = asked.length === 0 ? null : asked;

  const resource = tokenRequestResource(params, client);
  const tokenHash = storedKey(presented);
  const now = ctx.clock();
  const next = newRefreshToken(ctx, now);
  const accessToken = prepareAccessToken(ctx, client, resource, now, dpop?.jkt ?? null);
  const rotation = {
    tokenHash,
    clientId: client.clientId,
    clientRevision: client.revision,
    now,
    scope,
    next: { tokenHash: next.row.tokenHash, expiresAt: next.row.expiresAt },
    accessToken: accessToken.target,
    resources: accessToken.resources,
  };
  const taken = await rotateRefreshToken(ctx.db, rotation);
  if (!taken.row) throw await REFRESH_REFUSALS[taken.refused](ctx, { tokenHash, jkt: dpop?.jkt ?? null });
  const rotated = taken.row;

  const grantedScope = scope?.join(' ') ?? rotated.scope;
  // OIDC Core 12.2: the ID token has the same iss, sub and aud as the original one, the auth_time of the original
  // authentication, and it "SHOULD NOT have a nonce Claim Value".
  return userTokenResponse(ctx, client, {
    accessToken: await finishAccessToken(ctx, accessToken, rotated, {
      clientId: client.clientId,
      subject: ctx.subjects.subjectFor(client.pairwiseSector, rotated.user_id),
      authTime: rotated.auth_time,
      acr: rotated.acr,
      organization: rotated.user_organization,
      now,
    }),
    scope: grantedScope,
    refreshToken: next.value,
    grant: {
      userId: rotated.user_id,
      authTime: rotated.auth_time,
      nonce: null,
      sid: rotated.sid,
      amr: rotated.amr,
      acr: rotated.acr,
      user: claimsUserOf(rotated.user_id, rotated, STORED_USER_CLAIMS),
      claims: rotated.claims,
    },
    now,
  });
}

/** What the token request presented that a refusal's explanation needs. */
interface Presented {
  tokenHash: string;
  /** The thumbprint of the request's DPoP proof key; null: no proof. */
  jkt: string | null;
}

const invalidToken = () => new InvalidGrant('the refresh token is invalid');

/** Why a refresh token was not rotated, by the first of its conditions it failed (src/storage/refresh-tokens.ts). */
const REFRESH_REFUSALS: GrantRefusals<RefreshRefusal, Presented> = {
  unknown: invalidToken,
  client: () => new InvalidGrant('the refresh token was issued to another client'),
  // RFC 9700 4.14.2: a replayed refresh token shows the theft; the authorization server "will revoke the active refresh
  // token", which forces the legitimate client to obtain a fresh authorization grant.
  unrotated: async (ctx, { tokenHash }) => {
    const row = await findRefreshToken(ctx.db, tokenHash);
    if (row) await revokeRefreshFamily(ctx.db, row.family_id, ctx.clock());
    return new InvalidGrant('the refresh token was already used');
  },
  unrevoked: () => new InvalidGrant('the refresh token was revoked'),
  unexpired: () => new InvalidGrant('the refresh token has expired'),
  user_enabled: invalidToken,
  // Issue 40: the person is no longer a member of the organization the grant was for.
  member: () => new InvalidGrant('the refresh token is for an organization the user is no longer a member of'),
  dpop_key: () => new InvalidGrant('the refresh token is bound to a DPoP key: send a proof made with it'),
  scope_granted: () => new InvalidScope('the requested scope exceeds the scope originally granted'),
  ...TARGET_REFUSALS,
  // withCurrentClient redoes the request when the client it decided with is stale.
  client_unchanged: invalidToken,
};
