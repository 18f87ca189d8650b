// The introspection endpoint over HTTP (RFC 7662 2.1, 2.2, 4; RFC 6749 2.3, 3.1).
import type { LightMyRequestResponse } from 'fastify';
import t, { type Test } from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import {
  assertOAuthError,
  assertRepeatRefused,
  codeTokens,
  disableUser,
  formPost,
  GRANT_FIXTURES,
  MACHINE,
  machineToken,
  MACHINE_BASIC,
  offlineTokens,
  OTHER_RP_BASIC,
  PUBLIC_REFRESHING,
  REFRESHING,
  refreshRequest,
  userId,
} from '../../helpers/grants.js';

const REFRESH_TTL = 7200;
const { app, db, config, advance } = await buildTestApp(t, {
  seed: GRANT_FIXTURES,
  env: { REFRESH_TOKEN_TTL_SECONDS: String(REFRESH_TTL) },
});

/** As REFRESHING with Basic unless told otherwise; null sends no Authorization header. */
const introspect = (form: Record<string, string>, auth?: string | null) => formPost(app, '/sso/introspect', form, auth);

/** RFC 7662 2.2: JSON, never cached. */
function answer(t: Test, res: LightMyRequestResponse): Record<string, unknown> {
  t.equal(res.statusCode, 200, res.body);
  t.match(res.headers['content-type'], /^application\/json/);
  t.equal(res.headers['cache-control'], 'no-store');
  return res.json() as Record<string, unknown>;
}

/** RFC 7662 2.2: an inactive token gets "active": false and nothing else. */
function assertInactive(t: Test, res: LightMyRequestResponse): void {
  t.same(answer(t, res), { active: false });
}

t.test('RFC 7662 2.2: an active access token is described by scope, client_id, sub, exp, iat, token_type and iss', async (t) => {
  const before = Math.floor(Date.now() / 1000);
  const tokens = await offlineTokens(app);
  const body = answer(t, await introspect({ token: tokens.access_token }));
  t.same(Object.keys(body).sort(), ['active', 'client_id', 'exp', 'iat', 'iss', 'scope', 'sub', 'token_type']);
  t.equal(body.active, true);
  t.equal(body.scope, 'openid profile offline_access');
  t.equal(body.client_id, REFRESHING.client_id);
  t.equal(body.sub, await userId(db));
  t.equal(body.token_type, 'Bearer');
  t.equal(body.iss, config.issuer);
  t.ok((body.iat as number) >= before - 1 && (body.iat as number) <= before + 5, 'iat is when it was issued');
  t.equal((body.exp as number) - (body.iat as number), config.accessTokenTtlSeconds);
});

t.test('RFC 7662 2.2: an active refresh token has token_type refresh_token and its own expiry', async (t) => {
  const tokens = await offlineTokens(app);
  const body = answer(t, await introspect({ token: tokens.refresh_token, token_type_hint: 'refresh_token' }));
  t.equal(body.active, true);
  t.equal(body.token_type, 'refresh_token');
  t.equal(body.client_id, REFRESHING.client_id);
  t.equal(body.sub, await userId(db));
  t.equal(body.scope, 'openid profile offline_access');
  t.equal((body.exp as number) - (body.iat as number), REFRESH_TTL);
});

t.test('RFC 7662 2.1: the token_type_hint only says where to look first', async (t) => {
  const tokens = await offlineTokens(app);
  t.equal(answer(t, await introspect({ token: tokens.refresh_token, token_type_hint: 'access_token' })).token_type, 'refresh_token');
  t.equal(answer(t, await introspect({ token: tokens.access_token, token_type_hint: 'refresh_token' })).token_type, 'Bearer');
  t.equal(answer(t, await introspect({ token: tokens.access_token, token_type_hint: 'something_else' })).active, true);
});

t.test('RFC 7662 2.2: a client_credentials access token has no sub', async (t) => {
  const token = await machineToken(app, 'api:read');
  const body = answer(t, await introspect({ token }, MACHINE_BASIC));
  t.equal(body.active, true);
  t.equal(body.client_id, MACHINE.client_id);
  t.equal(body.scope, 'api:read');
  t.equal(body.token_type, 'Bearer');
  t.notOk('sub' in body, 'no user, no sub');
});

t.test('RFC 7662 2.2: an unknown token is inactive', async (t) => {
  assertInactive(t, await introspect({ token: 'no-such-token' }));
});

t.test('RFC 7662 2.2: a revoked token is inactive', async (t) => {
  const tokens = await offlineTokens(app);
  t.equal((await formPost(app, '/sso/revoke', { token: tokens.refresh_token })).statusCode, 200);
  assertInactive(t, await introspect({ token: tokens.refresh_token }));
  assertInactive(t, await introspect({ token: tokens.access_token }));
});

t.test('RFC 7662 2.2: a rotated refresh token is inactive and its successor active', async (t) => {
  const tokens = await offlineTokens(app);
  const next = (await refreshRequest(app, tokens.refresh_token)).json();
  assertInactive(t, await introspect({ token: tokens.refresh_token }));
  t.equal(answer(t, await introspect({ token: next.refresh_token })).active, true);
});

t.test("RFC 7662 2.2: another client's token is inactive for the caller", async (t) => {
  const tokens = await offlineTokens(app);
  assertInactive(t, await introspect({ token: tokens.access_token }, OTHER_RP_BASIC));
  assertInactive(t, await introspect({ token: tokens.refresh_token }, OTHER_RP_BASIC));
  t.equal(answer(t, await introspect({ token: tokens.access_token })).active, true, 'it is active for its own client');
});

t.test("RFC 7662 2.2: a disabled user's tokens are inactive", async (t) => {
  const tokens = await offlineTokens(app);
  await disableUser(t, db);
  assertInactive(t, await introspect({ token: tokens.access_token }));
  assertInactive(t, await introspect({ token: tokens.refresh_token }));
});

t.test('RFC 7662 2.2: an expired token is inactive', async (t) => {
  const tokens = await offlineTokens(app);
  advance(config.accessTokenTtlSeconds + 1);
  assertInactive(t, await introspect({ token: tokens.access_token }));
  t.equal(answer(t, await introspect({ token: tokens.refresh_token })).active, true, 'the refresh token lives longer');
  advance(REFRESH_TTL);
  assertInactive(t, await introspect({ token: tokens.refresh_token }));
});

t.test('RFC 7662 2.1: a request without token is refused with invalid_request', async (t) => {
  assertOAuthError(t, await introspect({}), { status: 400, error: 'invalid_request', description: 'parameter token is required' });
});

t.test('RFC 6749 3.1: a repeated token parameter is refused with invalid_request', async (t) => {
  await assertRepeatRefused(t, app, '/sso/introspect', 'token=a&token=b', 'token');
});

t.test('RFC 7662 2.1: a caller that does not authenticate is refused with invalid_client', async (t) => {
  const tokens = await offlineTokens(app);
  const none = await introspect({ token: tokens.access_token }, null);
  assertOAuthError(t, none, { status: 401, error: 'invalid_client', secrets: [tokens.access_token] });
  t.match(none.headers['www-authenticate'], /^Basic /);
});

t.test('RFC 7662 2.1: a public client, which proves only its client_id, is refused with invalid_client', async (t) => {
  const tokens = await codeTokens(app, PUBLIC_REFRESHING, undefined, 'openid offline_access');
  const res = await introspect({ token: tokens.access_token, client_id: PUBLIC_REFRESHING.client_id }, null);
  assertOAuthError(t, res, {
    status: 401,
    error: 'invalid_client',
    description: 'client authentication is required',
    secrets: [tokens.access_token],
  });
});

t.test('RFC 8414 2: discovery advertises the introspection endpoint and the client authentication methods it takes', async (t) => {
  const doc = (await app.inject({ method: 'GET', url: '/sso/.well-known/openid-configuration' })).json();
  t.equal(doc.introspection_endpoint, `${config.issuer}/introspect`);
  t.same(doc.introspection_endpoint_auth_methods_supported, [
    'client_secret_basic',
    'client_secret_post',
    'client_secret_jwt',
    'private_key_jwt',
  ]);
  t.ok(doc.scopes_supported.includes('offline_access'), 'OIDC Core 11: offline_access is a supported scope');
  t.same(doc.grant_types_supported, [
    'authorization_code',
    'refresh_token',
    'client_credentials',
    'urn:ietf:params:oauth:grant-type:device_code',
  ]);
});
