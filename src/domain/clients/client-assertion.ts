// Client authentication with a JWT (RFC 7523 2.2 and 3; OIDC Core 9): client_secret_jwt, an HMAC with the client's
// secret, and private_key_jwt, a signature by a key of the client's registered `jwks` or `jwks_uri`.
import { errors, jwtVerify, type JWTPayload, type JWTVerifyOptions } from 'jose';
import { InvalidClient, TemporarilyUnavailable } from '../../errors/oauth-error.js';
import { recordAssertionJti } from '../../storage/client-assertions.js';
import { epochSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { openSecret } from '../keys/sealed-secrets.js';
import { KeyEncryptionError } from '../keys/key-encryption.js';
import { sha256 } from '../secrets.js';
import { ASSERTION_ALGS, isAssertionMethod } from './auth-methods.js';
import { isFapi2Alg } from './fapi2.js';
import { ClientKeysUnavailable, verifyWithClientKeys } from './client-jwks.js';
import type { Client } from './clients.js';

/**
 * RFC 7523 3 (4): the server "MAY reject JWTs with an "exp" claim value that is unreasonably far in the future".
 * Here, more than five minutes: client libraries make assertions valid for a minute or two (openid-client: 60 s).
 */
export const ASSERTION_MAX_LIFETIME_SECONDS = 300;
/** Clocks of client and server may differ by this much (exp, nbf, iat). */
export const ASSERTION_CLOCK_TOLERANCE_SECONDS = 30;

const refused = (detail: string) => new InvalidClient('client authentication failed', { detail });

/**
 * Verifies `assertion` as the client's own credential and records its jti. `recordJti: false` when the same request
 * already recorded it (the token endpoint redoes a request once with the client as registered now).
 */
export async function verifyClientAssertion(
  ctx: ProviderContext,
  client: Client,
  assertion: string,
  options: { recordJti: boolean } = { recordJti: true },
): Promise<void> {
  const method = client.authMethod;
  if (!isAssertionMethod(method)) throw refused('the client does not authenticate with a JWT');
  const now = ctx.clock();
  const issuer = ctx.config.issuer;
  const verifyOptions: JWTVerifyOptions = {
    // RFC 7523 3 (1), (2); OIDC Core 9: iss and sub are the client_id.
    issuer: client.clientId,
    subject: client.clientId,
    // RFC 7523 3 (3): the audience identifies the authorization server: its issuer, or its token endpoint.
    // FAPI 2.0 5.3.2.1 (8): a FAPI 2.0 client's assertions name the issuer alone.
    audience: client.fapi2 ? issuer : [issuer, `${issuer}/token`],
    // FAPI 2.0 5.4.1: PS256, ES256 or EdDSA only.
    algorithms: client.authSigningAlg ? [client.authSigningAlg] : ASSERTION_ALGS[method].filter((a) => !client.fapi2 || isFapi2Alg(a)),
    currentDate: now,
    clockTolerance: ASSERTION_CLOCK_TOLERANCE_SECONDS,
    // RFC 7523 3 (4) exp is required; OIDC Core 9 makes jti REQUIRED too.
    requiredClaims: ['exp', 'jti'],
  };
  let payload: JWTPayload;
  try {
    payload =
      method === 'client_secret_jwt'
        ? await verifyWithSecret(ctx, client, assertion, verifyOptions)
        : await verifyWithKeys(ctx, client, assertion, verifyOptions);
  } catch (err) {
    if (err instanceof ClientKeysUnavailable) {
      ctx.log.warn({ event: 'client_keys_unavailable', clientId: client.clientId, reason: err.message }, 'client authentication');
      throw new TemporarilyUnavailable("the client's keys could not be read from its jwks_uri, try again shortly");
    }
    if (err instanceof KeyEncryptionError) {
      ctx.log.warn({ event: 'client_secret_unreadable', clientId: client.clientId, reason: err.message }, 'client authentication');
      throw refused('the sealed client secret does not open');
    }
    if (err instanceof errors.JOSEError) throw refused(`the assertion was refused: ${err.code}`);
    throw err;
  }
  const nowSeconds = epochSeconds(now);
  if (payload.exp! - nowSeconds > ASSERTION_MAX_LIFETIME_SECONDS + ASSERTION_CLOCK_TOLERANCE_SECONDS)
    throw refused('the assertion is valid for too long (exp too far ahead)');
  if (payload.iat !== undefined && payload.iat > nowSeconds + ASSERTION_CLOCK_TOLERANCE_SECONDS)
    throw refused('the assertion was issued in the future');
  if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > 512) throw refused('the assertion has no usable jti');
  if (!options.recordJti) return;
  // RFC 7523 3 (7): a jti already used is a replay. Recorded only once the signature holds, so that nobody without
  // the client's key can use up its jti values.
  const fresh = await recordAssertionJti(ctx.db, {
    clientId: client.clientId,
    jtiHash: sha256(payload.jti),
    expiresAt: new Date((payload.exp! + ASSERTION_CLOCK_TOLERANCE_SECONDS) * 1000),
  });
  if (!fresh) throw refused('the assertion was used before (jti replayed)');
}

/** OIDC Core 10.1: the HMAC key is "the octets of the UTF-8 representation of the client_secret". */
async function verifyWithSecret(ctx: ProviderContext, client: Client, assertion: string, options: JWTVerifyOptions): Promise<JWTPayload> {
  if (client.secretSealed === null) throw refused('the client has no sealed secret');
  if (client.secretExpiresAt !== null && client.secretExpiresAt <= ctx.clock()) throw refused('the client secret has expired');
  const key = await openSecret(ctx, 'client-secret', client.clientId, client.secretSealed);
  return (await jwtVerify(assertion, new Uint8Array(key), options)).payload;
}

/** A key of the registered set (client-jwks.ts verifyWithClientKeys). */
async function verifyWithKeys(ctx: ProviderContext, client: Client, assertion: string, options: JWTVerifyOptions): Promise<JWTPayload> {
  const payload = await verifyWithClientKeys(ctx, client, assertion, options);
  if (!payload) throw refused('the client has registered no keys');
  return payload;
}
