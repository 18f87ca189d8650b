// The client_credentials grant over HTTP (RFC 6749 4.4, 3.3, 5.2; RFC 6750 3.1 at the UserInfo endpoint).
import t from 'tap';
import { storedKey } from '../../../src/domain/secrets.js';
import { buildTestApp } from '../../helpers/app.js';
import { basicAuth, tokenRequest } from '../../helpers/flow.js';
import {
  assertOAuthError,
  CONFIDENTIAL_BASIC,
  GRANT_FIXTURES,
  MACHINE,
  MACHINE_BASIC,
  MACHINE_NO_SCOPE,
  PUBLIC_REFRESHING,
  userinfo,
} from '../../helpers/grants.js';

const { app, db, config } = await buildTestApp(t, { seed: GRANT_FIXTURES });

function clientCredentials(form: Record<string, string> = {}, auth = MACHINE_BASIC) {
  return tokenRequest(app, { grant_type: 'client_credentials', ...form }, auth);
}

t.test('RFC 6749 4.4.3: a confidential client gets an access token with its registered scope, and no refresh or ID token', async (t) => {
  const res = await clientCredentials();
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.headers['cache-control'], 'no-store');
  t.equal(res.headers.pragma, 'no-cache');
  const body = res.json();
  t.same(Object.keys(body).sort(), ['access_token', 'expires_in', 'scope', 'token_type'], 'RFC 6749 4.4.3: no refresh token; no ID token');
  t.equal(body.token_type, 'Bearer');
  t.equal(body.expires_in, config.accessTokenTtlSeconds);
  t.equal(body.scope, MACHINE.scope, 'RFC 6749 3.3: the registered scope is the default');
  t.match(body.access_token, /^[0-9a-f]{12}[A-Za-z0-9_-]{43}$/);

  const row = await db
    .selectFrom('access_tokens')
    .selectAll()
    .where('token_hash', '=', storedKey(body.access_token))
    .executeTakeFirstOrThrow();
  t.equal(row.client_id, MACHINE.client_id);
  t.equal(row.user_id, null, 'the token acts for the client, not for a user');
  t.equal(row.code_hash, null);
  t.equal(row.refresh_family_id, null);
  t.equal(row.expires_at.getTime() - row.issued_at.getTime(), config.accessTokenTtlSeconds * 1000);
});

t.test('RFC 6749 4.4.2: a scope within the registered one is granted as asked', async (t) => {
  const res = await clientCredentials({ scope: 'api:read' });
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.json().scope, 'api:read');
  const both = await clientCredentials({ scope: 'api:write api:read api:write' });
  t.equal(both.json().scope, 'api:write api:read', 'repeated values count once');
});

t.test('RFC 6749 3.3: a scope beyond the registered one is refused with invalid_scope', async (t) => {
  const res = await clientCredentials({ scope: 'api:read api:admin' });
  assertOAuthError(t, res, {
    status: 400,
    error: 'invalid_scope',
    description: 'the requested scope exceeds the scope registered for this client',
  });
  const profile = await clientCredentials({ scope: 'profile' });
  assertOAuthError(t, profile, { status: 400, error: 'invalid_scope' });
});

t.test('RFC 6749 3.3: a client with no registered scope and no scope parameter is refused with invalid_scope', async (t) => {
  const res = await clientCredentials({}, basicAuth(MACHINE_NO_SCOPE.client_id, MACHINE_NO_SCOPE.client_secret));
  assertOAuthError(t, res, {
    status: 400,
    error: 'invalid_scope',
    description: 'this client has no registered scope to grant',
    secrets: [MACHINE_NO_SCOPE.client_secret],
  });
});

t.test('RFC 6749 4.4: a public client is refused with unauthorized_client even when registered for client_credentials', async (t) => {
  const res = await tokenRequest(app, { grant_type: 'client_credentials', client_id: PUBLIC_REFRESHING.client_id }, '');
  assertOAuthError(t, res, { status: 400, error: 'unauthorized_client', description: 'a public client may not use client_credentials' });
});

t.test('RFC 6749 5.2: a client not registered for client_credentials is refused with unauthorized_client', async (t) => {
  const res = await clientCredentials({}, CONFIDENTIAL_BASIC);
  assertOAuthError(t, res, { status: 400, error: 'unauthorized_client', description: 'this client may not use client_credentials' });
});

t.test('RFC 6749 4.4.2: a wrong client secret is refused with invalid_client', async (t) => {
  const res = await clientCredentials({}, basicAuth(MACHINE.client_id, 'not-the-secret-0123456789'));
  assertOAuthError(t, res, { status: 401, error: 'invalid_client' });
  t.match(res.headers['www-authenticate'], /^Basic /);
});

t.test('RFC 6750 3.1: the UserInfo endpoint refuses a client_credentials token, which has no user, with 401 invalid_token', async (t) => {
  const body = (await clientCredentials({ scope: 'openid api:read' })).json();
  t.equal(body.scope, 'openid api:read', 'even with the openid scope');
  const res = await userinfo(app, body.access_token);
  t.equal(res.statusCode, 401, res.body);
  t.equal(res.json().error, 'invalid_token');
  t.match(res.headers['www-authenticate'], /^Bearer realm="sso", error="invalid_token"/);
  t.notOk(res.body.includes(body.access_token));
});

t.test('RFC 8707 2: resource, which a client MAY send more than once, is not refused as a repeat (RFC 6749 3.1)', async (t) => {
  const res = await app.inject({
    method: 'POST',
    url: '/sso/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: MACHINE_BASIC },
    payload: 'grant_type=client_credentials&resource=https%3A%2F%2Fa.example%2F&resource=https%3A%2F%2Fb.example%2F',
  });
  // Read as resources (test/http/tokens/resource-indicators.test.ts), which this client may not ask for: RFC 8707 2's
  // invalid_target, not a repeated parameter.
  assertOAuthError(t, res, { status: 400, error: 'invalid_target', description: 'this client may not ask for that resource' });
  const repeated = await app.inject({
    method: 'POST',
    url: '/sso/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: MACHINE_BASIC },
    payload: 'grant_type=client_credentials&scope=api%3Aread&scope=api%3Aread',
  });
  assertOAuthError(t, repeated, { status: 400, error: 'invalid_request', description: 'parameter scope must not be repeated' });
});
