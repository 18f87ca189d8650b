// The device_code grant (RFC 8628 3.4-3.5): a device polls with its device code until the user has decided.
import { AuthorizationPending, DeviceAccessDenied, ExpiredToken, InvalidGrant, SlowDown } from '../../../errors/oauth-error.js';
import { pollDeviceAuthorization, revokeTokensFromDeviceCode, type DeviceRefusal } from '../../../storage/device-authorizations.js';
import { STORED_USER_CLAIMS } from '../../claims.js';
import { claimsUserOf, type UserClaimColumns } from '../../../storage/user-claim-columns.js';
import type { Client } from '../../clients/clients.js';
import type { ProviderContext } from '../../context.js';
import type { ClientAttempt } from '../../clients/current-client.js';
import { required, type RawParams } from '../../params.js';
import { sha256 } from '../../secrets.js';
import { grantRefreshRow, newRefreshToken } from './refresh-token.js';
import { userTokenResponse, type TokenResponse } from './token-response.js';
import { finishAccessToken, prepareAccessToken } from '../access-token.js';
import type { DpopProof } from '../dpop.js';
import { TARGET_REFUSALS } from '../token-target.js';
import type { GrantRefusals } from './grant-refusals.js';
import { tokenRequestResource } from '../../authorization/resource-request.js';

export async function deviceCodeGrant(
  ctx: ProviderContext,
  client: Client,
  params: RawParams,
  attempt: Pick<ClientAttempt, 'confirm'>,
  dpop?: DpopProof,
): Promise<TokenResponse> {
  // RFC 8628 3.4: "device_code REQUIRED. The device verification code, "device_code" from the device authorization response".
  const deviceCode = required(params, 'device_code');
  const deviceCodeHash = sha256(deviceCode);
  const now = ctx.clock();
  // RFC 8707 2.2: the token request may name one of the resources the device's request named.
  const resource = tokenRequestResource(params, client);
  const accessToken = prepareAccessToken(ctx, client, resource, now, dpop?.jkt ?? null);
  // As at code exchange (OIDC Core 11): a refresh token only for a client allowed the grant, and only when the
  // user approved offline_access.
  const refreshToken = client.grantTypes.includes('refresh_token') ? newRefreshToken(ctx, now) : null;
  const taken = await pollDeviceAuthorization(ctx.db, {
    deviceCodeHash,
    clientId: client.clientId,
    clientRevision: client.revision,
    now,
    accessToken: accessToken.target,
    refreshToken: refreshToken && grantRefreshRow(refreshToken, client, dpop?.jkt ?? null),
  });
  if (!taken.row) throw await DEVICE_REFUSALS[taken.refused](ctx, { deviceCodeHash });
  const polled = taken.row;
  // The polling statement checked the client's revision: what it answers needs no second look at the client.
  attempt.confirm();
  if (polled.status === 'pending') {
    // RFC 8628 3.5 slow_down: "the interval MUST be increased by 5 seconds for this and all subsequent requests";
    // the polling statement has raised the stored interval already.
    throw polled.last_poll_too_fast ? new SlowDown() : new AuthorizationPending();
  }
  const issuedHere = polled.issued_access_token_hash !== null && polled.issued_access_token_hash === polled.at_hash;
  if (
    !issuedHere ||
    polled.user_id === null ||
    polled.auth_time === null ||
    polled.user_username === null ||
    !polled.at_hash ||
    !polled.at_expires_at
  ) {
    throw new InvalidGrant('the device code is invalid');
  }
  const stored = {
    at_hash: polled.at_hash,
    at_audience: polled.at_audience ?? null,
    at_scope: polled.at_scope ?? '',
    at_expires_at: polled.at_expires_at,
    at_signing_alg: polled.at_signing_alg ?? null,
  };

  // The sign-in behind the approval: its time, session and methods (OIDC Core 2 auth_time, amr; Back-Channel
  // Logout 1.0 2.1 sid). There is no authorization request, so no nonce.
  return userTokenResponse(ctx, client, {
    accessToken: await finishAccessToken(ctx, accessToken, stored, {
      clientId: client.clientId,
      subject: ctx.subjects.subjectFor(client.pairwiseSector, polled.user_id),
      authTime: polled.auth_time,
      acr: polled.acr,
      now,
    }),
    scope: polled.scope,
    refreshToken: refreshToken !== null && polled.refresh_family_id !== null ? refreshToken.value : null,
    grant: {
      userId: polled.user_id,
      authTime: polled.auth_time,
      nonce: null,
      sid: polled.sid,
      amr: polled.amr,
      acr: polled.acr,
      user: claimsUserOf(polled.user_id, polled as UserClaimColumns, STORED_USER_CLAIMS),
      claims: null,
    },
    now,
  });
}

const invalidCode = () => new InvalidGrant('the device code is invalid');

/** Why a poll was not answered from a request, by the first of its conditions it failed (src/storage/device-authorizations.ts). */
const DEVICE_REFUSALS: GrantRefusals<DeviceRefusal, { deviceCodeHash: string }> = {
  unknown: invalidCode,
  client: () => new InvalidGrant('the device code was issued to another client'),
  // Presented again, a device code is refused like a replayed authorization code, and what was issued from it revoked.
  unused: async (ctx, { deviceCodeHash }) => {
    await revokeTokensFromDeviceCode(ctx.db, deviceCodeHash, ctx.clock());
    return new InvalidGrant('the device code was already used');
  },
  undenied: () => new DeviceAccessDenied(),
  unexpired: () => new ExpiredToken(),
  ...TARGET_REFUSALS,
  user_enabled: invalidCode,
  // withCurrentClient redoes the request when the client it decided with is stale.
  client_unchanged: invalidCode,
};
