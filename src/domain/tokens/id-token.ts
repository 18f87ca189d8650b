// Builds and signs ID tokens (OIDC Core 2 and 3.1.3.6).
import { hash } from 'node:crypto';
import { CompactSign } from 'jose';
import { epochSeconds } from '../clock.js';
import type { KeyStore } from '../keys/keys.js';
import { DEFAULT_SIGNING_ALG, tokenHashAlgorithm, type SigningAlg } from '../keys/signing-algs.js';

/** The JWS `typ` of every ID token this provider signs; an id_token_hint must carry exactly this one. */
export const ID_TOKEN_TYP = 'JWT';

export interface IdTokenInput {
  issuer: string;
  subject: string;
  audience: string;
  authTime: Date;
  nonce: string | null;
  /** The session the user signed in with (Back-Channel Logout 1.0 2.1, Front-Channel Logout 1.0 3), when known. */
  sid?: string | null;
  /** How the user signed in (OIDC Core 2 `amr`, values from RFC 8176), when known. */
  amr?: string[] | null;
  /** The authentication context class (OIDC Core 2 `acr`), when one is known. */
  acr?: string | null;
  /** User claims (OIDC Core 5.1) to carry too (id-token-claims.ts); they never replace a claim set here. */
  userClaims?: Record<string, unknown> | undefined;
  /** Issue 40: org_id, org_name (and org_roles) of the organization the grant is for (organization-claims.ts). */
  organizationClaims?: Record<string, unknown> | undefined;
  accessToken: string;
  now: Date;
  ttlSeconds: number;
  /** The client's id_token_signed_response_alg; RS256 when omitted (OIDC Dynamic Client Registration 2). */
  alg?: SigningAlg;
}

/**
 * OIDC Core 3.1.3.6: "Its value is the base64url encoding of the left-most half of the hash of the octets of the
 * ASCII representation of the access_token value, where the hash algorithm used is the hash algorithm used in the
 * alg Header Parameter of the ID Token's JOSE Header." SHA-256 for RS256, PS256, ES256; SHA-512 for EdDSA (Ed25519).
 */
export function accessTokenHash(accessToken: string, alg: SigningAlg = DEFAULT_SIGNING_ALG): string {
  // Our access tokens are ASCII (base64url, or a JWS): their UTF-8 bytes are their ASCII bytes.
  const digest = hash(tokenHashAlgorithm(alg), accessToken, 'buffer');
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

const utf8 = new TextEncoder();

/**
 * The claims are assembled here and signed as a compact JWS: jose's JWT builder would validate and copy the
 * same few claims again on every token request, the hottest signature in the provider.
 */
export async function signIdToken(keys: Pick<KeyStore, 'signer'>, input: IdTokenInput): Promise<string> {
  const key = keys.signer(input.alg ?? DEFAULT_SIGNING_ALG);
  const iat = epochSeconds(input.now);
  const claims: Record<string, unknown> = {
    iss: input.issuer,
    sub: input.subject,
    aud: input.audience,
    iat,
    exp: iat + input.ttlSeconds,
    auth_time: epochSeconds(input.authTime),
    at_hash: accessTokenHash(input.accessToken, key.alg),
  };
  if (input.nonce !== null) claims.nonce = input.nonce;
  if (input.sid) claims.sid = input.sid;
  if (input.amr && input.amr.length > 0) claims.amr = input.amr;
  if (input.acr) claims.acr = input.acr;
  // The user's claims after, and never over, those set here. Not `{ ...userClaims, iss, ... }`: V8 (Node 20) builds
  // an object literal that starts with a spread and goes on with more keys tens of times slower (docs/benchmarks-history.md).
  for (const name in input.userClaims) if (!Object.hasOwn(claims, name)) claims[name] = input.userClaims[name];
  for (const name in input.organizationClaims) if (!Object.hasOwn(claims, name)) claims[name] = input.organizationClaims[name];
  return new CompactSign(utf8.encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: ID_TOKEN_TYP })
    .sign(key.privateKey);
}
