// A client's public keys (RFC 7591 2 `jwks` and `jwks_uri`), for the client assertions of private_key_jwt (RFC 7523).
// A registered `jwks` is checked when registered; a `jwks_uri` is fetched through the one guarded fetch
// (src/outbound/guarded-fetch.ts), remembered for a bounded time, and fetched again once when an assertion names a
// key it does not hold (the client rotated its keys), but not more often than every JWKS_REFETCH_COOLDOWN_MS.
import { createLocalJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyOptions } from 'jose';
import type { Config } from '../../config.js';
import type { Clock } from '../clock.js';
import type { Client } from './clients.js';
import { isLoopbackUrl } from '../../net/loopback.js';
import { AllowedNetworks } from '../../outbound/address-ranges.js';
import type { OutboundDeps, OutboundPolicy } from '../../outbound/guarded-fetch.js';
import { fetchJsonDocument } from '../../outbound/fetch-json.js';
import { storedUrlProblem } from '../../outbound/stored-url.js';

/** A fetched key set is used this long before it is fetched again. */
export const JWKS_CACHE_MS = 300_000;
/** Between two fetches of one jwks_uri for an unknown key: a flood of made-up kids costs one fetch per period. */
export const JWKS_REFETCH_COOLDOWN_MS = 30_000;
export const JWKS_FETCH_TIMEOUT_MS = 5_000;
export const JWKS_MAX_BYTES = 64 * 1024;
/** More keys than any rotation needs; a larger set is refused. */
export const JWKS_MAX_KEYS = 20;
/** jwks_uri sets remembered per instance; the oldest goes first. */
const MAX_ENTRIES = 1_000;

/** RFC 7517 4 / 6.2.2: members that only a private or symmetric key has; a client registers public keys only. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
/** RFC 7518 6: what each key type must carry to verify a signature. */
const REQUIRED_MEMBERS: Record<string, string[]> = { RSA: ['n', 'e'], EC: ['crv', 'x', 'y'], OKP: ['crv', 'x'] };

/** What is wrong with a JWK Set of public signing keys, or undefined. Never echoes a key. */
export function jwksProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be a JWK Set: an object with a "keys" array';
  const keys = (value as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0) return 'must be a JWK Set: an object with a non-empty "keys" array';
  if (keys.length > JWKS_MAX_KEYS) return `must hold at most ${JWKS_MAX_KEYS} keys`;
  for (const [i, key] of keys.entries()) {
    if (typeof key !== 'object' || key === null || Array.isArray(key)) return `keys[${i}] must be a JWK object`;
    const jwk = key as Record<string, unknown>;
    const required = typeof jwk.kty === 'string' ? REQUIRED_MEMBERS[jwk.kty] : undefined;
    if (!required) return `keys[${i}] must have kty RSA, EC or OKP`;
    if (PRIVATE_MEMBERS.some((m) => m in jwk)) return `keys[${i}] must be a public key (it holds private key members)`;
    if (required.some((m) => typeof jwk[m] !== 'string')) return `keys[${i}] must have ${required.join(', ')}`;
    if (jwk.use !== undefined && jwk.use !== 'sig') return `keys[${i}] must be a signing key (use "sig") when it has a use`;
  }
  return undefined;
}

/**
 * Where a jwks_uri may be fetched from: https only, but plain http on loopback when the issuer itself is http; and
 * never a loopback, private or link-local address unless the issuer itself is on loopback (a development setup) or
 * OUTBOUND_ALLOW_NETWORKS allows the network. Returns the policy, or why the URI is refused.
 */
export function jwksUriPolicy(config: Pick<Config, 'issuer' | 'outbound'>, uri: URL): OutboundPolicy | string {
  const issuer = new URL(config.issuer);
  const issuerOnLoopback = isLoopbackUrl(issuer);
  if (uri.protocol === 'http:' && !(issuer.protocol === 'http:' && isLoopbackUrl(uri))) {
    return 'must use https (http only on loopback, while the issuer is http)';
  }
  if (uri.protocol !== 'https:' && uri.protocol !== 'http:') return 'must use https';
  return {
    httpsOnly: false,
    publicAddressesOnly: !issuerOnLoopback,
    allowed: new AllowedNetworks(config.outbound.allowNetworks),
    ownHost: issuer.hostname,
  };
}

/**
 * Why `raw` must not be stored as a URL that is fetched under jwksUriPolicy (a webhook, an upstream's issuer and
 * endpoints), or undefined: that policy's rule, with address literals judged even on a loopback issuer (whose
 * requests may go anywhere), where only loopback hosts pass. The reason follows the field's name.
 */
export function jwksUriRuleProblem(config: Pick<Config, 'issuer' | 'outbound'>, raw: string): string | undefined {
  if (!URL.canParse(raw)) return 'must be an absolute URL';
  const policy = jwksUriPolicy(config, new URL(raw));
  if (typeof policy === 'string') return policy;
  return storedUrlProblem(raw, { ...policy, publicAddressesOnly: true }, { loopbackHosts: isLoopbackUrl(new URL(config.issuer)) });
}

/** The jwks_uri did not answer with a key set: a temporary condition of the client's, never its credentials' fault. */
export class ClientKeysUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientKeysUnavailable';
  }
}

/** Fetches and checks the key set at `uri`; throws ClientKeysUnavailable, with words safe to log. */
export async function fetchClientJwks(
  config: Pick<Config, 'issuer' | 'outbound'>,
  outbound: OutboundDeps,
  uri: string,
): Promise<JSONWebKeySet> {
  const url = new URL(uri);
  const policy = jwksUriPolicy(config, url);
  if (typeof policy === 'string') throw new ClientKeysUnavailable(`jwks_uri ${policy}`);
  const read = await fetchJsonDocument(url, policy, outbound, {
    what: 'jwks_uri',
    accept: 'application/jwk-set+json, application/json',
    timeoutMs: JWKS_FETCH_TIMEOUT_MS,
    maxResponseBytes: JWKS_MAX_BYTES,
  });
  if ('problem' in read) throw new ClientKeysUnavailable(read.problem);
  const problem = jwksProblem(read.json);
  if (problem) throw new ClientKeysUnavailable(`the key set at jwks_uri of host ${url.hostname} ${problem}`);
  return read.json as JSONWebKeySet;
}

/** A key set ready to verify with: picks the key by the JWS header (kid, alg, kty), as jose's jwtVerify asks. */
export type ClientKeySet = ReturnType<typeof createLocalJWKSet>;

interface Entry {
  keys: Promise<ClientKeySet>;
  fetchedAtMs: number;
  /** The fetch failed: its failure is the answer for JWKS_REFETCH_COOLDOWN_MS, so a down jwks_uri is not hammered. */
  failed: boolean;
}

/**
 * The key sets fetched from clients' jwks_uri, per instance (built once per ProviderContext). Concurrent requests
 * for one URI share one fetch; a failed fetch is remembered for the cooldown only.
 */
export class ClientKeySets {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly fetchSet: (uri: string) => Promise<JSONWebKeySet>) {}

  /** The remembered set while it is fresh, else a new fetch. */
  get(uri: string, nowMs: number): Promise<ClientKeySet> {
    const entry = this.entries.get(uri);
    if (entry && nowMs - entry.fetchedAtMs < (entry.failed ? JWKS_REFETCH_COOLDOWN_MS : JWKS_CACHE_MS)) return entry.keys;
    return this.fetch(uri, nowMs);
  }

  /** A new fetch for a key the remembered set lacks; undefined when the last fetch is too recent for another. */
  refetch(uri: string, nowMs: number): Promise<ClientKeySet> | undefined {
    const entry = this.entries.get(uri);
    if (entry && nowMs - entry.fetchedAtMs < JWKS_REFETCH_COOLDOWN_MS) return undefined;
    return this.fetch(uri, nowMs);
  }

  private fetch(uri: string, nowMs: number): Promise<ClientKeySet> {
    const keys = this.fetchSet(uri).then((set) => createLocalJWKSet(set));
    this.entries.delete(uri);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    const entry: Entry = { keys, fetchedAtMs: nowMs, failed: false };
    this.entries.set(uri, entry);
    keys.catch(() => {
      entry.failed = true;
    });
    return keys;
  }
}

/**
 * Verifies `jwt` with a key of the client's registered `jwks`, or of its `jwks_uri` (fetched again once when the JWT
 * names a key the remembered set lacks): client assertions (RFC 7523) and request objects (RFC 9101). Undefined when
 * the client registered neither; throws jose's errors, and ClientKeysUnavailable when the jwks_uri cannot be read.
 */
export async function verifyWithClientKeys(
  deps: { clock: Clock; clientKeySets: ClientKeySets },
  client: Pick<Client, 'jwks' | 'jwksUri'>,
  jwt: string,
  options: JWTVerifyOptions,
): Promise<JWTPayload | undefined> {
  if (client.jwks) return (await jwtVerify(jwt, createLocalJWKSet(client.jwks), options)).payload;
  if (client.jwksUri === null) return undefined;
  const nowMs = deps.clock().getTime();
  try {
    return (await jwtVerify(jwt, await deps.clientKeySets.get(client.jwksUri, nowMs), options)).payload;
  } catch (err) {
    const again = err instanceof errors.JWKSNoMatchingKey ? deps.clientKeySets.refetch(client.jwksUri, nowMs) : undefined;
    if (!again) throw err;
    return (await jwtVerify(jwt, await again, options)).payload;
  }
}
