// The revocation endpoint over HTTP (RFC 7009 2.1, 2.2, 5; RFC 6749 2.3, 3.1).
import t from 'tap';
import { storedKey } from '../../../src/domain/secrets.js';
import { buildTestApp } from '../../helpers/app.js';
import { basicAuth } from '../../helpers/flow.js';
import {
  assertOAuthError,
  assertRepeatRefused,
  codeTokens,
  formPost,
  GRANT_FIXTURES,
  machineToken,
  MACHINE_BASIC,
  offlineTokens,
  OTHER_RP_BASIC,
  PUBLIC_REFRESHING,
  REFRESHING,
  refreshRequest,
  userinfo,
} from '../../helpers/grants.js';

const { app, db, config } = await buildTestApp(t, { seed: GRANT_FIXTURES });

/** As REFRESHING with Basic unless told otherwise; null sends no Authorization header. */
const revoke = (form: Record<string, string>, auth?: string | null) => formPost(app, '/sso/revoke', form, auth);

t.test('RFC 7009 2.2: revoking an access token answers 200 with an empty body, and the token no longer works', async (t) => {
  const tokens = await offlineTokens(app);
  t.equal((await userinfo(app, tokens.access_token)).statusCode, 200);
  const res = await revoke({ token: tokens.access_token, token_type_hint: 'access_token' });
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.body, '');
  t.equal(res.headers['cache-control'], 'no-store');
  t.equal((await userinfo(app, tokens.access_token)).statusCode, 401);
  t.equal((await refreshRequest(app, tokens.refresh_token)).statusCode, 200, 'the refresh token is left alone');
});

t.test('RFC 7009 2.1: revoking a refresh token revokes its family and the access tokens issued with it', async (t) => {
  const first = await offlineTokens(app);
  const second = (await refreshRequest(app, first.refresh_token)).json();
  const res = await revoke({ token: second.refresh_token, token_type_hint: 'refresh_token' });
  t.equal(res.statusCode, 200, res.body);
  assertOAuthError(t, await refreshRequest(app, second.refresh_token), {
    status: 400,
    error: 'invalid_grant',
    description: 'the refresh token was revoked',
  });
  t.equal((await userinfo(app, second.access_token)).statusCode, 401, 'the access token of the refresh is revoked');
  t.equal((await userinfo(app, first.access_token)).statusCode, 401, 'the access token of the code exchange is revoked');
});

t.test('RFC 7009 2.2: an unknown token answers 200', async (t) => {
  const res = await revoke({ token: 'no-such-token' });
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.body, '');
});

t.test('RFC 7009 2.2: revoking a token twice answers 200 both times', async (t) => {
  const tokens = await offlineTokens(app);
  t.equal((await revoke({ token: tokens.refresh_token })).statusCode, 200);
  t.equal((await revoke({ token: tokens.refresh_token })).statusCode, 200);
});

t.test('RFC 7009 2.1: a wrong token_type_hint does not stop the server from finding the token', async (t) => {
  const tokens = await offlineTokens(app);
  const res = await revoke({ token: tokens.refresh_token, token_type_hint: 'access_token' });
  t.equal(res.statusCode, 200, res.body);
  assertOAuthError(t, await refreshRequest(app, tokens.refresh_token), {
    status: 400,
    error: 'invalid_grant',
    description: 'the refresh token was revoked',
  });
  const access = await offlineTokens(app);
  t.equal((await revoke({ token: access.access_token, token_type_hint: 'refresh_token' })).statusCode, 200);
  t.equal((await userinfo(app, access.access_token)).statusCode, 401);
});

t.test('RFC 7009 2.1: an unknown token_type_hint is ignored, not refused', async (t) => {
  const tokens = await offlineTokens(app);
  const res = await revoke({ token: tokens.access_token, token_type_hint: 'id_token' });
  t.equal(res.statusCode, 200, res.body);
  t.equal((await userinfo(app, tokens.access_token)).statusCode, 401);
});

t.test("RFC 7009 2.1: another client's token is refused with invalid_request and stays valid", async (t) => {
  const tokens = await offlineTokens(app);
  const res = await revoke({ token: tokens.refresh_token }, OTHER_RP_BASIC);
  assertOAuthError(t, res, {
    status: 400,
    error: 'invalid_request',
    description: 'the token was not issued to this client',
    secrets: [tokens.refresh_token],
  });
  const access = await revoke({ token: tokens.access_token }, OTHER_RP_BASIC);
  assertOAuthError(t, access, { status: 400, error: 'invalid_request', secrets: [tokens.access_token] });
  t.equal((await userinfo(app, tokens.access_token)).statusCode, 200, 'the access token still works');
  t.equal((await refreshRequest(app, tokens.refresh_token)).statusCode, 200, 'the refresh token still works');
});

t.test('RFC 7009 2.1: a request without token is refused with invalid_request', async (t) => {
  assertOAuthError(t, await revoke({ token_type_hint: 'access_token' }), {
    status: 400,
    error: 'invalid_request',
    description: 'parameter token is required',
  });
  assertOAuthError(t, await revoke({ token: '' }), { status: 400, error: 'invalid_request', description: 'parameter token is required' });
});

t.test('RFC 6749 3.1: a repeated token parameter is refused with invalid_request', async (t) => {
  await assertRepeatRefused(t, app, '/sso/revoke', 'token=a&token=b', 'token');
});

t.test('RFC 7009 2.1: a request whose client does not authenticate is refused with invalid_client', async (t) => {
  const tokens = await offlineTokens(app);
  const none = await revoke({ token: tokens.access_token }, null);
  assertOAuthError(t, none, { status: 401, error: 'invalid_client' });
  t.match(none.headers['www-authenticate'], /^Basic /);
  const wrong = await revoke({ token: tokens.access_token }, basicAuth(REFRESHING.client_id, 'wrong-secret-0123456789'));
  assertOAuthError(t, wrong, { status: 401, error: 'invalid_client' });
  const confidentialWithoutSecret = await revoke({ token: tokens.access_token, client_id: REFRESHING.client_id }, null);
  assertOAuthError(t, confidentialWithoutSecret, { status: 401, error: 'invalid_client' });
  t.equal((await userinfo(app, tokens.access_token)).statusCode, 200, 'nothing was revoked');
});

t.test('RFC 7009 2.1: client_secret_post authenticates the client as well', async (t) => {
  const tokens = await offlineTokens(app);
  const res = await revoke({ token: tokens.access_token, client_id: REFRESHING.client_id, client_secret: REFRESHING.client_secret }, null);
  t.equal(res.statusCode, 200, res.body);
  t.equal((await userinfo(app, tokens.access_token)).statusCode, 401);
});

t.test('RFC 7009 5: a public client revokes its own refresh token with its client_id alone', async (t) => {
  const tokens = await codeTokens(app, PUBLIC_REFRESHING, undefined, 'openid offline_access');
  const res = await revoke({ token: tokens.refresh_token!, client_id: PUBLIC_REFRESHING.client_id }, null);
  t.equal(res.statusCode, 200, res.body);
  const refresh = await refreshRequest(app, tokens.refresh_token!, { client_id: PUBLIC_REFRESHING.client_id }, '');
  assertOAuthError(t, refresh, { status: 400, error: 'invalid_grant', description: 'the refresh token was revoked' });
  t.equal((await userinfo(app, tokens.access_token)).statusCode, 401);
});

t.test('RFC 7009 2.1: a client_credentials access token is revoked by its client', async (t) => {
  const token = await machineToken(app);
  t.equal((await revoke({ token }, MACHINE_BASIC)).statusCode, 200);
  const row = await db
    .selectFrom('access_tokens')
    .select('revoked_at')
    .where('token_hash', '=', storedKey(token))
    .executeTakeFirstOrThrow();
  t.not(row.revoked_at, null);
});

t.test('RFC 8414 2: discovery advertises the revocation endpoint and the client authentication methods it takes', async (t) => {
  const doc = (await app.inject({ method: 'GET', url: '/sso/.well-known/openid-configuration' })).json();
  t.equal(doc.revocation_endpoint, `${config.issuer}/revoke`);
  t.same(doc.revocation_endpoint_auth_methods_supported, [
    'client_secret_basic',
    'client_secret_post',
    'client_secret_jwt',
    'private_key_jwt',
    'none',
  ]);
});
