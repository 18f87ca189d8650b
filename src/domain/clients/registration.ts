// Dynamic client registration (RFC 7591) and management at the client configuration endpoint (RFC 7592): who may
// register, what metadata a client may register, and the registration access token that reads, updates and deletes.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RegistrationSettings } from '../../config.js';
import {
  InvalidClientMetadata,
  InvalidRedirectUri,
  InvalidRequest,
  InvalidSoftwareStatement,
  InvalidToken,
  UnapprovedSoftwareStatement,
} from '../../errors/oauth-error.js';
import {
  deleteRegisteredClient,
  findClientByRegistrationToken,
  insertClient,
  revokeRegistrationToken,
  updateRegisteredClient,
} from '../../storage/clients.js';
import type { OutboundPolicy } from '../../outbound/guarded-fetch.js';
import { policyFor } from '../../outbound/policy.js';
import type { ClientRow } from '../../storage/schema.js';
import { writeSealedSecret } from '../../storage/sealed-secret.js';
import { CLIENT_URL_FIELDS, clientMetadataProblems, defaultResponseTypes } from './client-metadata.js';
import { addSeconds, epochSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { randomToken, sha256 } from '../secrets.js';
import { DEFAULT_SIGNING_ALG } from '../keys/signing-algs.js';
import { issueClientSecret } from './issued-secret.js';
import { sectorIdentifierProblem } from './sector-identifier.js';
import { holdsSecret, type TokenEndpointAuthMethod } from './auth-methods.js';
import { emitClientChanged } from '../webhooks/emit.js';
import type { Db } from '../../storage/database.js';

/** Metadata kept in the client's `metadata` column and returned as registered (RFC 7591 2 and 2.2, OIDC, logout). */
const STORED_METADATA = [
  'scope',
  'contacts',
  ...CLIENT_URL_FIELDS,
  'jwks',
  'jwks_uri',
  'token_endpoint_auth_signing_alg',
  'id_token_signed_response_alg',
  'backchannel_logout_uri',
  'backchannel_logout_session_required',
  'request_object_signing_alg',
  'require_pushed_authorization_requests',
  'dpop_bound_access_tokens',
  'profile',
  'id_token_claims',
  'subject_type',
  'sector_identifier_uri',
  'software_id',
  'software_version',
] as const;

/**
 * RFC 7592 2.2: "The updated client metadata fields request MUST NOT include the "registration_access_token",
 * "registration_client_uri", "client_secret_expires_at", or "client_id_issued_at" fields".
 */
const SERVER_FIELDS = ['registration_access_token', 'registration_client_uri', 'client_secret_expires_at', 'client_id_issued_at'] as const;

/** Client metadata as validated and completed with defaults, in the shape of the clients table. */
export interface RegisteredMetadata {
  clientName: string | null;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  grantTypes: string[];
  responseTypes: string[];
  authMethod: TokenEndpointAuthMethod;
  metadata: Record<string, unknown>;
}

/**
 * RFC 7591 3: the endpoint "MAY be protected by an initial access token"; without REGISTRATION_OPEN it is. The
 * presented token is compared with each configured one in constant time (digests of equal length, all compared).
 */
export function authorizeRegistration(settings: RegistrationSettings, presented: string | undefined): void {
  if (settings.open) return;
  if (presented === undefined) throw new InvalidToken('an initial access token is required to register a client');
  const digest = createHash('sha256').update(presented).digest();
  let match = false;
  for (const token of settings.initialAccessTokens) {
    if (timingSafeEqual(digest, createHash('sha256').update(token).digest())) match = true;
  }
  if (!match) throw new InvalidToken('the initial access token is not valid');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Validates a registration (or update) request's metadata; throws the RFC 7591 3.2.2 error that fits. `destinations`:
 * the policy the URLs it gives for the provider to request go out under, policyFor(config, 'self-registered').
 */
export function parseRegistrationMetadata(body: unknown, destinations: OutboundPolicy): RegisteredMetadata {
  if (!isPlainObject(body)) throw new InvalidClientMetadata('the request body must be a JSON object of client metadata');
  // RFC 7592 2.2: "The authorization server MAY ignore any null or empty value in the request just as any other
  // value." A null field is read as an omitted one.
  const c = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null));
  // RFC 7591 2.3: a software statement is a JWT asserting metadata. None is approved here: a malformed one is
  // "invalid", a well-formed one "not approved for use by this authorization server" (3.2.2).
  if (c.software_statement !== undefined) {
    if (typeof c.software_statement !== 'string' || !/^[\w-]+\.[\w-]+\.[\w-]*$/.test(c.software_statement)) {
      throw new InvalidSoftwareStatement('software_statement must be a signed JWT');
    }
    throw new UnapprovedSoftwareStatement('software statements are not accepted by this server');
  }
  // RFC 7591 2: "The authorization server MUST ignore any client metadata sent by the client that it does not
  // understand": the rules below look only at the fields they know, and only those are stored.
  const problems = clientMetadataProblems(c, 'registration', destinations);
  for (const field of ['software_id', 'software_version']) {
    if (c[field] !== undefined && (typeof c[field] !== 'string' || c[field] === ''))
      problems.push({ field, message: `${field} must be a non-empty string` });
  }
  // RFC 6749 5.2 leaves '"' out of error_description: the messages' quotes become single ones.
  const describe = (list: typeof problems) => list.map((p) => p.message.replace(/"/g, "'")).join('; ');
  const redirectProblems = problems.filter((p) => p.field === 'redirect_uris');
  // RFC 7591 3.2.2 invalid_redirect_uri: "The value of one or more redirection URIs is invalid."
  if (redirectProblems.length > 0) throw new InvalidRedirectUri(describe(redirectProblems));
  if (problems.length > 0) throw new InvalidClientMetadata(describe(problems));

  const grantTypes = [...new Set((c.grant_types as string[] | undefined) ?? ['authorization_code'])];
  const metadata: Record<string, unknown> = { id_token_signed_response_alg: DEFAULT_SIGNING_ALG };
  for (const field of STORED_METADATA) if (c[field] !== undefined) metadata[field] = c[field];
  return {
    clientName: (c.client_name as string | undefined) ?? null,
    redirectUris: [...new Set((c.redirect_uris as string[] | undefined) ?? [])],
    postLogoutRedirectUris: [...new Set((c.post_logout_redirect_uris as string[] | undefined) ?? [])],
    grantTypes,
    responseTypes: [...new Set((c.response_types as string[] | undefined) ?? defaultResponseTypes(grantTypes))],
    authMethod: (c.token_endpoint_auth_method as RegisteredMetadata['authMethod'] | undefined) ?? 'client_secret_basic',
    metadata,
  };
}

/**
 * OIDC Registration 2 sector_identifier_uri: fetched, and listing every redirect URI, before anything is written;
 * otherwise invalid_client_metadata (RFC 7591 3.2.2).
 */
async function checkSectorIdentifier(ctx: ProviderContext, m: RegisteredMetadata): Promise<void> {
  const uri = m.metadata.sector_identifier_uri;
  if (typeof uri !== 'string') return;
  const problem = await sectorIdentifierProblem(ctx.config, ctx.outbound, uri, m.redirectUris);
  if (problem) throw new InvalidClientMetadata(problem.replace(/"/g, "'"));
}

function columns(m: RegisteredMetadata) {
  return {
    client_name: m.clientName,
    redirect_uris: m.redirectUris,
    post_logout_redirect_uris: m.postLogoutRedirectUris,
    grant_types: m.grantTypes,
    response_types: m.responseTypes,
    token_endpoint_auth_method: m.authMethod,
    metadata: JSON.stringify(m.metadata),
  };
}

export function registrationClientUri(issuer: string, clientId: string): string {
  return `${issuer}/register/${encodeURIComponent(clientId)}`;
}

/**
 * RFC 7591 3.2.1 and RFC 7592 3: the client information response. The secret is included only when one was just
 * issued (only its argon2id hash is kept); the registration access token is the one issued or presented.
 */
function clientInformation(
  issuer: string,
  row: ClientRow,
  credentials: { clientSecret?: string; registrationAccessToken: string },
): Record<string, unknown> {
  const confidential = holdsSecret(row.token_endpoint_auth_method);
  return {
    client_id: row.client_id,
    ...(credentials.clientSecret !== undefined ? { client_secret: credentials.clientSecret } : {}),
    client_id_issued_at: epochSeconds(row.created_at),
    // "REQUIRED if "client_secret" is issued. Time at which the client secret will expire or 0 if it will not expire."
    ...(confidential ? { client_secret_expires_at: row.client_secret_expires_at ? epochSeconds(row.client_secret_expires_at) : 0 } : {}),
    ...(row.client_name !== null ? { client_name: row.client_name } : {}),
    redirect_uris: row.redirect_uris,
    ...(row.post_logout_redirect_uris.length > 0 ? { post_logout_redirect_uris: row.post_logout_redirect_uris } : {}),
    grant_types: row.grant_types,
    response_types: row.response_types,
    token_endpoint_auth_method: row.token_endpoint_auth_method,
    ...row.metadata,
    registration_client_uri: registrationClientUri(issuer, row.client_id),
    registration_access_token: credentials.registrationAccessToken,
  };
}

/**
 * A new secret (256 random bits, RFC 6749 10.10), its keyed digest (no argon2: src/domain/clients/client-secret-digest.ts),
 * its expiry, and for client_secret_jwt the secret sealed (its HMAC key), all as columns.
 */
async function newSecret(ctx: ProviderContext, now: Date, clientId: string, method: TokenEndpointAuthMethod) {
  const { secret, columns } = await issueClientSecret(ctx, clientId, method);
  const ttl = ctx.config.registration.clientSecretTtlSeconds;
  return {
    secret,
    columns: {
      client_secret_hash: columns.client_secret_hash,
      client_secret_expires_at: ttl > 0 ? addSeconds(now, ttl) : null,
      client_secret_sealed: columns.client_secret_sealed && writeSealedSecret(columns.client_secret_sealed),
    },
  };
}

/** RFC 7591 3.1 / 3.2.1: registers the client and answers with its information, credentials included (once). */
export async function registerClient(ctx: ProviderContext, body: unknown): Promise<Record<string, unknown>> {
  const m = parseRegistrationMetadata(body, policyFor(ctx.config, 'self-registered'));
  await checkSectorIdentifier(ctx, m);
  const now = ctx.clock();
  // RFC 7591 3.2.1 client_id: "It SHOULD NOT be currently valid for any other registered client": 128 random bits.
  const clientId = randomToken(16);
  const registrationAccessToken = randomToken();
  const secret = holdsSecret(m.authMethod) ? await newSecret(ctx, now, clientId, m.authMethod) : undefined;
  const row = {
    client_id: clientId,
    client_secret_hash: null,
    client_secret_expires_at: null,
    client_secret_sealed: null,
    ...secret?.columns,
    registration_access_token_hash: sha256(registrationAccessToken),
    self_registered: true,
    ...columns(m),
    created_at: now,
    updated_at: now,
  };
  await ctx.db.transaction().execute(async (trx: Db) => {
    await insertClient(trx, row);
    await emitClientChanged(ctx, trx, clientId, 'created', { via: 'registration' });
  });
  ctx.log.info({ event: 'client_registered', clientId }, 'client registration');
  return clientInformation(
    ctx.config.issuer,
    {
      ...row,
      metadata: m.metadata,
      client_secret_sealed: null,
      revision: 1,
      group_restricted: false,
      organization_usage: 'none',
      admin_organization_id: null,
    },
    { clientSecret: secret?.secret, registrationAccessToken },
  );
}

/**
 * The client the registration access token was issued to, when that is the client of the configuration URI.
 * RFC 7592 2.1: "If the registration access token used to make this request is not valid, the server MUST respond
 * with an error as described in [RFC6750]", and "If the client does not exist on this server, the server MUST
 * respond with HTTP 401 Unauthorized and the registration access token used to make this request SHOULD be
 * immediately revoked." A token presented for another client, existing or not, gets the same answer and the same
 * revocation, so that the answer never tells whether that client exists.
 */
async function ownClient(ctx: ProviderContext, clientId: string, token: string): Promise<{ row: ClientRow; tokenHash: string }> {
  const tokenHash = sha256(token);
  const row = await findClientByRegistrationToken(ctx.db, tokenHash);
  if (!row) throw new InvalidToken('the registration access token is not valid');
  if (row.client_id !== clientId) {
    await revokeRegistrationToken(ctx.db, tokenHash, ctx.clock());
    ctx.clients.forget(row.client_id);
    ctx.log.warn(
      { event: 'registration_token_revoked', clientId: row.client_id },
      'registration access token presented for another client: revoked',
    );
    throw new InvalidToken('the registration access token is not valid');
  }
  return { row, tokenHash };
}

/**
 * RFC 7592 2.1: "Some values in the response, including the "client_secret" and "registration_access_token", MAY
 * be different from those in the initial registration response." An expired secret is replaced when the client
 * reads or updates its registration: how a client whose secret expired gets a new one.
 */
async function renewExpiredSecret(
  ctx: ProviderContext,
  row: ClientRow,
  tokenHash: string,
): Promise<{ row: ClientRow; clientSecret?: string }> {
  const now = ctx.clock();
  if (!holdsSecret(row.token_endpoint_auth_method) || row.client_secret_expires_at === null || row.client_secret_expires_at > now)
    return { row };
  const secret = await newSecret(ctx, now, row.client_id, row.token_endpoint_auth_method as TokenEndpointAuthMethod);
  const renewed = await updateRegisteredClient(ctx.db, row.client_id, tokenHash, { ...secret.columns, updated_at: now }, now);
  ctx.clients.forget(row.client_id);
  if (renewed) return { row: renewed, clientSecret: secret.secret };
  // Renewed by a concurrent request (whose response carries the new secret), or deleted meanwhile.
  const current = await findClientByRegistrationToken(ctx.db, tokenHash);
  if (current?.client_id !== row.client_id) throw new InvalidToken('the registration access token is not valid');
  return { row: current };
}

/** RFC 7592 2.1: the client's current registration. */
export async function readRegistration(ctx: ProviderContext, clientId: string, token: string): Promise<Record<string, unknown>> {
  const own = await ownClient(ctx, clientId, token);
  const { row, clientSecret } = await renewExpiredSecret(ctx, own.row, own.tokenHash);
  return clientInformation(ctx.config.issuer, row, { clientSecret, registrationAccessToken: token });
}

/** RFC 7592 2.2: replaces the client's metadata with the request's, in one statement. */
export async function updateRegistration(
  ctx: ProviderContext,
  clientId: string,
  token: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const { row, tokenHash } = await ownClient(ctx, clientId, token);
  if (!isPlainObject(body)) throw new InvalidClientMetadata('the request body must be a JSON object of client metadata');
  for (const field of SERVER_FIELDS) {
    if (body[field] !== undefined) throw new InvalidRequest(`${field} must not be sent in an update (RFC 7592 2.2)`);
  }
  // "The client MUST include its "client_id" field in the request, and it MUST be the same as its currently issued
  // client identifier."
  if (body.client_id !== clientId)
    throw new InvalidRequest('client_id must be sent, and be the client identifier of this registration (RFC 7592 2.2)');
  // "If the client includes the "client_secret" field in the request, the value of this field MUST match the
  // currently issued client secret for that client. The client MUST NOT be allowed to overwrite its existing client
  // secret with its own chosen value."
  if (body.client_secret !== undefined && body.client_secret !== null) {
    const matches =
      typeof body.client_secret === 'string' &&
      row.client_secret_hash !== null &&
      (await ctx.passwords.verifyClientSecret(row.client_secret_hash, body.client_secret));
    if (!matches) throw new InvalidRequest('client_secret does not match the current client secret (RFC 7592 2.2)');
  }
  const m = parseRegistrationMetadata(body, policyFor(ctx.config, 'self-registered'));
  await checkSectorIdentifier(ctx, m);
  const now = ctx.clock();
  // A client that comes to hold a secret (or whose secret expired, or that moves to client_secret_jwt, whose secret
  // must be sealed) gets a new one; one that no longer needs a secret (public, private_key_jwt) loses it.
  const expired = row.client_secret_expires_at !== null && row.client_secret_expires_at <= now;
  const toSeal = m.authMethod === 'client_secret_jwt' && row.client_secret_sealed === null;
  const secret =
    holdsSecret(m.authMethod) && (row.client_secret_hash === null || expired || toSeal)
      ? await newSecret(ctx, now, clientId, m.authMethod)
      : undefined;
  const secretColumns = !holdsSecret(m.authMethod)
    ? { client_secret_hash: null, client_secret_expires_at: null, client_secret_sealed: null }
    : (secret?.columns ?? (m.authMethod === 'client_secret_jwt' ? {} : { client_secret_sealed: null }));
  // The update raises the client's revision (a trigger): every instance's remembered copy is refused from now on.
  const updated = await ctx.db.transaction().execute(async (trx: Db) => {
    const done = await updateRegisteredClient(trx, clientId, tokenHash, { ...columns(m), ...secretColumns, updated_at: now });
    if (done) await emitClientChanged(ctx, trx, clientId, 'updated', { via: 'registration' });
    return done;
  });
  ctx.clients.forget(clientId);
  if (!updated) throw new InvalidToken('the registration access token is not valid');
  ctx.log.info({ event: 'client_registration_updated', clientId }, 'client registration');
  return clientInformation(ctx.config.issuer, updated, { clientSecret: secret?.secret, registrationAccessToken: token });
}

/**
 * RFC 7592 2.3: "A successful delete action will invalidate the "client_id", "client_secret", and
 * "registration_access_token" for this client [...] the authorization server SHOULD immediately invalidate all
 * existing authorization grants and currently-active access tokens, refresh tokens, and other tokens associated
 * with this client." Codes, tokens, consents and pending sign-ins go with the row (ON DELETE CASCADE).
 */
export async function deleteRegistration(ctx: ProviderContext, clientId: string, token: string): Promise<void> {
  const { tokenHash } = await ownClient(ctx, clientId, token);
  const deleted = await ctx.db.transaction().execute(async (trx: Db) => {
    const gone = await deleteRegisteredClient(trx, clientId, tokenHash);
    if (gone) await emitClientChanged(ctx, trx, clientId, 'deleted', { via: 'registration' });
    return gone;
  });
  ctx.clients.forget(clientId);
  if (!deleted) throw new InvalidToken('the registration access token is not valid');
  ctx.log.info({ event: 'client_registration_deleted', clientId }, 'client registration');
}
