// The management API as a real client uses it (issue 20): openid-client discovers the issuer, gets a
// client_credentials token (RFC 6749 4.4) with admin:read admin:write, and calls the listening server with it
// (RFC 6750 2.1), creating a user and reading the audit record of that change.
import t from 'tap';
import * as oidc from 'openid-client';
import { ADMIN_FIXTURES, ADMIN_WRITER } from '../../helpers/admin-api.js';
import { listenTestApp } from '../../helpers/listening.js';
import { discover } from '../../helpers/relying-party.js';

t.test('openid-client: a client_credentials token with admin:write creates a user; admin:read alone reads but may not write', async (t) => {
  const server = await listenTestApp(t, { seed: ADMIN_FIXTURES });
  const config = await discover(
    server,
    ADMIN_WRITER.client_id,
    oidc.ClientSecretBasic(ADMIN_WRITER.client_secret),
    ADMIN_WRITER.client_secret,
  );
  const api = `${server.baseUrl}/admin/api/v1`;
  const call = (token: string, method: string, path: string, body?: unknown) =>
    oidc.fetchProtectedResource(
      config,
      token,
      new URL(`${api}${path}`),
      method,
      body === undefined ? undefined : JSON.stringify(body),
      new Headers(body === undefined ? {} : { 'content-type': 'application/json' }),
    );

  const writer = await oidc.clientCredentialsGrant(config, { scope: 'admin:read admin:write' });
  t.equal(writer.scope, 'admin:read admin:write');
  const created = await call(writer.access_token, 'POST', '/users', { username: 'erin', password: 'erin-password-2026' });
  t.equal(created.status, 201);
  const user = (await created.json()) as { id: string; username: string };
  t.equal(user.username, 'erin');

  const reader = await oidc.clientCredentialsGrant(config, { scope: 'admin:read' });
  const audit = await call(reader.access_token, 'GET', `/audit?target=user:${user.id}`);
  t.equal(audit.status, 200);
  const records = (await audit.json()) as { items: Array<{ event: string; actor: { kind: string; id: string }; origin: string }> };
  t.match(records.items, [{ event: 'admin.user.created', actor: { kind: 'client', id: ADMIN_WRITER.client_id }, origin: '127.0.0.1' }]);

  // RFC 6750 3.1: openid-client reads the challenge of the 403 and throws it.
  const refused = await call(reader.access_token, 'DELETE', `/users/${user.id}`).catch((err: unknown) => err);
  t.type(refused, oidc.WWWAuthenticateChallengeError);
  const challenge = refused as oidc.WWWAuthenticateChallengeError;
  t.equal(challenge.status, 403);
  t.match(challenge.cause, [{ scheme: 'bearer', parameters: { error: 'insufficient_scope', scope: 'admin:write' } }]);
  t.match(challenge.response.headers.get('content-type'), /^application\/problem\+json/);
});
