// Builds and signs ID tokens (OIDC Core 2 and 3.1.3.6).
import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import { epochSeconds } from './clock.js';
import type { KeyStore } from './keys.js';

export interface IdTokenInput {
  issuer: string;
  subject: string;
  audience: string;
  authTime: Date;
  nonce: string | null;
  accessToken: string;
  now: Date;
  ttlSeconds: number;
}

/**
 * OIDC Core 3.1.3.6: at_hash is the base64url encoding of the left-most half of the hash of the
 * access token, with the hash that the ID token's alg uses (SHA-256 for RS256).
 */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');
}

export async function signIdToken(keys: KeyStore, input: IdTokenInput): Promise<string> {
  const key = keys.signer('RS256');
  const iat = epochSeconds(input.now);
  const claims: Record<string, unknown> = {
    auth_time: epochSeconds(input.authTime),
    at_hash: accessTokenHash(input.accessToken),
  };
  if (input.nonce !== null) claims.nonce = input.nonce;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .setIssuer(input.issuer)
    .setSubject(input.subject)
    .setAudience(input.audience)
    .setIssuedAt(iat)
    .setExpirationTime(iat + input.ttlSeconds)
    .sign(key.privateKey);
}
