// A client's own key pair and JWK Set, client assertions made with it (RFC 7523), and a jwks_uri served on loopback.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JSONWebKeySet, type JWK } from 'jose';
import type { Test } from 'tap';

export const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export interface ClientKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function clientKey(alg = 'ES256', kid: string = randomUUID()): Promise<ClientKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export const jwksOf = (...keys: ClientKey[]): JSONWebKeySet => ({ keys: keys.map((k) => k.publicJwk) });

export interface AssertionClaims {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  /** Seconds from now (may be negative); null leaves exp out. */
  expiresIn?: number | null;
  jti?: string | null;
  iat?: number;
  /** The assertion's "now" (the app's clock, when the test moved it); the wall clock unless told. */
  at?: Date;
}

/** A client assertion signed with `key` (a ClientKey, or the bytes of a client_secret for HS256). */
export async function assertion(
  clientId: string,
  aud: string | string[],
  key: ClientKey | { secret: string; alg?: string },
  claims: AssertionClaims = {},
  headerOverride: Record<string, unknown> = {},
): Promise<string> {
  const now = Math.floor((claims.at ?? new Date()).getTime() / 1000);
  const payload: Record<string, unknown> = {
    iss: claims.iss ?? clientId,
    sub: claims.sub ?? clientId,
    aud: claims.aud ?? aud,
    iat: claims.iat ?? now,
  };
  if (claims.expiresIn !== null) payload.exp = now + (claims.expiresIn ?? 60);
  if (claims.jti !== null) payload.jti = claims.jti ?? randomUUID();
  const jwt = new SignJWT(payload);
  if ('secret' in key)
    return jwt.setProtectedHeader({ alg: key.alg ?? 'HS256', ...headerOverride }).sign(new TextEncoder().encode(key.secret));
  return jwt.setProtectedHeader({ alg: key.alg, kid: key.kid, ...headerOverride }).sign(key.privateKey);
}

/** The form fields of a client assertion. */
export const assertionFields = (jwt: string) => ({ client_assertion_type: JWT_BEARER, client_assertion: jwt });

/** A jwks_uri on 127.0.0.1 whose keys (or failure) the test sets; counts the fetches. Closed with the test. */
export async function servedJwks(
  t: Test,
  initial: JSONWebKeySet,
): Promise<{ uri: string; set(keys: JSONWebKeySet | 'down'): void; fetches(): number }> {
  let current: JSONWebKeySet | 'down' = initial;
  let count = 0;
  const server = http.createServer((_req, res) => {
    count += 1;
    if (current === 'down') {
      res.writeHead(503).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify(current));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    uri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`,
    set: (keys) => {
      current = keys;
    },
    fetches: () => count,
  };
}
