// Clients and helpers for the refresh_token and client_credentials grants, revocation and introspection tests.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Test } from 'tap';
import { CONFIDENTIAL, FIXTURES, PUBLIC } from './app.js';
import { basicAuth, obtainCode, tokenRequest } from './flow.js';
import type { SeedFile } from '../../src/domain/seed.js';

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

/** A refresh_token grant request. */
export function refreshRequest(app: FastifyInstance, refreshToken: string, extra: Record<string, string> = {}, auth = REFRESHING_BASIC) {
  return tokenRequest(app, { grant_type: 'refresh_token', refresh_token: refreshToken, ...extra }, auth);
}

/** A form POST to /sso/revoke or /sso/introspect. */
export function formPost(app: FastifyInstance, path: '/sso/revoke' | '/sso/introspect', form: Record<string, string>, auth: string | undefined) {
  return app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(auth ? { authorization: auth } : {}) },
    payload: new URLSearchParams(form).toString(),
  });
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
