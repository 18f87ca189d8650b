// The authorization code flow with an upstream provider, as strict as we are with our own clients: PKCE S256 (RFC
// 7636), `state` and `nonce` bound to the browser and used once, RFC 9207 `iss` checked, the token request through
// the guarded fetch, and the ID token verified (OIDC Core 3.1.3.7). Upstream tokens are never logged, and leave
// this module only for a connection that keeps them (upstream-tokens.ts).
import { createHash } from 'node:crypto';
import { decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { guardedFetch, OutboundError } from '../../outbound/guarded-fetch.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { openSecret, sealSecret } from '../keys/sealed-secrets.js';
import { randomToken, safeEqual, sha256 } from '../secrets.js';
import { consumeUpstreamLogin, insertUpstreamLogin } from '../../storage/upstream-logins.js';
import { callbackUrl, type Connection } from './connection.js';
import { MICROSOFT_TENANT_PLACEHOLDER } from './presets.js';
import type { UpstreamDirectory, UpstreamMetadata } from './upstream-directory.js';
import { upstreamPolicy } from './upstream-directory.js';
import { UpstreamRefusal } from './upstream-errors.js';
import { identityFromClaims, readUserinfo, type UpstreamIdentity } from './upstream-identity.js';
import { tokensOf, type UpstreamTokens } from './upstream-tokens.js';
import { startSamlLogin } from '../saml/sp/saml-login.js';

/** How long a sign-in may stay upstream: as long as the interaction it resumes, at most ten minutes. */
const MAX_UPSTREAM_SECONDS = 600;
/** OIDC Core 3.1.3.7 step 10: an ID token issued longer ago than this is refused (iat). */
const ID_TOKEN_MAX_AGE_SECONDS = 600;
const TOKEN_TIMEOUT_MS = 10_000;
const TOKEN_MAX_BYTES = 64 * 1024;

/**
 * Where a trip upstream comes back to: a sign-in resumes its interaction; a link started on the account page (issue
 * 19, "link another") links the upstream account to the signed-in user who started it.
 */
export type UpstreamPurpose = { kind: 'sign-in'; interactionId: string } | { kind: 'link'; userId: string };

/** How the browser goes upstream: a redirect to `url`, or (SAML Bindings §3.5) a form of `post` fields sent there. */
export type UpstreamDeparture = { kind: 'redirect'; url: string } | { kind: 'post'; url: string; post: Readonly<Record<string, string>> };

/**
 * Sends the browser upstream: a fresh state, nonce and PKCE verifier, remembered under the state's digest with the
 * digest of the browser's cookie (so the callback is honoured in this browser only) and the purpose it returns to.
 */
export async function startUpstreamLogin(
  ctx: ProviderContext,
  directory: UpstreamDirectory,
  input: { connection: Connection; purpose: UpstreamPurpose; browserSecret: string; loginHint?: string | null },
): Promise<UpstreamDeparture> {
  const { connection } = input;
  if (connection.kind === 'saml') {
    if (!directory.samlCredentials) throw new UpstreamRefusal('upstream-down', 'no SAML key pair is configured');
    return startSamlLogin(ctx, directory.samlCredentials, input);
  }
  const metadata = await directory.metadataOf(connection);
  const state = randomToken();
  const nonce = randomToken();
  const verifier = randomToken();
  const now = ctx.clock();
  await insertUpstreamLogin(ctx.db, {
    stateHash: sha256(state),
    browserHash: sha256(input.browserSecret),
    connectionId: connection.id,
    interactionId: input.purpose.kind === 'sign-in' ? input.purpose.interactionId : null,
    linkUserId: input.purpose.kind === 'link' ? input.purpose.userId : null,
    nonce,
    verifierSealed: { ...(await sealSecret(ctx, 'upstream-verifier', sha256(state), Buffer.from(verifier))) },
    expiresAt: addSeconds(now, Math.min(ctx.config.interactionTtlSeconds, MAX_UPSTREAM_SECONDS)),
  });
  const url = new URL(metadata.authorizationEndpoint);
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: connection.clientId,
    redirect_uri: callbackUrl(ctx.config.issuer, connection.id),
    scope: connection.scopes.join(' '),
    state,
    // RFC 7636 4.2: S256, BASE64URL(SHA256(ASCII(code_verifier))).
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...(connection.kind === 'oidc' ? { nonce } : {}),
    ...(input.loginHint ? { login_hint: input.loginHint } : {}),
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return { kind: 'redirect', url: url.href };
}

export interface CallbackParams {
  state?: string | undefined;
  code?: string | undefined;
  iss?: string | undefined;
  error?: string | undefined;
}

export interface FinishedUpstreamLogin {
  identity: UpstreamIdentity;
  purpose: UpstreamPurpose;
  /** The upstream's tokens, only when the connection keeps them (store_tokens); otherwise dropped here. */
  tokens: UpstreamTokens | undefined;
}

/** The stored row's purpose; the table's CHECK keeps exactly one column set, read back here all the same. */
function purposeOf(login: { interactionId: string | null; linkUserId: string | null }): UpstreamPurpose {
  if (login.interactionId !== null && login.linkUserId === null) return { kind: 'sign-in', interactionId: login.interactionId };
  if (login.linkUserId !== null && login.interactionId === null) return { kind: 'link', userId: login.linkUserId };
  throw new UpstreamRefusal('bad-state', 'the stored sign-in has no single purpose');
}

/** The callback: the state used up, the code redeemed, the identity read. Throws UpstreamRefusal. */
export async function finishUpstreamLogin(
  ctx: ProviderContext,
  directory: UpstreamDirectory,
  input: { connection: Connection; params: CallbackParams; browserSecret: string | undefined },
): Promise<FinishedUpstreamLogin> {
  const { connection, params } = input;
  // A SAML connection answers at its ACS (src/domain/saml/sp/saml-login.ts), never here.
  if (connection.kind === 'saml') throw new UpstreamRefusal('bad-state', 'a saml connection has no OAuth callback');
  if (!params.state) throw new UpstreamRefusal('bad-state', 'the callback has no state');
  const stateHash = sha256(params.state);
  // RFC 6749 10.12: the state binds the response to the browser that sent the request; used once whatever follows.
  const login = await consumeUpstreamLogin(ctx.db, stateHash, connection.id, ctx.clock());
  if (!login) throw new UpstreamRefusal('bad-state', 'the state is unknown, used, expired or for another connection');
  if (!input.browserSecret || !safeEqual(login.browserHash, sha256(input.browserSecret))) {
    throw new UpstreamRefusal('bad-state', 'the state was issued to another browser');
  }
  const purpose = purposeOf(login);
  const metadata = await directory.metadataOf(connection);
  checkIssParameter(metadata, params.iss);
  if (params.error !== undefined) throw new UpstreamRefusal('upstream-error', `the upstream answered error=${params.error.slice(0, 64)}`);
  if (!params.code) throw new UpstreamRefusal('bad-response', 'the callback has neither code nor error');
  if (typeof login.verifierSealed !== 'object' || login.verifierSealed === null)
    throw new UpstreamRefusal('bad-state', 'the stored sign-in is unreadable');
  const verifier = (await openSecret(ctx, 'upstream-verifier', stateHash, login.verifierSealed as Record<string, unknown>)).toString();
  const tokens = await redeemCode(ctx, connection, metadata, params.code, verifier);
  let identity: UpstreamIdentity;
  if (connection.kind === 'oidc') {
    if (typeof tokens.id_token !== 'string') throw new UpstreamRefusal('bad-response', 'the token response has no id_token');
    const claims = await verifyIdToken(ctx, directory, connection, metadata, tokens.id_token, login.nonce);
    identity = identityFromClaims(connection, claims, { fromIdToken: true });
    if (identity.email === null && metadata.userinfoEndpoint && typeof tokens.access_token === 'string') {
      const more = await readUserinfo(ctx, connection, metadata.userinfoEndpoint, tokens.access_token);
      // OIDC Core 5.3.4: "The sub Claim in the UserInfo Response MUST be verified to exactly match the sub Claim in the ID Token".
      if (more.sub !== claims.sub) throw new UpstreamRefusal('bad-response', 'the userinfo sub is not the ID token sub');
      // The address from userinfo; amr and acr only ever from the ID token.
      const { amr, acr } = identity;
      identity = { ...identityFromClaims(connection, { ...more, ...claims }, { fromIdToken: true }), amr, acr };
    }
  } else {
    if (typeof tokens.access_token !== 'string') throw new UpstreamRefusal('bad-response', 'the token response has no access_token');
    const userinfo = await readUserinfo(ctx, connection, metadata.userinfoEndpoint!, tokens.access_token);
    identity = identityFromClaims(connection, userinfo, { fromIdToken: false });
    if (connection.preset === 'github')
      identity = await withGithubEmail(ctx, connection, metadata.userinfoEndpoint!, tokens.access_token, identity);
  }
  return { identity, purpose, tokens: connection.storeTokens ? tokensOf(tokens, ctx.clock()) : undefined };
}

/**
 * RFC 9207 2.4: the client "MUST" compare `iss` with the issuer it sent the request to when the response carries it,
 * and an authorization server that advertises authorization_response_iss_parameter_supported must send it.
 */
function checkIssParameter(metadata: UpstreamMetadata, iss: string | undefined): void {
  if (iss === undefined) {
    if (metadata.issParameterSupported) throw new UpstreamRefusal('bad-response', 'the upstream advertises iss but the response lacks it');
    return;
  }
  if (metadata.issuer === null) return;
  if (!issuerMatches(metadata.issuer, iss)) throw new UpstreamRefusal('bad-response', 'the iss parameter is not the upstream issuer');
}

/** Equal, or the {tenantid} template filled with a tenant id (Microsoft's multi-tenant endpoints). */
export function issuerMatches(expected: string, actual: string, tid?: unknown): boolean {
  if (!expected.includes(MICROSOFT_TENANT_PLACEHOLDER)) return expected === actual;
  if (tid === undefined) {
    const [before, after] = expected.split(MICROSOFT_TENANT_PLACEHOLDER) as [string, string];
    return (
      actual.startsWith(before) &&
      actual.endsWith(after) &&
      /^[0-9a-f-]{36}$/.test(actual.slice(before.length, actual.length - after.length))
    );
  }
  return typeof tid === 'string' && /^[0-9a-f-]{36}$/.test(tid) && expected.replace(MICROSOFT_TENANT_PLACEHOLDER, tid) === actual;
}

/** RFC 6749 4.1.3 with RFC 7636 4.5: the code, the redirect URI and the verifier; the client authenticated per metadata. */
async function redeemCode(
  ctx: ProviderContext,
  connection: Connection,
  metadata: UpstreamMetadata,
  code: string,
  verifier: string,
): Promise<Record<string, unknown>> {
  const secret = connection.secretSealed
    ? (await openSecret(ctx, 'connection-secret', connection.id, connection.secretSealed)).toString()
    : undefined;
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: callbackUrl(ctx.config.issuer, connection.id),
    code_verifier: verifier,
  });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (secret !== undefined && metadata.tokenAuth === 'client_secret_basic') {
    // RFC 6749 2.3.1: each half form-urlencoded before the Basic encoding.
    const encode = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
    headers.authorization = `Basic ${Buffer.from(`${encode(connection.clientId)}:${encode(secret)}`).toString('base64')}`;
  } else {
    form.set('client_id', connection.clientId);
    if (secret !== undefined) form.set('client_secret', secret);
  }
  const url = new URL(metadata.tokenEndpoint);
  let response;
  try {
    response = await guardedFetch(
      { url, method: 'POST', headers, body: form.toString(), timeoutMs: TOKEN_TIMEOUT_MS, maxResponseBytes: TOKEN_MAX_BYTES },
      upstreamPolicy(ctx.config, url),
      ctx.outbound,
    );
  } catch (err) {
    if (err instanceof OutboundError) throw new UpstreamRefusal('upstream-down', `token endpoint of host ${url.hostname}: ${err.message}`);
    throw err;
  }
  if (response.status >= 500)
    throw new UpstreamRefusal('upstream-down', `token endpoint of host ${url.hostname} answered ${response.status}`);
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new UpstreamRefusal('bad-response', `token endpoint of host ${url.hostname} did not answer with JSON`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new UpstreamRefusal('bad-response', 'the token response is not an object');
  const tokens = body as Record<string, unknown>;
  if (response.status !== 200 || typeof tokens.error === 'string') {
    // The upstream's error code is safe to log (RFC 6749 5.2 ASCII); its description is not echoed.
    const error = typeof tokens.error === 'string' ? tokens.error.slice(0, 64) : `status ${response.status}`;
    throw new UpstreamRefusal('bad-response', `token endpoint of host ${url.hostname} refused the code: ${error}`);
  }
  return tokens;
}

/**
 * OIDC Core 3.1.3.7: the signature by a key of the upstream's jwks_uri with an algorithm it announced (2, 6), `iss`
 * (2), `aud` holding our client id (3), `azp` when there are several audiences or when present (4, 5), `exp` (9),
 * `iat` (10, not older than ID_TOKEN_MAX_AGE_SECONDS) and the `nonce` we sent (11).
 */
async function verifyIdToken(
  ctx: ProviderContext,
  directory: UpstreamDirectory,
  connection: Connection,
  metadata: UpstreamMetadata,
  idToken: string,
  nonce: string,
): Promise<JWTPayload> {
  let unverified: JWTPayload;
  try {
    unverified = decodeJwt(idToken);
  } catch {
    throw new UpstreamRefusal('bad-response', 'the id_token is not a JWT');
  }
  const template = metadata.issuer!;
  const issuer = template.includes(MICROSOFT_TENANT_PLACEHOLDER)
    ? issuerMatches(template, String(unverified.iss), unverified.tid)
      ? String(unverified.iss)
      : undefined
    : template;
  if (issuer === undefined) throw new UpstreamRefusal('bad-response', 'the id_token iss is not the tenant of its tid');
  const options = {
    issuer,
    audience: connection.clientId,
    algorithms: metadata.idTokenAlgs,
    requiredClaims: ['sub', 'iat', 'exp'],
    maxTokenAge: ID_TOKEN_MAX_AGE_SECONDS,
    currentDate: ctx.clock(),
  };
  const jwksUri = metadata.jwksUri!;
  const nowMs = ctx.clock().getTime();
  let payload: JWTPayload;
  try {
    try {
      payload = (await jwtVerify(idToken, await directory.keySets.get(jwksUri, nowMs), options)).payload;
    } catch (err) {
      const again = err instanceof joseErrors.JWKSNoMatchingKey ? directory.keySets.refetch(jwksUri, nowMs) : undefined;
      if (!again) throw err;
      payload = (await jwtVerify(idToken, await again, options)).payload;
    }
  } catch (err) {
    if (err instanceof UpstreamRefusal) throw err;
    if (err instanceof joseErrors.JOSEError)
      throw new UpstreamRefusal('bad-response', `the id_token is refused: ${err.code}${'claim' in err ? ` (${String(err.claim)})` : ''}`);
    throw err;
  }
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if ((audiences.length > 1 || payload.azp !== undefined) && payload.azp !== connection.clientId) {
    throw new UpstreamRefusal('bad-response', 'the id_token azp is not our client id');
  }
  if (typeof payload.nonce !== 'string' || !safeEqual(payload.nonce, nonce))
    throw new UpstreamRefusal('bad-response', 'the id_token nonce is not the one sent');
  return payload;
}

/** GitHub REST API "List email addresses for the authenticated user": only the primary address, and only when verified. */
async function withGithubEmail(
  ctx: ProviderContext,
  connection: Connection,
  userinfoEndpoint: string,
  accessToken: string,
  identity: UpstreamIdentity,
): Promise<UpstreamIdentity> {
  const emails = await readUserinfo(ctx, connection, `${userinfoEndpoint.replace(/\/$/, '')}/emails`, accessToken, true);
  const list = Array.isArray(emails) ? (emails as unknown[]) : [];
  const primary = list.find(
    (e): e is { email: string } =>
      typeof e === 'object' &&
      e !== null &&
      (e as Record<string, unknown>).primary === true &&
      (e as Record<string, unknown>).verified === true &&
      typeof (e as Record<string, unknown>).email === 'string',
  );
  return { ...identity, email: primary?.email ?? null, emailVerified: primary !== undefined };
}
