// The authorization_code grant (RFC 6749 4.1.3, OIDC Core 3.1.3.2, RFC 7636 4.5-4.6).
import { InvalidGrant, InvalidRequest, type OAuthError } from '../../../errors/oauth-error.js';
import { findCode, redeemCode, revokeTokensFromCode } from '../../../storage/authorization-codes.js';
import type { AuthorizationCodeRow } from '../../../storage/schema.js';
import { claimsUserOf } from '../../../storage/user-claim-columns.js';
import type { Client } from '../../clients/clients.js';
import type { ProviderContext } from '../../context.js';
import { required, single, type RawParams } from '../../params.js';
import { isValidVerifier, s256 } from '../../authorization/pkce.js';
import { storedKey } from '../../secrets.js';
import { grantRefreshRow, newRefreshToken } from './refresh-token.js';
import { userTokenResponse, type TokenResponse } from './token-response.js';
import { finishAccessToken, prepareAccessToken } from '../access-token.js';
import { targetRefusal } from '../token-target.js';
import type { DpopProof } from '../dpop.js';
import { tokenRequestResource } from '../../authorization/resource-request.js';

export async function exchangeAuthorizationCode(
  ctx: ProviderContext,
  client: Client,
  params: RawParams,
  _attempt?: unknown,
  dpop?: DpopProof,
): Promise<TokenResponse> {
  const code = required(params, 'code');
  const redirectUri = single(params, 'redirect_uri') ?? null;
  const verifier = single(params, 'code_verifier') ?? null;
  if (verifier !== null && !isValidVerifier(verifier)) {
    throw new InvalidRequest('code_verifier must be 43 to 128 unreserved characters');
  }

  const resource = tokenRequestResource(params, client);
  const codeHash = storedKey(code);
  const now = ctx.clock();
  const accessToken = prepareAccessToken(ctx, client, resource, now, dpop?.jkt ?? null);
  // OIDC Core 11: a refresh token only for a client allowed the grant, and only when the user consented to offline_access.
  const refreshToken = client.grantTypes.includes('refresh_token') ? newRefreshToken(ctx, now) : null;
  const redemption = {
    codeHash,
    clientId: client.clientId,
    clientRevision: client.revision,
    redirectUri,
    challengeOfVerifier: verifier === null ? null : s256(verifier),
    now,
    accessToken: accessToken.target,
    resources: accessToken.resources,
    refreshToken: refreshToken && grantRefreshRow(refreshToken, client, dpop?.jkt ?? null),
  };
  // Without a resource named (or a default one) the plain statement runs, which redeems only a code of no resources;
  // one whose authorization named some is redeemed by the statement with the resource rules (src/storage/access-token-target.ts).
  const redeemed =
    (await redeemCode(ctx.db, redemption)) ??
    (redemption.resources ? undefined : await redeemCode(ctx.db, { ...redemption, resources: true }));
  if (!redeemed) throw await explainRefusal(ctx, client, codeHash, { redirectUri, verifier, jkt: dpop?.jkt ?? null }, resource);

  return userTokenResponse(ctx, client, {
    accessToken: await finishAccessToken(ctx, accessToken, redeemed, {
      clientId: client.clientId,
      subject: ctx.subjects.subjectFor(client.pairwiseSector, redeemed.user_id),
      authTime: redeemed.auth_time,
      acr: redeemed.acr,
      now,
    }),
    scope: redeemed.scope,
    refreshToken: refreshToken !== null && redeemed.refresh_family_id !== null ? refreshToken.value : null,
    grant: {
      userId: redeemed.user_id,
      authTime: redeemed.auth_time,
      nonce: redeemed.nonce,
      sid: redeemed.sid,
      amr: redeemed.amr,
      acr: redeemed.acr,
      user: claimsUserOf(redeemed.user_id, redeemed),
      claims: redeemed.claims,
    },
    now,
  });
}

/** The code was not redeemed: find out why (off the hot path), and revoke on replay. */
async function explainRefusal(
  ctx: ProviderContext,
  client: Client,
  codeHash: string,
  presented: Presented,
  resource: string | null,
): Promise<OAuthError> {
  const row = await findCode(ctx.db, codeHash);
  if (!row) return new InvalidGrant('the authorization code is invalid');
  if (row.client_id !== client.clientId) {
    // RFC 6749 4.1.3: "ensure that the authorization code was issued to the authenticated confidential client".
    return new InvalidGrant('the authorization code was issued to another client');
  }
  if (row.consumed_at !== null) {
    // RFC 6749 4.1.2: "If an authorization code is used more than once, the authorization server MUST deny
    // the request and SHOULD revoke (when possible) all tokens previously issued based on that authorization code."
    await revokeTokensFromCode(ctx.db, codeHash, ctx.clock());
    return new InvalidGrant('the authorization code was already used');
  }
  if (row.expires_at <= ctx.clock()) return new InvalidGrant('the authorization code has expired');
  return (
    mismatch(row, presented) ??
    (await targetRefusal(ctx, client, row.resources, resource)) ??
    new InvalidGrant('the authorization code is invalid')
  );
}

/** What the token request presented of what the code was bound to. */
interface Presented {
  redirectUri: string | null;
  verifier: string | null;
  /** The thumbprint of the request's DPoP proof key; null: no proof. */
  jkt: string | null;
}

function mismatch(row: AuthorizationCodeRow, { redirectUri, verifier, jkt }: Presented): InvalidGrant | undefined {
  // RFC 6749 4.1.3: redirect_uri is required, and identical, "if the redirect_uri parameter was included in the authorization request".
  if (redirectUri === null ? row.redirect_uri_in_request : redirectUri !== row.redirect_uri) {
    return new InvalidGrant('redirect_uri does not match the authorization request');
  }
  if (row.code_challenge !== null && verifier === null) return new InvalidGrant('code_verifier is required');
  // RFC 9700 2.1.1: refuse a code_verifier for a code that was issued without a code_challenge (PKCE downgrade).
  if (row.code_challenge === null && verifier !== null) return new InvalidGrant('code_verifier was sent but no code_challenge was');
  if (row.code_challenge !== null && verifier !== null && s256(verifier) !== row.code_challenge) {
    return new InvalidGrant('code_verifier does not match the code_challenge');
  }
  // RFC 9449 10: "When a token request is received, the authorization server computes the JWK Thumbprint of the
  // proof-of-possession public key in the DPoP proof and verifies that it matches the dpop_jkt parameter value in
  // the authorization request. If they do not match, it MUST reject the request."
  if (row.dpop_jkt !== null && jkt === null) return new InvalidGrant('the authorization code is bound to a DPoP key: send a DPoP proof');
  if (row.dpop_jkt !== null && jkt !== row.dpop_jkt) return new InvalidGrant('the DPoP proof is by another key than the code is bound to');
  return undefined;
}
