// DPoP proofs (RFC 9449 4): checked at the token endpoint, where they bind the tokens issued (5), and at userinfo,
// where a bound token is only taken with a proof by its key (7). Server nonces (8) are stateless: an HMAC of the
// current minute under a key derived from the provider's own secret, so that every instance accepts every other's.
import { createHmac, hash, hkdfSync } from 'node:crypto';
import { calculateJwkThumbprint, EmbeddedJWK, errors, jwtVerify, type JWK } from 'jose';
import { DpopError } from '../../errors/oauth-error.js';
import { recordDpopJti } from '../../storage/dpop-proofs.js';
import { epochSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { safeEqual, sha256 } from '../secrets.js';

/** RFC 9449 4.2: asymmetric algorithms only ("MUST NOT be none or an identifier for a symmetric algorithm"). */
export const DPOP_ALGS = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512', 'EdDSA'] as const;

/** A proof from the future is allowed this much clock difference. */
const FUTURE_SKEW_SECONDS = 30;
/** A nonce names a minute; the one of the minute before is still taken. */
const NONCE_PERIOD_SECONDS = 60;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

export interface DpopProof {
  /** RFC 7638 thumbprint (SHA-256) of the proof's key: what tokens are bound to (RFC 9449 6.1 cnf.jkt). */
  jkt: string;
  /** The proof's JWS alg. */
  alg: string;
}

/** Where the proof was presented: `resource` answers 401 with a DPoP challenge, the token endpoint 400. */
export interface ProofTarget {
  method: string;
  /** The endpoint's URL, without query or fragment (RFC 9449 4.2 htu). */
  url: string;
  resource: boolean;
  /** At a resource: the access token the proof must be for (ath). */
  accessToken?: string;
}

function nonceKey(ctx: ProviderContext): Buffer {
  return Buffer.from(hkdfSync('sha256', ctx.deviceSecret, Buffer.alloc(0), 'sso-provider dpop nonce v1', 32));
}

function nonceFor(ctx: ProviderContext, period: number): string {
  return createHmac('sha256', nonceKey(ctx)).update(`dpop-nonce:${period}`).digest('base64url').slice(0, 32);
}

/** RFC 9449 8: the nonce to hand out now (in DPoP-Nonce). */
export function currentNonce(ctx: ProviderContext): string {
  return nonceFor(ctx, Math.floor(epochSeconds(ctx.clock()) / NONCE_PERIOD_SECONDS));
}

function isCurrentNonce(ctx: ProviderContext, nonce: unknown): boolean {
  if (typeof nonce !== 'string') return false;
  const period = Math.floor(epochSeconds(ctx.clock()) / NONCE_PERIOD_SECONDS);
  return safeEqual(nonce, nonceFor(ctx, period)) || safeEqual(nonce, nonceFor(ctx, period - 1));
}

/** RFC 9449 4.3 (9): htu is compared without query and fragment, scheme and host case-insensitively. */
function sameUrl(htu: unknown, url: string): boolean {
  if (typeof htu !== 'string' || !URL.canParse(htu)) return false;
  const a = new URL(htu);
  const b = new URL(url);
  return a.origin === b.origin && a.pathname === b.pathname;
}

/**
 * RFC 9449 4.3: checks the DPoP header of a request, if any; undefined when there is none. Throws DpopError
 * (invalid_dpop_proof or use_dpop_nonce) for a proof that fails any check, before any token is looked up.
 */
export async function verifyDpopProof(
  ctx: ProviderContext,
  header: string | string[] | undefined,
  target: ProofTarget,
): Promise<DpopProof | undefined> {
  if (header === undefined) return undefined;
  const at = { resource: target.resource, algs: DPOP_ALGS };
  const refuse = (description: string) => new DpopError('invalid_dpop_proof', description, at);
  // (1) "There is not more than one DPoP HTTP request header field": Node joins repeats with a comma, which no JWT has.
  if (Array.isArray(header) || header.includes(',')) throw refuse('send one DPoP header');
  const now = ctx.clock();
  let payload;
  let jwk: JWK;
  let alg: string;
  try {
    const verified = await jwtVerify(header, EmbeddedJWK, {
      algorithms: [...DPOP_ALGS],
      typ: 'dpop+jwt',
      currentDate: now,
      requiredClaims: ['jti', 'htm', 'htu', 'iat'],
    });
    payload = verified.payload;
    jwk = verified.protectedHeader.jwk as JWK;
    alg = verified.protectedHeader.alg;
  } catch (err) {
    if (err instanceof errors.JOSEError || err instanceof TypeError)
      throw refuse(`the DPoP proof was refused (${(err as { code?: string }).code ?? 'malformed'})`);
    throw err;
  }
  // (5) "the jwk JOSE Header Parameter does not contain a private key".
  if (!jwk || typeof jwk !== 'object' || PRIVATE_MEMBERS.some((m) => m in jwk)) throw refuse('the DPoP proof must carry a public key');
  if (payload.htm !== target.method) throw refuse('the DPoP proof is for another HTTP method (htm)');
  if (!sameUrl(payload.htu, target.url)) throw refuse('the DPoP proof is for another URL (htu)');
  const iat = payload.iat!;
  const nowSeconds = epochSeconds(now);
  if (iat > nowSeconds + FUTURE_SKEW_SECONDS || iat < nowSeconds - ctx.config.dpop.proofMaxAgeSeconds)
    throw refuse('the DPoP proof was not made just now (iat)');
  if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > 512) throw refuse('the DPoP proof has no usable jti');
  if (target.accessToken !== undefined) {
    // RFC 9449 4.3 (12): ath is the hash of the access token it is sent with.
    const ath = hash('sha256', target.accessToken, 'base64url');
    if (typeof payload.ath !== 'string' || !safeEqual(payload.ath, ath)) throw refuse('the DPoP proof is for another access token (ath)');
  }
  // RFC 9449 8: a proof without the current nonce gets use_dpop_nonce and the nonce to use.
  if ((ctx.config.dpop.nonceRequired || payload.nonce !== undefined) && !isCurrentNonce(ctx, payload.nonce)) {
    throw new DpopError('use_dpop_nonce', 'use the DPoP-Nonce the server gave', { ...at, nonce: currentNonce(ctx) });
  }
  // RFC 9449 11.1: the jti is recorded until the proof could no longer be accepted; recorded last, once all holds.
  const fresh = await recordDpopJti(
    ctx.db,
    sha256(`${payload.jti}\u0000${payload.htu}`),
    new Date((iat + ctx.config.dpop.proofMaxAgeSeconds + FUTURE_SKEW_SECONDS) * 1000),
  );
  if (!fresh) throw refuse('the DPoP proof was used before (jti)');
  return { jkt: await calculateJwkThumbprint(jwk, 'sha256'), alg };
}
