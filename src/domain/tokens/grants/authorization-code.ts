// The authorization_code grant (RFC 6749 4.1.3, OIDC Core 3.1.3.2, RFC 7636 4.5-4.6).
import { InvalidGrant, InvalidRequest } from '../../../errors/oauth-error.js';
import { redeemCode, revokeTokensFromCode, type CodeRefusal } from '../../../storage/authorization-codes.js';
import { STORED_USER_CLAIMS } from '../../claims.js';
import { claimsUserOf } from '../../../storage/user-claim-columns.js';
import type { Client } from '../../clients/clients.js';
import type { ProviderContext } from '../../context.js';
import { required, single, type RawParams } from '../../params.js';
import { isValidVerifier, s256 } from '../../authorization/pkce.js';
import { storedKey } from '../../secrets.js';
import { grantRefreshRow, newRefreshToken } from './refresh-token.js';
import { userTokenResponse, type TokenResponse } from './token-response.js';
import { finishAccessToken, prepareAccessToken } from '../access-token.js';
import { TARGET_REFUSALS } from '../token-target.js';
import type { GrantRefusals } from './grant-refusals.js';
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
  const taken = await redeemCode(ctx.db, redemption);
  if (!taken.row) throw await CODE_REFUSALS[taken.refused](ctx, { codeHash, jkt: dpop?.jkt ?? null });
  const redeemed = taken.row;

  return userTokenResponse(ctx, client, {
    accessToken: await finishAccessToken(ctx, accessToken, redeemed, {
      clientId: client.clientId,
      subject: ctx.subjects.subjectFor(client.pairwiseSector, redeemed.user_id),
      authTime: redeemed.auth_time,
      acr: redeemed.acr,
      organization: redeemed.user_organization,
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
      user: claimsUserOf(redeemed.user_id, redeemed, STORED_USER_CLAIMS),
      claims: redeemed.claims,
    },
    now,
  });
}

/** What the token request presented that a refusal's explanation needs. */
interface Presented {
  codeHash: string;
  /** The thumbprint of the request's DPoP proof key; null: no proof. */
  jkt: string | null;
}

const invalidCode = () => new InvalidGrant('the authorization code is invalid');

/** Why a code was not redeemed, by the first of its conditions it failed (src/storage/authorization-codes.ts). */
const CODE_REFUSALS: GrantRefusals<CodeRefusal, Presented> = {
  unknown: invalidCode,
  client: () => new InvalidGrant('the authorization code was issued to another client'),
  // RFC 6749 4.1.2: the server "SHOULD revoke (when possible) all tokens previously issued based on that authorization code".
  unused: async (ctx, { codeHash }) => {
    await revokeTokensFromCode(ctx.db, codeHash, ctx.clock());
    return new InvalidGrant('the authorization code was already used');
  },
  unexpired: () => new InvalidGrant('the authorization code has expired'),
  redirect_uri: () => new InvalidGrant('redirect_uri does not match the authorization request'),
  verifier_sent: () => new InvalidGrant('code_verifier is required'),
  challenge_made: () => new InvalidGrant('code_verifier was sent but no code_challenge was'),
  verifier_matches: () => new InvalidGrant('code_verifier does not match the code_challenge'),
  // RFC 9449 10: "If they do not match, it MUST reject the request."
  dpop_key: (_, { jkt }) =>
    jkt === null
      ? new InvalidGrant('the authorization code is bound to a DPoP key: send a DPoP proof')
      : new InvalidGrant('the DPoP proof is by another key than the code is bound to'),
  ...TARGET_REFUSALS,
  user_enabled: invalidCode,
  // withCurrentClient redoes the request when the client it decided with is stale.
  client_unchanged: invalidCode,
};
