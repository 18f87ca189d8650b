// Builds and signs logout tokens (OpenID Connect Back-Channel Logout 1.0, 2.4).
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { epochSeconds } from '../clock.js';
import type { KeyStore } from '../keys/keys.js';
import type { SigningAlg } from '../keys/signing-algs.js';

/** Back-Channel Logout 1.0 2.4: the member of `events` that says this JWT is a logout token. */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** Short-lived (2.4: "a short-lived token"); each retry signs a new one. Never longer than an ID token lives. */
export const LOGOUT_TOKEN_MAX_TTL_SECONDS = 120;

export interface LogoutTokenInput {
  issuer: string;
  audience: string;
  subject: string;
  sid: string;
  alg: SigningAlg;
  now: Date;
  ttlSeconds: number;
}

/**
 * Back-Channel Logout 1.0 2.4: iss, aud, iat, exp, jti and events are required; sub and sid are both sent
 * (the token "MUST contain either a sub or a sid Claim, and MAY contain both"), so that a client that asked
 * for backchannel_logout_session_required gets its sid and every other client can match either; and "A nonce
 * Claim MUST NOT be present". 2.4 also recommends the explicit type `logout+jwt` in the header (RFC 8725 3.11).
 */
export async function signLogoutToken(keys: Pick<KeyStore, 'signer'>, input: LogoutTokenInput): Promise<string> {
  const key = keys.signer(input.alg);
  const iat = epochSeconds(input.now);
  return new SignJWT({ sid: input.sid, events: { [BACKCHANNEL_LOGOUT_EVENT]: {} } })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'logout+jwt' })
    .setIssuer(input.issuer)
    .setSubject(input.subject)
    .setAudience(input.audience)
    .setIssuedAt(iat)
    .setExpirationTime(iat + input.ttlSeconds)
    .setJti(randomUUID())
    .sign(key.privateKey);
}
