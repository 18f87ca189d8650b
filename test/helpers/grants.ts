// Clients and helpers for the refresh_token and client_credentials grants, revocation and introspection tests.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Test } from 'tap';
import { ALICE, CONFIDENTIAL, FIXTURES, PUBLIC } from './app.js';
import { basicAuth, obtainCode, tokenRequest } from './flow.js';
import type { SeedFile } from '../../src/domain/admin/seed.js';
import type { Db } from '../../src/storage/database.js';

/** A confidential client allowed refresh tokens. */
export const REFRESHING = {
  client_id: 'rp',
  client_secret: 'rp-secret: with+plus %and spaces',
  client_name: 'Refreshing RP',
  redirect_uris: ['https://rp.example/cb'],
  grant_types: ['authorization_code', 'refresh_token'],
};
/** A second confidential client allowed refresh tokens (another client's tokens must not work for it). */
export const OTHER_RP = {
  client_id: 'other-rp',
  client_secret: 'other-rp-secret-0123456789',
  redirect_uris: ['https://other.example/cb'],
  grant_types: ['authorization_code', 'refresh_token'],
};
/** A public client allowed refresh tokens, and (wrongly) registered for client_credentials. */
export const PUBLIC_REFRESHING = {
  client_id: 'spa-offline',
  token_endpoint_auth_method: 'none' as const,
  redirect_uris: ['https://spa-offline.example/cb'],
  grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
};
/** A machine client for client_credentials, with a registered scope that even names openid. */
export const MACHINE = {
  client_id: 'machine-api',
  client_secret: 'machine-secret-0123456789',
  redirect_uris: ['https://machine.example/cb'],
  grant_types: ['client_credentials'],
  scope: 'api:read api:write openid',
};
/** A machine client with no registered scope. */
export const MACHINE_NO_SCOPE = {
  client_id: 'machine-no-scope',
  client_secret: 'machine-no-scope-secret-0123',
  redirect_uris: ['https://machine.example/cb'],
  grant_types: ['client_credentials'],
};

export const GRANT_FIXTURES: SeedFile = {
  clients: [...FIXTURES.clients, REFRESHING, OTHER_RP, PUBLIC_REFRESHING, MACHINE, MACHINE_NO_SCOPE],
  users: FIXTURES.users,
};

export const REFRESHING_BASIC = basicAuth(REFRESHING.client_id, REFRESHING.client_secret);
export const OTHER_RP_BASIC = basicAuth(OTHER_RP.client_id, OTHER_RP.client_secret);
export const MACHINE_BASIC = basicAuth(MACHINE.client_id, MACHINE.client_secret);
export const CONFIDENTIAL_BASIC = basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret);
export const PUBLIC_CLIENT = PUBLIC;

export interface Tokens {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
  id_token?: string;
  refresh_token?: string;
}

type Client = { client_id: string; redirect_uris: string[] };

/** OIDC Core 11: the scope that asks for a refresh token. */
export const OFFLINE_SCOPE = 'openid profile offline_access';

/** Signs Alice in for `client` with `scope`, redeems the code and returns the token response (which must be 200). */
export async function codeTokens(app: FastifyInstance, client: Client, auth: string | undefined, scope: string): Promise<Tokens> {
  const grant = await obtainCode(app, { client_id: client.client_id, redirect_uri: client.redirect_uris[0], scope });
  const form: Record<string, string> = {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri!,
    code_verifier: grant.verifier,
  };
  if (auth === undefined) form.client_id = client.client_id;
  const res = await tokenRequest(app, form, auth ?? '');
  if (res.statusCode !== 200) throw new Error(`token request failed: ${res.body}`);
  return res.json() as Tokens;
}

/** Tokens for REFRESHING (client_secret_basic) from a code granted `scope`, which must include a refresh token. */
export async function offlineTokens(app: FastifyInstance, scope = OFFLINE_SCOPE): Promise<Tokens & { refresh_token: string }> {
  const tokens = await codeTokens(app, REFRESHING, REFRESHING_BASIC, scope);
  if (!tokens.refresh_token) throw new Error(`no refresh token in ${JSON.stringify(tokens)}`);
  return tokens as Tokens & { refresh_token: string };
}

/** An access token for MACHINE from the client_credentials grant (the request must succeed). */
export async function machineToken(app: FastifyInstance, scope?: string): Promise<string> {
  const res = await tokenRequest(app, { grant_type: 'client_credentials', scope }, MACHINE_BASIC);
  if (res.statusCode !== 200) throw new Error(`client_credentials request failed: ${res.body}`);
  return (res.json() as Tokens).access_token;
}

/** A refresh_token grant request. */
export function refreshRequest(app: FastifyInstance, refreshToken: string, extra: Record<string, string> = {}, auth = REFRESHING_BASIC) {
  return tokenRequest(app, { grant_type: 'refresh_token', refresh_token: refreshToken, ...extra }, auth);
}

/**
 * A form POST to /sso/revoke, /sso/introspect or /sso/token, as REFRESHING with Basic unless told otherwise (null
 * sends no Authorization header); a string form is sent as it is, so that a test can repeat a parameter.
 */
export function formPost(
  app: FastifyInstance,
  path: '/sso/revoke' | '/sso/introspect' | '/sso/token',
  form: Record<string, string> | string,
  auth: string | null = REFRESHING_BASIC,
) {
  return app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(auth ? { authorization: auth } : {}) },
    payload: typeof form === 'string' ? form : new URLSearchParams(form).toString(),
  });
}

/**
 * RFC 6749 3.1: "Request and response parameters MUST NOT be included more than once." Posts `payload`, which
 * repeats `name`, as REFRESHING and asserts the invalid_request that names the parameter.
 */
export async function assertRepeatRefused(
  t: Test,
  app: FastifyInstance,
  path: '/sso/revoke' | '/sso/introspect' | '/sso/token',
  payload: string,
  name: string,
): Promise<void> {
  const res = await formPost(app, path, payload);
  assertOAuthError(t, res, { status: 400, error: 'invalid_request', description: `parameter ${name} must not be repeated` });
}

/** The id of a seeded user. */
export async function userId(db: Db, username = ALICE.username): Promise<string> {
  return (await db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow()).id;
}

/** Disables a seeded user until the end of `t`. */
export async function disableUser(t: Test, db: Db, username = ALICE.username): Promise<void> {
  const id = await userId(db, username);
  await db.updateTable('users').set({ disabled_at: new Date() }).where('id', '=', id).execute();
  t.teardown(() => db.updateTable('users').set({ disabled_at: null }).where('id', '=', id).execute());
}

export function userinfo(app: FastifyInstance, accessToken: string) {
  return app.inject({ method: 'GET', url: '/sso/userinfo', headers: { authorization: `Bearer ${accessToken}` } });
}

/** RFC 6749 5.2: a JSON error, never cached, that echoes no secret or token. */
export function assertOAuthError(
  t: Test,
  res: LightMyRequestResponse,
  expected: { status: number; error: string; description?: string | RegExp; secrets?: readonly string[] },
): void {
  t.equal(res.statusCode, expected.status, `HTTP ${expected.status}: ${res.body}`);
  t.match(res.headers['content-type'], /^application\/json/);
  t.equal(res.headers['cache-control'], 'no-store', 'the error is not cached');
  const body = res.json() as Record<string, unknown>;
  t.same(Object.keys(body).sort(), ['error', 'error_description']);
  t.equal(body.error, expected.error);
  if (expected.description !== undefined) t.match(body.error_description, expected.description);
  for (const secret of [REFRESHING.client_secret, OTHER_RP.client_secret, MACHINE.client_secret, ...(expected.secrets ?? [])]) {
    t.notOk(res.body.includes(secret), 'the error echoes no secret or token');
  }
}
