// The ID token signing keys: generated once into the database, imported once per process.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey } from 'jose';
import type { Db } from '../storage/database.js';
import { ensureSigningKeys, type NewSigningKey } from '../storage/signing-keys.js';

/** RS256 is mandatory to implement (OIDC Core 15.1); it is the one algorithm published for now. */
export const SIGNING_ALGS = ['RS256'] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];

export interface SigningKey {
  kid: string;
  alg: SigningAlg;
  privateKey: CryptoKey | Uint8Array;
}

export interface KeyStore {
  /** The current key for an algorithm. */
  signer(alg: SigningAlg): SigningKey;
  /** The public JWK Set document, serialised once. */
  readonly jwksJson: string;
}

async function generateSigningKey(alg: string): Promise<NewSigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { modulusLength: 2048, extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return {
    kid,
    alg,
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg },
    publicJwk: { ...publicJwk, kid, alg, use: 'sig' },
    createdAt: new Date(),
  };
}

export async function loadKeyStore(db: Db): Promise<KeyStore> {
  const rows = await ensureSigningKeys(db, SIGNING_ALGS, generateSigningKey);
  const signers = new Map<string, SigningKey>();
  for (const row of rows) {
    if (signers.has(row.alg)) continue; // rows come newest first
    const alg = row.alg as SigningAlg;
    signers.set(alg, { kid: row.kid, alg, privateKey: await importJWK(row.private_jwk as JWK, alg) });
  }
  const jwks = { keys: rows.map((r) => r.public_jwk) };
  return {
    signer(alg) {
      const key = signers.get(alg);
      if (!key) throw new Error(`no signing key for ${alg}`);
      return key;
    },
    jwksJson: JSON.stringify(jwks),
  };
}

