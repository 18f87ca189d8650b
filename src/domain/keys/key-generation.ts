// A fresh signing key pair for one algorithm, named by its RFC 7638 thumbprint.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { SigningAlg } from './signing-algs.js';

export interface GeneratedKey {
  kid: string;
  alg: SigningAlg;
  privateJwk: JWK;
  /** The public members only, with kid, alg and use (RFC 7517 4). */
  publicJwk: JWK;
}

/** RSA keys of 2048 bits (RFC 7518 3.3, 3.5), P-256 for ES256, Ed25519 for EdDSA (RFC 8037). */
export async function generateSigningKey(alg: SigningAlg): Promise<GeneratedKey> {
  const options = alg === 'EdDSA' ? { crv: 'Ed25519', extractable: true } : { modulusLength: 2048, extractable: true };
  const { privateKey, publicKey } = await generateKeyPair(alg, options);
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return {
    kid,
    alg,
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg },
    publicJwk: { ...publicJwk, kid, alg, use: 'sig' },
  };
}
