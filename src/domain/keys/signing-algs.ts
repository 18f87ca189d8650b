// The JWS algorithms ID tokens may be signed with, and the hash each one implies for at_hash.

/**
 * RS256 is mandatory to implement (OIDC Core 15.1); PS256, ES256 and EdDSA (Ed25519, RFC 8037) are offered per
 * client through `id_token_signed_response_alg` (OIDC Dynamic Client Registration 2). One current key each.
 */
export const SIGNING_ALGS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];

/** OIDC Dynamic Client Registration 2: "The default, if omitted, is RS256." */
export const DEFAULT_SIGNING_ALG: SigningAlg = 'RS256';

export function isSigningAlg(value: unknown): value is SigningAlg {
  return typeof value === 'string' && (SIGNING_ALGS as readonly string[]).includes(value);
}

/**
 * OIDC Core 3.1.3.6: at_hash uses "the hash algorithm used in the alg Header Parameter of the ID Token's JOSE
 * Header": SHA-256 for RS256, PS256 and ES256. Ed25519 signs with SHA-512 inside (RFC 8032 5.1), and that is the
 * hash OpenID's implementations take for EdDSA over Ed25519 (panva/oidc-token-hash, oauth4webapi).
 */
export function tokenHashAlgorithm(alg: SigningAlg): 'sha256' | 'sha512' {
  return alg === 'EdDSA' ? 'sha512' : 'sha256';
}
