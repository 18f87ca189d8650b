// Interoperability of resource indicators (RFC 8707) and JWT access tokens (RFC 9068): openid-client v6 asks for an
// API's token over real HTTP, and the API checks it as docs/api-access-tokens.md shows, with jose and the jwks_uri.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import t from 'tap';
import { FIXTURES } from '../../helpers/app.js';
import { visit } from '../../helpers/fetch-browser.js';
import { listenTestApp } from '../../helpers/listening.js';
import { discover, prepareAttempt } from '../../helpers/relying-party.js';

const API = 'https://reports.example/api';
const REDIRECT = 'https://dashboard.example/cb';
const DASHBOARD = {
  client_id: 'dashboard',
  client_secret: 'dashboard-secret-0123456789',
  redirect_uris: [REDIRECT],
  grant_types: ['authorization_code', 'refresh_token'],
  allowed_resources: [API],
};

t.test('openid-client: a code flow for an API gets an at+jwt token that the API verifies with jose; refresh keeps it', async (t) => {
  const server = await listenTestApp(t, {
    seed: {
      ...FIXTURES,
      resource_servers: [{ identifier: API, scopes: { 'reports:read': 'Read your reports' }, access_token_format: 'jwt' }],
      clients: [...FIXTURES.clients, DASHBOARD],
    },
  });
  const config = await discover(server, DASHBOARD.client_id, oidc.ClientSecretBasic(DASHBOARD.client_secret), DASHBOARD.client_secret);
  const attempt = await prepareAttempt(config, REDIRECT, 'openid offline_access reports:read', { resource: API, prompt: 'consent' });
  const { callback, consentPage } = await visit(server, attempt.authorizationUrl);
  t.match(consentPage ?? '', /Read your reports/, 'the consent page names the API scope');
  const tokens = await oidc.authorizationCodeGrant(config, callback, attempt.checks, { resource: API });
  t.equal(tokens.scope, 'reports:read');
  const keys = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
  const { payload, protectedHeader } = await jwtVerify(tokens.access_token, keys, { issuer: server.issuer, audience: API, typ: 'at+jwt' });
  t.equal(protectedHeader.typ, 'at+jwt');
  t.equal(payload.sub, tokens.claims()!.sub, 'the same subject as the ID token');
  t.equal(payload.client_id, 'dashboard');
  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!, { resource: API });
  const again = await jwtVerify(refreshed.access_token, keys, { issuer: server.issuer, audience: API, typ: 'at+jwt' });
  t.not(again.payload.jti, payload.jti, 'a new token, with its own jti');
  const userinfo = await oidc.fetchUserInfo(config, refreshed.access_token, payload.sub!).then(
    () => 'accepted',
    (err: unknown) => (err instanceof oidc.WWWAuthenticateChallengeError ? err.status : String(err)),
  );
  t.equal(userinfo, 401, 'userinfo is not this token’s audience');
});
