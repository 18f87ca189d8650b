// OIDC Core 2 `acr`: a session's authentication context class, when it has one (an upstream's, passed on by a
// connection trusted for it, issue 19), travels as amr does: into the code and its ID token, into the refresh token
// and the ID token of every rotation, into an RFC 9068 JWT access token (2.2.1), and through a device authorization.
// A session without one gives no acr at all, and discovery advertises no acr_values_supported. Where acr comes from
// (an upstream ID token) is shown in test/e2e/browser/upstream-oidc-browser.test.ts.
import { decodeJwt } from 'jose';
import t from 'tap';
import type { SeedFile } from '../../../src/domain/admin/seed.js';
import { buildTestApp, CONFIDENTIAL, FIXTURES } from '../../helpers/app.js';
import { basicAuth, obtainCode, tokenRequest, type Browser } from '../../helpers/flow.js';
import { poll, startDevice, TV, TV_BASIC, verify } from '../../helpers/device.js';

const ACR = 'urn:example:loa:2';
const API = 'https://reports.example/';
const RP = {
  ...CONFIDENTIAL,
  client_id: 'acr-app',
  grant_types: ['authorization_code', 'refresh_token'],
  allowed_resources: [API],
};
const SEED: SeedFile = {
  ...FIXTURES,
  resource_servers: [{ identifier: API, scopes: { 'reports:read': 'Read your reports' }, access_token_format: 'jwt' as const }],
  clients: [...FIXTURES.clients, RP, TV],
};
const { app, db } = await buildTestApp(t, { seed: SEED });
const AUTH = basicAuth(RP.client_id, RP.client_secret);

async function tokens(browser?: Browser, extra: Record<string, string> = {}) {
  const got = await obtainCode(
    app,
    { client_id: RP.client_id, redirect_uri: RP.redirect_uris[0], scope: 'openid offline_access', ...extra },
    browser ? { browser } : {},
  );
  const res = await tokenRequest(
    app,
    { grant_type: 'authorization_code', code: got.code, redirect_uri: got.redirectUri, code_verifier: got.verifier },
    AUTH,
  );
  t.equal(res.statusCode, 200, res.body);
  return { body: res.json<{ access_token: string; id_token: string; refresh_token: string }>(), browser: got.browser };
}

t.test('a session without an acr gives none; discovery lists no acr values', async (t) => {
  const { body } = await tokens();
  t.notOk('acr' in decodeJwt(body.id_token), 'OIDC Core 2: acr is OPTIONAL, and this sign-in has no class');
  const discovery = (await app.inject('/sso/.well-known/openid-configuration')).json<Record<string, unknown>>();
  t.notOk('acr_values_supported' in discovery, 'OIDC Discovery 3: no acr values are supported as requestable');
});

t.test("a session's acr reaches the ID token, every refresh's ID token and a JWT access token", async (t) => {
  const first = await tokens();
  await db.updateTable('sessions').set({ acr: ACR }).execute();
  const { body } = await tokens(first.browser);
  t.equal(decodeJwt(body.id_token).acr, ACR, 'OIDC Core 2: the ID token carries the acr of the session behind the code');

  const refreshed = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: body.refresh_token }, AUTH);
  t.equal(refreshed.statusCode, 200, refreshed.body);
  t.equal(decodeJwt(refreshed.json<{ id_token: string }>().id_token).acr, ACR, 'OIDC Core 12.2: the refreshed ID token keeps it');
  const again = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: refreshed.json().refresh_token }, AUTH);
  t.equal(decodeJwt(again.json<{ id_token: string }>().id_token).acr, ACR, 'and the next rotation too');

  const forApi = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: again.json().refresh_token, resource: API }, AUTH);
  t.equal(forApi.statusCode, 200, forApi.body);
  const jwt = decodeJwt(forApi.json<{ access_token: string }>().access_token);
  t.equal(jwt.aud, API, 'a JWT access token for the resource (RFC 8707)');
  t.equal(jwt.acr, ACR, 'RFC 9068 2.2.1: acr in the JWT access token');
});

t.test('a device authorization approved in a session with an acr gives it to the ID token', async (t) => {
  const signedIn = await tokens();
  await db.updateTable('sessions').set({ acr: ACR }).execute();
  const started = await startDevice(app, { scope: 'openid offline_access' });
  const { res } = await verify(app, started.user_code, { browser: signedIn.browser });
  t.equal(res.statusCode, 200);
  const polled = await poll(app, started.device_code, TV_BASIC);
  t.equal(polled.statusCode, 200, polled.body);
  t.equal(decodeJwt(polled.json<{ id_token: string }>().id_token).acr, ACR, 'OIDC Core 2 acr through RFC 8628');
  const refreshed = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: polled.json().refresh_token }, TV_BASIC);
  t.equal(decodeJwt(refreshed.json<{ id_token: string }>().id_token).acr, ACR, 'and its refresh');
});
