// Pushed authorization requests (RFC 9126): a client posts its authorization request and gets a single-use,
// short-lived request_uri for /authorize; the request is validated at the push exactly as /authorize validates it.
import type { Config } from '../../config.js';
import { DpopError, InvalidRequest, InvalidRequestUri } from '../../errors/oauth-error.js';
import { consumePushedRequest, insertPushedRequest, pushedRequestState } from '../../storage/pushed-requests.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import type { Client } from '../clients/clients.js';
import { single, type RawParams } from '../params.js';
import { randomToken, sha256 } from '../secrets.js';
import { UntrustedRedirectError, validateRequest, verifyTarget } from './authorization-request.js';
import { PUSHED_PARAMS, withoutVersionField } from './pushed-params.js';
import { withResources } from './resource-request.js';
import { withOrganization } from './organization-request.js';
import { verifyRequestObject, type RequestParams } from './request-object.js';
import { DPOP_ALGS, type DpopProof } from '../tokens/dpop.js';

/** RFC 9126 2.2: "urn:ietf:params:oauth:request_uri:<reference-value>". */
export const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';

/** The client authentication fields of the push: credentials, never part of the stored request. */
const CLIENT_AUTH_FIELDS = new Set(['client_secret', 'client_assertion', 'client_assertion_type']);

export interface PushedRequestResponse {
  request_uri: string;
  expires_in: number;
}

/**
 * RFC 9126 2.1: the pushed request of an authenticated `client`, validated as /authorize would validate it, stored
 * under the digest of a new request_uri. Errors are OAuthErrors for the JSON body (RFC 9126 2.3), never redirects.
 */
export async function pushAuthorizationRequest(
  ctx: ProviderContext,
  client: Client,
  body: RawParams,
  dpop?: DpopProof,
): Promise<PushedRequestResponse> {
  // RFC 9126 2.1: "The request_uri authorization request parameter is one exception, and it MUST NOT be provided."
  if (single(body, 'request_uri') !== undefined) throw new InvalidRequest('request_uri must not be pushed (RFC 9126 2.1)');
  // RFC 9126 2.1: client_id is required as for any authorization request; it names the authenticated client
  // (src/http/protocol/client-auth.ts refused one that names another), and is filled in when authentication named it.
  const pushed: RequestParams = { client_id: client.clientId };
  for (const [name, value] of Object.entries(body)) {
    if (value !== undefined && name !== 'client_id' && !CLIENT_AUTH_FIELDS.has(name)) pushed[name] = value;
  }
  // RFC 9126 3: a request object may be pushed; its parameters are then the request (RFC 9101 6.3).
  const request = single(pushed, 'request');
  const params = boundToProofKey(request === undefined ? pushed : await verifyRequestObject(ctx, client, request), dpop);

  // RFC 9126 2.1: "The authorization server MUST process the request as follows: [...] 3. Validate the pushed
  // request as it would an authorization request sent to the authorization endpoint."
  try {
    const target = await verifyTarget(async (id) => (id === client.clientId ? client : undefined), params);
    // RFC 8707 2.1: the resources too, so that one the client may not ask for is refused here, not at /authorize.
    await withOrganization(ctx, client, await withResources(ctx, client, validateRequest(target, params), params), params);
  } catch (err) {
    if (err instanceof UntrustedRedirectError) throw new InvalidRequest(err.message);
    throw err;
  }

  const requestUri = `${REQUEST_URI_PREFIX}${randomToken()}`;
  const ttl = ctx.config.pushedRequests.requestUriTtlSeconds;
  await insertPushedRequest(ctx.db, {
    requestUriHash: sha256(requestUri),
    clientId: client.clientId,
    params: withoutVersionField(params),
    expiresAt: addSeconds(ctx.clock(), ttl),
  });
  return { request_uri: requestUri, expires_in: ttl };
}

/**
 * RFC 9449 10.1: with PAR, the DPoP key may be named by dpop_jkt, or by a DPoP proof sent with the push, which binds
 * the code as dpop_jkt would. "If both mechanisms are used at the same time, the authorization server MUST reject the
 * request if the JWK Thumbprint in dpop_jkt does not match the public key in the DPoP header."
 */
function boundToProofKey(params: RequestParams, dpop: DpopProof | undefined): RequestParams {
  if (dpop === undefined) return params;
  const named = single(params, 'dpop_jkt');
  if (named !== undefined && named !== dpop.jkt)
    throw new DpopError('invalid_dpop_proof', 'dpop_jkt names another key than the DPoP proof', { resource: false, algs: DPOP_ALGS });
  return { ...params, dpop_jkt: dpop.jkt };
}

/**
 * RFC 9126 4: the parameters pushed under `requestUri` by `clientId`, taken once. "Authorization servers SHOULD treat
 * request_uri values as one-time use" (this one does, without the MAY for reloads); "An expired request_uri MUST be
 * rejected as invalid." Anything but an unused, unexpired request of this client is invalid_request_uri (RFC 9101 7),
 * and so is one whose stored parameters this version does not read (pushed by another version, a rolling restart).
 */
export async function takePushedRequest(ctx: ProviderContext, clientId: string, requestUri: string): Promise<RequestParams> {
  const hash = sha256(requestUri);
  const taken = await consumePushedRequest(ctx.db, PUSHED_PARAMS, hash, clientId, ctx.clock());
  if (taken?.ok) return taken.value;
  if (taken) {
    ctx.log.warn({ event: 'pushed_request_unreadable', clientId, reason: taken.reason }, 'a pushed request this version does not read');
    throw new InvalidRequestUri('request_uri cannot be read; push the request again');
  }
  const state = await pushedRequestState(ctx.db, hash);
  if (!state) throw new InvalidRequestUri('request_uri is unknown');
  if (state.client_id !== clientId) throw new InvalidRequestUri('request_uri was not pushed by this client');
  if (state.consumed_at !== null) throw new InvalidRequestUri('request_uri was already used (RFC 9126 4: one-time use)');
  throw new InvalidRequestUri('request_uri has expired');
}

/**
 * RFC 9126 5 and 6 require_pushed_authorization_requests, of the server or of the client: authorization request
 * data is accepted only through PAR. A request that did not come through PAR is invalid_request.
 */
export function assertPushedWhenRequired(config: Pick<Config, 'pushedRequests'>, client: Client, pushed: boolean): void {
  if (pushed) return;
  // FAPI 2.0 5.3.2.2 (2): "shall require pushed authorization requests".
  if (config.pushedRequests.required || client.requirePushedAuthorizationRequests || client.fapi2)
    throw new InvalidRequest('authorization requests must be pushed first (RFC 9126: use the pushed_authorization_request_endpoint)');
}
