// DPoP proofs (RFC 9449 4.2) made by a test client's own key, with every claim overridable for the refusal tests.
import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

export interface DpopKey {
  privateKey: CryptoKey;
  publicJwk: JWK;
  jkt: string;
}

export async function dpopKey(alg = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  return { privateKey, publicJwk, jkt: await calculateJwkThumbprint(publicJwk, 'sha256') };
}

export interface ProofOptions {
  htm?: string;
  htu: string;
  accessToken?: string;
  nonce?: string;
  iat?: number;
  jti?: string;
  alg?: string;
  typ?: string;
  jwk?: JWK;
}

/** A proof for `htm` `htu` (and `accessToken`'s ath), signed with `key`. */
export function dpopProof(key: DpopKey, o: ProofOptions): Promise<string> {
  const payload: Record<string, unknown> = {
    jti: o.jti ?? randomUUID(),
    htm: o.htm ?? 'POST',
    htu: o.htu,
    iat: o.iat ?? Math.floor(Date.now() / 1000),
  };
  if (o.accessToken !== undefined) payload.ath = createHash('sha256').update(o.accessToken).digest('base64url');
  if (o.nonce !== undefined) payload.nonce = o.nonce;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: o.alg ?? 'ES256', typ: o.typ ?? 'dpop+jwt', jwk: o.jwk ?? key.publicJwk })
    .sign(key.privateKey);
}
