// Registered clients as the domain sees them, and how a client proves who it is at the token endpoint.
import { hash } from 'node:crypto';
import { InvalidClient, InvalidRequest, TemporarilyUnavailable } from '../../errors/oauth-error.js';
import type { Db } from '../../storage/database.js';
import { findReadableClient, type ReadClientRow } from '../../storage/clients.js';
import type { ClientRow, OrganizationUsage } from '../../storage/schema.js';
import type { JSONWebKeySet } from 'jose';
import type { EventLog } from '../context.js';
import type { PasswordHasher } from '../accounts/passwords.js';
import { DEFAULT_SIGNING_ALG, type SigningAlg } from '../keys/signing-algs.js';
import { isAssertionMethod, type TokenEndpointAuthMethod } from './auth-methods.js';
import type { IdTokenClaimsMode } from '../tokens/id-token-claims.js';
import { pairwiseSectorOf } from './pairwise.js';
import { CLIENT_METADATA, type ClientMetadata } from './stored-client-metadata.js';

export type { TokenEndpointAuthMethod } from './auth-methods.js';

export interface Client {
  clientId: string;
  clientName: string | null;
  secretHash: string | null;
  redirectUris: readonly string[];
  grantTypes: readonly string[];
  responseTypes: readonly string[];
  authMethod: TokenEndpointAuthMethod;
  /** A public client (RFC 6749 2.1) holds no secret and must use PKCE. */
  isPublic: boolean;
  /** The JWS alg of its ID tokens (OIDC Dynamic Client Registration 2); RS256 unless registered otherwise. */
  idTokenSignedResponseAlg: SigningAlg;
  /** The registered `scope` metadata (RFC 7591 2), space-delimited: what client_credentials may grant. */
  registeredScope: string | null;
  /** Where RP-Initiated Logout may send the browser back to (exact match only). */
  postLogoutRedirectUris: readonly string[];
  /** Back-Channel Logout 1.0 2.2: where logout tokens are posted, or null. */
  backchannelLogoutUri: string | null;
  /** Back-Channel Logout 1.0 2.2: the client needs `sid` in logout tokens. */
  backchannelLogoutSessionRequired: boolean;
  /** The row's revision when it was read (see client-cache.ts). */
  revision: number;
  /** RFC 7591 3.2.1 client_secret_expires_at: the secret is refused from then on; null: never. */
  secretExpiresAt: Date | null;
  /** It registered itself (RFC 7591): what it names is held to the stricter outbound policy (src/outbound/policy.ts). */
  selfRegistered: boolean;
  /** RFC 7591 2 logo_uri, client_uri, policy_uri, tos_uri (https URLs, checked when registered), for the consent page. */
  links: ClientLinks;
  /** RFC 7591 2: the client's public keys, registered inline (private_key_jwt), or null. */
  jwks: JSONWebKeySet | null;
  /** RFC 7591 2: where the client's public keys are fetched from, or null. */
  jwksUri: string | null;
  /** OIDC Registration 2 token_endpoint_auth_signing_alg: the one alg its assertions may use, or null (any of the method's). */
  authSigningAlg: string | null;
  /** client_secret_jwt: the sealed secret (src/domain/keys/sealed-secrets.ts), the HMAC key of its assertions. */
  secretSealed: Record<string, unknown> | null;
  /** RFC 9449 5.2 dpop_bound_access_tokens: every token request must carry a DPoP proof. */
  dpopBoundAccessTokens: boolean;
  /** `profile: "fapi2"`: held to the FAPI 2.0 Security Profile (src/domain/clients/fapi2.ts). */
  fapi2: boolean;
  /** RFC 8707: the resource servers it may ask tokens for. */
  allowedResources: readonly string[];
  /** RFC 8707: the resource its tokens are for when a request names none; null: this provider (userinfo). */
  defaultResource: string | null;
  /** OIDC Registration 2 request_object_signing_alg: the one alg its request objects (RFC 9101) may use, or null. */
  requestObjectSigningAlg: string | null;
  /** RFC 9126 6 require_pushed_authorization_requests: its authorization requests must come through PAR. */
  requirePushedAuthorizationRequests: boolean;
  /** `id_token_claims` metadata: scope-granted claims in its ID tokens, or minimal ones; null follows ID_TOKEN_CLAIMS. */
  idTokenClaims: IdTokenClaimsMode | null;
  /** OIDC Core 8.1: the sector of a client registered with subject_type pairwise; null for a public client. */
  pairwiseSector: string | null;
  /** Admits only members of the groups it is limited to (src/domain/groups/allowed-groups.ts); none left: nobody. */
  groupRestricted: boolean;
  /** `require_mfa` metadata: its users sign in with a second factor (RFC 8176 `mfa` in the session's amr). */
  requireMfa: boolean;
  /**
   * Whether its sign-ins name an organization (issue 40, src/domain/authorization/organization-request.ts): `none`
   * refuses the `organization` parameter, `allow` takes it, `require` has the person pick one when it is absent.
   */
  organizationUsage: OrganizationUsage;
}

export interface ClientLinks {
  logoUri: string | null;
  clientUri: string | null;
  policyUri: string | null;
  tosUri: string | null;
}

/** A client row whose metadata was read through CLIENT_METADATA (storage readClientRow). */
export type ShapedClientRow = Omit<ClientRow, 'metadata'> & { metadata: ClientMetadata };

export function rowToClient(row: ShapedClientRow): Client {
  const m = row.metadata;
  return {
    clientId: row.client_id,
    clientName: row.client_name,
    secretHash: row.client_secret_hash,
    redirectUris: row.redirect_uris,
    grantTypes: row.grant_types,
    responseTypes: row.response_types,
    authMethod: row.token_endpoint_auth_method as TokenEndpointAuthMethod,
    isPublic: row.token_endpoint_auth_method === 'none',
    idTokenSignedResponseAlg: m.id_token_signed_response_alg ?? DEFAULT_SIGNING_ALG,
    registeredScope: m.scope ?? null,
    postLogoutRedirectUris: row.post_logout_redirect_uris,
    backchannelLogoutUri: m.backchannel_logout_uri ?? null,
    backchannelLogoutSessionRequired: m.backchannel_logout_session_required === true,
    revision: row.revision,
    secretExpiresAt: row.client_secret_expires_at ?? null,
    selfRegistered: row.self_registered,
    links: {
      logoUri: m.logo_uri ?? null,
      clientUri: m.client_uri ?? null,
      policyUri: m.policy_uri ?? null,
      tosUri: m.tos_uri ?? null,
    },
    jwks: m.jwks ?? null,
    jwksUri: m.jwks_uri ?? null,
    authSigningAlg: m.token_endpoint_auth_signing_alg ?? null,
    secretSealed: row.client_secret_sealed ?? null,
    dpopBoundAccessTokens: m.dpop_bound_access_tokens === true,
    fapi2: m.profile === 'fapi2',
    allowedResources: m.allowed_resources ?? [],
    defaultResource: m.default_resource ?? null,
    requestObjectSigningAlg: m.request_object_signing_alg ?? null,
    requirePushedAuthorizationRequests: m.require_pushed_authorization_requests === true,
    idTokenClaims: m.id_token_claims ?? null,
    pairwiseSector: pairwiseSectorOf(m, row.redirect_uris),
    groupRestricted: row.group_restricted === true,
    requireMfa: m.require_mfa === true,
    organizationUsage: row.organization_usage ?? 'none',
  };
}

/**
 * The client a read row stands for, or undefined when its metadata does not fit what this version reads (written
 * by another version, or by hand): such a client is treated as unknown, and the reason (a path, never a value) logged.
 */
export function readableClient(log: EventLog, read: ReadClientRow<ClientMetadata>): Client | undefined {
  if (read.readable) return rowToClient(read.row);
  log.warn(
    { event: 'client_unreadable', clientId: read.clientId, reason: read.reason },
    'a client this version does not read: treated as unknown',
  );
  return undefined;
}

export async function loadClient(db: Db, log: EventLog, clientId: string): Promise<Client | undefined> {
  const read = await findReadableClient(db, CLIENT_METADATA, clientId);
  return read && readableClient(log, read);
}

/** What the request presented; at most one method (RFC 6749 2.3: "MUST NOT use more than one"). */
export type ClientCredentials =
  | { method: 'client_secret_basic' | 'client_secret_post'; clientId: string; secret: string }
  | { method: 'none'; clientId: string }
  /** RFC 7523 2.2: a JWT; which of client_secret_jwt and private_key_jwt it is, the client's registration says. */
  | { method: 'client_assertion'; clientId: string; assertion: string };

/**
 * Remembers recent successful secret verifications so that a busy client costs one argon2
 * verification per cache period, not one per request. The key digests the stored hash together
 * with the presented secret: a rotated secret (new hash) or a different secret always misses.
 * Only successes are kept; every failure pays the full argon2 cost.
 */
export class SecretVerificationCache {
  private readonly entries = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  private key(storedHash: string, presented: string): string {
    return hash('sha256', `${storedHash}\0${presented}`, 'base64url');
  }

  has(storedHash: string, presented: string, nowMs: number): boolean {
    const key = this.key(storedHash, presented);
    const expires = this.entries.get(key);
    if (expires === undefined) return false;
    if (expires > nowMs) return true;
    this.entries.delete(key);
    return false;
  }

  remember(storedHash: string, presented: string, nowMs: number): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(this.key(storedHash, presented), nowMs + this.ttlMs);
  }
}

export interface ClientAuthDeps {
  /** Finds the client: from the database, or from memory (then `cached` is true). */
  lookup: (clientId: string) => Promise<{ client: Client; cached: boolean } | undefined>;
  passwords: PasswordHasher;
  cache: SecretVerificationCache;
  now: () => Date;
  /** Counts an attempt whose secret must be hashed or assertion verified, before that work; throws when the counters are locked. */
  claim?: () => Promise<{ succeeded(): Promise<void> }>;
  /** Verifies a client assertion for the client (src/domain/clients/client-assertion.ts); throws InvalidClient. */
  verifyAssertion?: (client: Client, assertion: string) => Promise<void>;
}

/**
 * Authenticates the client of a token request. Confidential clients may use either secret method
 * (as Keycloak does; the registered token_endpoint_auth_method is the client's preference);
 * `none` is only for public clients.
 */
export async function authenticateClient(
  deps: ClientAuthDeps,
  credentials: ClientCredentials,
): Promise<{ client: Client; cached: boolean }> {
  const found = await deps.lookup(credentials.clientId);
  if (credentials.method === 'client_assertion') {
    // RFC 7523 3 / RFC 6749 10.10: a failed assertion counts like a wrong secret, against the same counters, and it is
    // counted before the signature check (or the jwks_uri fetch) so that a flood is refused before it costs either.
    const claim = await deps.claim?.();
    if (!found) throw new InvalidClient('client authentication failed', { detail: 'unknown client' });
    if (!isAssertionMethod(found.client.authMethod) || !deps.verifyAssertion)
      throw new InvalidClient('client authentication failed', { detail: 'the client does not authenticate with a JWT' });
    try {
      await deps.verifyAssertion(found.client, credentials.assertion);
    } catch (err) {
      // The client's jwks_uri being down is no failure of the one presenting the assertion: not held against it.
      if (err instanceof TemporarilyUnavailable) await claim?.succeeded();
      throw err;
    }
    await claim?.succeeded();
    return found;
  }
  if (!found) {
    // The same work as for a known client, so that the answer's time does not tell whether the client exists.
    if (credentials.method !== 'none') {
      await deps.claim?.();
      await deps.passwords.verifyNoClientSecret(credentials.secret);
    }
    throw new InvalidClient('client authentication failed', { detail: 'unknown client' });
  }
  const { client } = found;
  if (credentials.method === 'none') {
    if (!client.isPublic) throw new InvalidClient('client authentication failed', { detail: 'a confidential client sent no secret' });
    return found;
  }
  if (client.isPublic || client.secretHash === null) {
    throw new InvalidClient('client authentication failed', { detail: 'a client without a secret sent one' });
  }
  // A client_secret_jwt client holds a secret, but registered to prove it with a JWT: the secret itself is not taken.
  if (isAssertionMethod(client.authMethod)) {
    throw new InvalidClient('client authentication failed', { detail: 'the client authenticates with a JWT' });
  }
  const nowMs = deps.now().getTime();
  // RFC 7591 3.2.1 client_secret_expires_at: "Time at which the client secret will expire".
  if (client.secretExpiresAt !== null && client.secretExpiresAt.getTime() <= nowMs) {
    throw new InvalidClient('client authentication failed', { detail: 'the client secret has expired' });
  }
  if (deps.cache.has(client.secretHash, credentials.secret, nowMs)) return found;
  const claim = await deps.claim?.();
  if (!(await deps.passwords.verifyClientSecret(client.secretHash, credentials.secret))) {
    throw new InvalidClient('client authentication failed', { detail: 'wrong client secret' });
  }
  await claim?.succeeded();
  deps.cache.remember(client.secretHash, credentials.secret, nowMs);
  return found;
}

/**
 * RFC 6749 2.3.1: the Basic credentials are the client id and secret, each form-url-encoded,
 * joined by ':' and base64-encoded. Strict base64; split at the first ':'; '+' decodes to a space.
 */
export function decodeBasicCredentials(headerValue: string): { clientId: string; secret: string } {
  const match = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(headerValue.trim());
  if (!match?.[1] || match[1].length % 4 !== 0) throw new InvalidRequest('malformed Basic authorization header');
  const decoded = strictUtf8(Buffer.from(match[1], 'base64'));
  const colon = decoded?.indexOf(':') ?? -1;
  if (decoded === undefined || colon < 0) throw new InvalidRequest('malformed Basic authorization header');
  try {
    const clientId = formUrlDecode(decoded.slice(0, colon));
    const secret = formUrlDecode(decoded.slice(colon + 1));
    if (clientId === '') throw new InvalidRequest('malformed Basic authorization header');
    return { clientId, secret };
  } catch (err) {
    if (err instanceof InvalidRequest) throw err;
    throw new InvalidRequest('malformed Basic authorization header', { cause: err });
  }
}

/**
 * RFC 7617 2.1 names UTF-8 as the charset of the credentials, and a form body with bytes that are not UTF-8 is refused
 * (src/http/form-parser.ts): the header is held to the same rule instead of having such bytes turned into U+FFFD.
 */
function strictUtf8(bytes: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Decoded the way form values are: + is a space, escapes must be UTF-8, and NUL is refused as forms refuse it. */
function formUrlDecode(value: string): string {
  const decoded = decodeURIComponent(value.replace(/\+/g, ' '));
  if (decoded.includes('\u0000')) throw new InvalidRequest('malformed Basic authorization header');
  return decoded;
}
