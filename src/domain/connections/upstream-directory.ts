// What the provider knows of each upstream, per instance: its metadata (OpenID Connect Discovery 1.0 section 4, or
// the connection's explicit endpoints for OAuth 2.0) and its signing keys (jwks_uri), fetched through the one
// guarded fetch and remembered for a bounded time; a key set is fetched again once when an ID token names a key it
// does not hold (the upstream rotated), not more often than the cooldown of client-jwks.ts (ClientKeySets).
import type { JSONWebKeySet } from 'jose';
import type { Config } from '../../config.js';
import { fetchJsonDocument } from '../../outbound/fetch-json.js';
import type { OutboundDeps, OutboundPolicy } from '../../outbound/guarded-fetch.js';
import {
  ClientKeySets,
  JWKS_CACHE_MS,
  JWKS_FETCH_TIMEOUT_MS,
  JWKS_REFETCH_COOLDOWN_MS,
  jwksProblem,
  jwksUriPolicy,
} from '../clients/client-jwks.js';
import type { Clock } from '../clock.js';
import { MICROSOFT_TENANT_PLACEHOLDER } from './presets.js';
import type { Connection } from './connection.js';
import type { SamlCredentials } from '../saml/credentials.js';
import { UpstreamRefusal } from './upstream-errors.js';

/** The upstream as the flow uses it. */
export interface UpstreamMetadata {
  /** The `iss` its ID tokens and RFC 9207 responses carry; may hold {tenantid} (Microsoft's multi-tenant endpoints). */
  issuer: string | null;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  userinfoEndpoint: string | null;
  jwksUri: string | null;
  /** RFC 9207 3: the upstream says it sends `iss` in every authorization response. */
  issParameterSupported: boolean;
  /** How we authenticate at its token endpoint (RFC 6749 2.3.1): Basic unless it supports only client_secret_post. */
  tokenAuth: 'client_secret_basic' | 'client_secret_post';
  /** Algorithms its ID tokens may be signed with: asymmetric only (none and HS* are refused). */
  idTokenAlgs: string[];
}

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
const DOCUMENT_MAX_BYTES = 64 * 1024;

/** Where an upstream URL may be fetched from: the rule of a client's jwks_uri (https; loopback only for a loopback issuer). */
export function upstreamPolicy(config: Pick<Config, 'issuer' | 'outbound'>, url: URL): OutboundPolicy {
  const policy = jwksUriPolicy(config, url);
  if (typeof policy === 'string') throw new UpstreamRefusal('bad-response', `the upstream URL of host ${url.hostname} ${policy}`);
  return policy;
}

function parseUrl(raw: string, what: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw new UpstreamRefusal('bad-response', `${what} is not an absolute URL`);
  }
}

/** GETs a JSON document from the upstream; an unreachable one or a 5xx is "down", anything else a bad response. */
export async function fetchUpstreamJson(
  deps: { config: Pick<Config, 'issuer' | 'outbound'>; outbound: OutboundDeps },
  raw: string,
  what: string,
  headers: { accept: string },
): Promise<unknown> {
  const url = parseUrl(raw, what);
  const read = await fetchJsonDocument(url, upstreamPolicy(deps.config, url), deps.outbound, {
    what,
    accept: headers.accept,
    timeoutMs: JWKS_FETCH_TIMEOUT_MS,
    maxResponseBytes: DOCUMENT_MAX_BYTES,
  });
  if ('problem' in read) {
    const down = /could not be read|answered 5\d\d/.test(read.problem);
    throw new UpstreamRefusal(down ? 'upstream-down' : 'bad-response', read.problem);
  }
  return read.json;
}

const stringMember = (doc: Record<string, unknown>, name: string): string | undefined =>
  typeof doc[name] === 'string' ? (doc[name] as string) : undefined;

/**
 * OpenID Connect Discovery 1.0 4.3: "The issuer value returned MUST be identical to the Issuer URL that was used as
 * the prefix to /.well-known/openid-configuration". The one exception is Microsoft's multi-tenant endpoints, whose
 * issuer is the {tenantid} template (presets.ts).
 */
export function metadataFromDiscovery(connection: Connection, doc: unknown): UpstreamMetadata {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new UpstreamRefusal('bad-response', 'discovery is not a JSON object');
  const d = doc as Record<string, unknown>;
  const issuer = stringMember(d, 'issuer');
  const expected = connection.issuer!;
  const templated = connection.preset === 'microsoft' && issuer?.includes(MICROSOFT_TENANT_PLACEHOLDER) === true;
  if (issuer !== expected && !templated)
    throw new UpstreamRefusal('bad-response', `discovery names issuer ${issuer ?? '(none)'}, not ${expected}`);
  const authorization = connection.authorizationEndpoint ?? stringMember(d, 'authorization_endpoint');
  const token = connection.tokenEndpoint ?? stringMember(d, 'token_endpoint');
  const jwksUri = stringMember(d, 'jwks_uri');
  if (!authorization || !token || !jwksUri)
    throw new UpstreamRefusal('bad-response', 'discovery lacks authorization_endpoint, token_endpoint or jwks_uri');
  const methods = Array.isArray(d.token_endpoint_auth_methods_supported)
    ? d.token_endpoint_auth_methods_supported
    : ['client_secret_basic'];
  const algs = Array.isArray(d.id_token_signing_alg_values_supported)
    ? d.id_token_signing_alg_values_supported.filter((a) => ASYMMETRIC.includes(a as string))
    : [];
  return {
    issuer: issuer!,
    authorizationEndpoint: authorization,
    tokenEndpoint: token,
    userinfoEndpoint: connection.userinfoEndpoint ?? stringMember(d, 'userinfo_endpoint') ?? null,
    jwksUri,
    issParameterSupported: d.authorization_response_iss_parameter_supported === true,
    tokenAuth:
      methods.includes('client_secret_basic') || !methods.includes('client_secret_post') ? 'client_secret_basic' : 'client_secret_post',
    // OIDC Core 3.1.3.7: RS256 is the default when the upstream names none.
    idTokenAlgs: algs.length > 0 ? (algs as string[]) : ['RS256'],
  };
}

interface Entry {
  metadata: Promise<UpstreamMetadata>;
  fetchedAtMs: number;
  failed: boolean;
}

/** Per instance: each connection's metadata and each jwks_uri's keys. Built once by buildApp, passed to the routes. */
export class UpstreamDirectory {
  private readonly metadata = new Map<string, Entry>();
  readonly keySets: ClientKeySets;

  constructor(
    private readonly deps: { config: Config; outbound: OutboundDeps; clock: Clock },
    /** The SAML key pairs of our service provider (issue 39), for saml connections. */
    readonly samlCredentials?: SamlCredentials | undefined,
  ) {
    this.keySets = new ClientKeySets(async (uri) => {
      const json = await fetchUpstreamJson(deps, uri, 'jwks_uri', { accept: 'application/jwk-set+json, application/json' });
      const problem = jwksProblem(json);
      if (problem) throw new UpstreamRefusal('bad-response', `the upstream key set ${problem}`);
      return json as JSONWebKeySet;
    });
  }

  /** The connection's metadata: discovered (remembered JWKS_CACHE_MS; a failure for the cooldown), or its own endpoints. */
  async metadataOf(connection: Connection): Promise<UpstreamMetadata> {
    if (connection.kind === 'oauth2') {
      if (!connection.authorizationEndpoint || !connection.tokenEndpoint || !connection.userinfoEndpoint) {
        throw new UpstreamRefusal('bad-response', 'an oauth2 connection needs authorization, token and userinfo endpoints');
      }
      return {
        issuer: null,
        authorizationEndpoint: connection.authorizationEndpoint,
        tokenEndpoint: connection.tokenEndpoint,
        userinfoEndpoint: connection.userinfoEndpoint,
        jwksUri: null,
        issParameterSupported: false,
        tokenAuth: 'client_secret_post',
        idTokenAlgs: [],
      };
    }
    if (!connection.issuer) throw new UpstreamRefusal('bad-response', 'an oidc connection needs an issuer');
    const key = `${connection.id}\n${connection.issuer}\n${connection.authorizationEndpoint}\n${connection.tokenEndpoint}\n${connection.userinfoEndpoint}`;
    const nowMs = this.deps.clock().getTime();
    const entry = this.metadata.get(key);
    if (entry && nowMs - entry.fetchedAtMs < (entry.failed ? JWKS_REFETCH_COOLDOWN_MS : JWKS_CACHE_MS)) return entry.metadata;
    const discovery = `${connection.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const metadata = fetchUpstreamJson(this.deps, discovery, 'discovery', { accept: 'application/json' }).then((doc) =>
      metadataFromDiscovery(connection, doc),
    );
    const fresh: Entry = { metadata, fetchedAtMs: nowMs, failed: false };
    this.metadata.set(key, fresh);
    metadata.catch(() => {
      fresh.failed = true;
    });
    return metadata;
  }
}
