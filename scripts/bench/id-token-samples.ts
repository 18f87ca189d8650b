// A sample of the ID tokens of a run (the first and every n-th), verified after the timed window against the
// server's JWKS: signature, iss, aud, exp and iat (OIDC Core 3.1.3.7), nonce, and sub when userinfo gave one.
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';

interface Sample {
  idToken: string;
  /** The nonce of the request; null where none is expected (a refreshed ID token, OIDC Core 12.2). */
  nonce: string | null;
  sub?: string;
}

export interface Verification {
  checked: number;
  ok: number;
  failures: Record<string, number>;
  /** Signing algorithms seen (RS256 for a like-for-like comparison with the peer). */
  algs: Record<string, number>;
}

export class IdTokenSamples {
  private seen = 0;
  private readonly samples: Sample[] = [];

  constructor(private readonly every: number) {}

  offer(sample: Sample): void {
    this.seen += 1;
    if (this.seen === 1 || this.seen % this.every === 0) this.samples.push(sample);
  }

  async verify(jwks: JSONWebKeySet, issuer: string, clientId: string): Promise<Verification> {
    const keys = createLocalJWKSet(jwks);
    const result: Verification = { checked: 0, ok: 0, failures: {}, algs: {} };
    for (const sample of this.samples) {
      result.checked += 1;
      try {
        const { payload, protectedHeader } = await jwtVerify(sample.idToken, keys, {
          issuer,
          audience: clientId,
          requiredClaims: ['sub', 'exp', 'iat'],
        });
        if (sample.nonce !== null && payload.nonce !== sample.nonce) throw new Error('nonce differs from the request');
        if (sample.sub !== undefined && payload.sub !== sample.sub) throw new Error('sub differs from userinfo');
        result.algs[protectedHeader.alg] = (result.algs[protectedHeader.alg] ?? 0) + 1;
        result.ok += 1;
      } catch (err) {
        const kind = (err as { code?: string }).code ?? (err as Error).message;
        result.failures[kind] = (result.failures[kind] ?? 0) + 1;
      }
    }
    return result;
  }
}
