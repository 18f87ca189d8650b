// Signed request objects (RFC 9101, OIDC Core 6.1): a JWT signed by the client with a key of its registered `jwks`
// or `jwks_uri`, whose claims are the authorization request's parameters.
import { isFapi2Alg } from '../clients/fapi2.js';
import { decodeProtectedHeader, errors, type JWTPayload, type JWTVerifyOptions } from 'jose';
import { InvalidRequestObject, TemporarilyUnavailable } from '../../errors/oauth-error.js';
import { epochSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { ASSERTION_ALGS } from '../clients/auth-methods.js';
import { ClientKeysUnavailable, verifyWithClientKeys } from '../clients/client-jwks.js';
import type { Client } from '../clients/clients.js';

/**
 * The algorithms a request object may be signed with (discovery request_object_signing_alg_values_supported): the
 * public key signatures of private_key_jwt. OIDC Core 6.1 allows `none`, which is refused here ("unsigned request
 * objects are refused", issue 18): an unsigned object does not authenticate its source (RFC 9101 10.2).
 */
export const REQUEST_OBJECT_ALGS: readonly string[] = ASSERTION_ALGS.private_key_jwt;

/** A request object may be valid this long ahead (clock skew included): an hour, as FAPI 2.0's upper bound. */
export const REQUEST_OBJECT_MAX_LIFETIME_SECONDS = 3600;
export const REQUEST_OBJECT_CLOCK_TOLERANCE_SECONDS = 30;

/** RFC 9101 10.8: the explicit type a request object should carry; a plain JWT (or none) is accepted too. */
const TYPES = new Set(['oauth-authz-req+jwt', 'JWT']);
/** JWT claims of the object itself, not authorization request parameters. */
const JWT_CLAIMS = new Set(['iss', 'aud', 'exp', 'iat', 'nbf', 'jti', 'sub']);

export type RequestParams = Record<string, string | string[]>;

/**
 * RFC 9101 6.3: verifies `jwt` as `client`'s request object and returns its parameters, which alone make the
 * request ("The authorization server MUST only use the parameters in the Request Object, even if the same parameter
 * is provided in the query parameter"). Throws invalid_request_object (RFC 9101 7), or temporarily_unavailable
 * when the client's jwks_uri cannot be read.
 */
export async function verifyRequestObject(ctx: ProviderContext, client: Client, jwt: string): Promise<RequestParams> {
  // RFC 9101 4: a JWS or a nested JWE; encryption is not offered (no request_object_encryption_alg_values_supported).
  const parts = jwt.split('.');
  if (parts.length === 5) throw new InvalidRequestObject('encrypted request objects are not supported');
  let header;
  try {
    header = decodeProtectedHeader(jwt);
  } catch {
    throw new InvalidRequestObject('the request object is not a JWT');
  }
  if (parts.length !== 3) throw new InvalidRequestObject('the request object is not a JWT');
  if (header.alg === 'none') throw new InvalidRequestObject('unsigned request objects (alg none) are not accepted');
  if (header.typ !== undefined && !TYPES.has(header.typ)) throw new InvalidRequestObject('the request object has an unexpected typ');

  const now = ctx.clock();
  const options: JWTVerifyOptions = {
    // RFC 9101 4: "iss (issuer) and aud (audience)... The value of aud should be the value of the authorization
    // server (AS) issuer"; the client signs, so iss is its client_id (OIDC Core 6.1).
    issuer: client.clientId,
    audience: ctx.config.issuer,
    // OIDC Registration 2 request_object_signing_alg: "All Request Objects from this Client MUST be rejected, if not
    // signed with this algorithm."
    // FAPI 2.0 5.4.1: PS256, ES256 or EdDSA only.
    algorithms: client.requestObjectSigningAlg
      ? [client.requestObjectSigningAlg]
      : REQUEST_OBJECT_ALGS.filter((a) => !client.fapi2 || isFapi2Alg(a)),
    currentDate: now,
    clockTolerance: REQUEST_OBJECT_CLOCK_TOLERANCE_SECONDS,
    // A request object that never expires could be replayed for ever: exp is required (as FAPI 2.0 requires it).
    requiredClaims: ['exp'],
  };
  let payload: JWTPayload;
  try {
    const verified = await verifyWithClientKeys(ctx, client, jwt, options);
    if (!verified) throw new InvalidRequestObject('the client has registered no keys (jwks or jwks_uri) to verify it with');
    payload = verified;
  } catch (err) {
    if (err instanceof ClientKeysUnavailable) {
      ctx.log.warn({ event: 'client_keys_unavailable', clientId: client.clientId, reason: err.message }, 'request object');
      throw new TemporarilyUnavailable("the client's keys could not be read from its jwks_uri, try again shortly");
    }
    if (err instanceof errors.JOSEError) throw new InvalidRequestObject(`the request object was refused: ${refusal(err)}`);
    throw err;
  }
  if (payload.exp! - epochSeconds(now) > REQUEST_OBJECT_MAX_LIFETIME_SECONDS + REQUEST_OBJECT_CLOCK_TOLERANCE_SECONDS)
    throw new InvalidRequestObject('the request object is valid for too long (exp too far ahead)');
  return requestParams(client, payload);
}

/** The RFC 9101 4 claims as authorization request parameters, checked against the client. */
function requestParams(client: Client, payload: JWTPayload): RequestParams {
  // RFC 9101 4: "The Request Object MUST NOT include the request and request_uri parameters" (no nesting).
  if ('request' in payload || 'request_uri' in payload)
    throw new InvalidRequestObject('a request object must not contain request or request_uri');
  // RFC 9101 6.3: "The client ID values in the client_id request parameter and in the Request Object client_id
  // claim MUST be identical."
  if (payload.client_id !== undefined && payload.client_id !== client.clientId)
    throw new InvalidRequestObject('client_id in the request object is not the client_id of the request');
  const params: RequestParams = { client_id: client.clientId };
  for (const [name, value] of Object.entries(payload)) {
    if (JWT_CLAIMS.has(name) || name === 'client_id' || value === null) continue;
    if (typeof value === 'string') params[name] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') params[name] = String(value);
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) params[name] = value as string[];
    // OIDC Core 5.5: `claims` is a JSON object; as a query parameter it is that object's JSON text.
    else if (typeof value === 'object' && !Array.isArray(value)) params[name] = JSON.stringify(value);
    else throw new InvalidRequestObject(`the request object claim ${/^[a-z_]{1,64}$/.test(name) ? name : ''} has an unusable value`);
  }
  return params;
}

/** A refusal the client may read: jose's reason for the claims it checks, its code otherwise. */
function refusal(err: errors.JOSEError): string {
  if (err instanceof errors.JWTClaimValidationFailed) return `${err.claim} ${err.reason}`;
  if (err instanceof errors.JWTExpired) return 'exp in the past';
  return err.code;
}
