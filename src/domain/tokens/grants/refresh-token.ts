// The refresh_token grant (RFC 6749 6, OIDC Core 12), rotated on every use (RFC 9700 4.14.2), and the
// refresh tokens the authorization_code grant issues (OIDC Core 11).
import { InvalidGrant, InvalidScope, type OAuthError } from '../../../errors/oauth-error.js';
import { findRefreshToken, revokeRefreshFamily, rotateRefreshToken } from '../../../storage/refresh-tokens.js';
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
import { targetRefusal } from '../token-target.js';
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
  // As at code exchange: the plain statement first, the one with the resource rules for a grant that named resources.
  const rotated =
    (await rotateRefreshToken(ctx.db, rotation)) ??
    (rotation.resources ? undefined : await rotateRefreshToken(ctx.db, { ...rotation, resources: true }));
  if (!rotated) throw await explainRefusal(ctx, client, tokenHash, scope, resource, dpop);

  const grantedScope = scope?.join(' ') ?? rotated.scope;
  // OIDC Core 12.2: the ID token has the same iss, sub and aud as the original one, the auth_time of the original
  // authentication, and it "SHOULD NOT have a nonce Claim Value".
  return userTokenResponse(ctx, client, {
    accessToken: await finishAccessToken(ctx, accessToken, rotated, {
      clientId: client.clientId,
      subject: ctx.subjects.subjectFor(client.pairwiseSector, rotated.user_id),
      authTime: rotated.auth_time,
      acr: rotated.acr,
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
      user: claimsUserOf(rotated.user_id, rotated),
      claims: rotated.claims,
    },
    now,
  });
}

/** The refresh token was not rotated: find out why (off the hot path), and revoke its family on replay. */
async function explainRefusal(
  ctx: ProviderContext,
  client: Client,
  tokenHash: string,
  scope: string[] | null,
  resource: string | null,
  dpop: DpopProof | undefined,
): Promise<OAuthError> {
  const row = await findRefreshToken(ctx.db, tokenHash);
  if (!row) return new InvalidGrant('the refresh token is invalid');
  // RFC 6749 6: "validate the refresh token and ensure that it was issued to the authenticated client".
  if (row.client_id !== client.clientId) return new InvalidGrant('the refresh token was issued to another client');
  if (row.rotated_at !== null) {
    // RFC 9700 4.14.2: with rotation, a compromised refresh token used by both the attacker and the legitimate
    // client shows up as an invalidated token presented again; the authorization server "will revoke the active
    // refresh token", which forces the legitimate client to obtain a fresh authorization grant.
    await revokeRefreshFamily(ctx.db, row.family_id, ctx.clock());
    return new InvalidGrant('the refresh token was already used');
  }
  if (row.revoked_at !== null) return new InvalidGrant('the refresh token was revoked');
  if (row.expires_at <= ctx.clock()) return new InvalidGrant('the refresh token has expired');
  if (row.user_disabled_at !== null) return new InvalidGrant('the refresh token is invalid');
  // RFC 9449 5: a bound refresh token needs a proof by the key it is bound to.
  if (row.jkt !== null && row.jkt !== dpop?.jkt)
    return new InvalidGrant('the refresh token is bound to a DPoP key: send a proof made with it');
  // RFC 6749 6: "The requested scope MUST NOT include any scope not originally granted by the resource owner".
  const granted = splitScope(row.scope);
  if (scope !== null && !scope.every((s) => granted.includes(s))) {
    return new InvalidScope('the requested scope exceeds the scope originally granted');
  }
  return (await targetRefusal(ctx, client, row.resources, resource)) ?? new InvalidGrant('the refresh token is invalid');
}
