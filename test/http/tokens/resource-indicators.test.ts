// Access tokens for APIs: resource indicators (RFC 8707) and JWT access tokens (RFC 9068), for the code, refresh,
// client_credentials and device grants; introspection and revocation of them (RFC 7662, RFC 7009).
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import t from 'tap';
import { ALICE, buildTestApp, CONFIDENTIAL, FIXTURES, type TestApp } from '../../helpers/app.js';
import { DEVICE_CODE_GRANT, poll, startDevice, verify } from '../../helpers/device.js';
import {
  basicAuth,
  Browser,
  formAction,
  hiddenField,
  localPath,
  authorizePath,
  obtainCode,
  pkcePair,
  tokenRequest,
} from '../../helpers/flow.js';

const REPORTS = 'https://reports.example/api';
const BILLING = 'https://billing.example/';
const UNREGISTERED = 'https://unregistered.example/';
const API_CLIENT = {
  client_id: 'dashboard',
  client_secret: 'dashboard-secret-0123456789',
  redirect_uris: ['https://dashboard.example/cb'],
  grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
  scope: 'reports:read billing:read',
  allowed_resources: [REPORTS, BILLING, UNREGISTERED],
};
const DEFAULTED = {
  client_id: 'worker',
  client_secret: 'worker-secret-0123456789',
  grant_types: ['client_credentials'],
  scope: 'reports:read reports:write',
  allowed_resources: [REPORTS],
  default_resource: REPORTS,
};
const SCREEN = {
  client_id: 'screen',
  client_secret: 'screen-secret-0123456789',
  grant_types: [DEVICE_CODE_GRANT],
  allowed_resources: [REPORTS],
  default_resource: REPORTS,
};
const WALL = {
  client_id: 'wall',
  client_secret: 'wall-secret-0123456789',
  grant_types: [DEVICE_CODE_GRANT],
  allowed_resources: [REPORTS, BILLING, UNREGISTERED],
};
const SERVER_CLIENT = {
  client_id: 'reports-api',
  client_secret: 'reports-api-secret-0123456789',
  grant_types: ['client_credentials'],
  scope: 'none',
};
const SEED = {
  ...FIXTURES,
  resource_servers: [
    {
      identifier: REPORTS,
      name: 'Reports API',
      scopes: { 'reports:read': 'Read your reports', 'reports:write': 'Change your reports' },
      access_token_format: 'jwt' as const,
      access_token_ttl_seconds: 600,
      access_token_signing_alg: 'ES256' as const,
      introspecting_clients: ['reports-api'],
    },
    { identifier: BILLING, scopes: { 'billing:read': 'See your invoices' }, access_token_ttl_seconds: 300 },
  ],
  clients: [...FIXTURES.clients, API_CLIENT, DEFAULTED, SERVER_CLIENT, SCREEN, WALL],
};
const DASHBOARD = basicAuth(API_CLIENT.client_id, API_CLIENT.client_secret);

async function jwks(app: TestApp['app']): Promise<JSONWebKeySet> {
  return (await app.inject({ method: 'GET', url: '/sso/jwks' })).json() as JSONWebKeySet;
}

async function dashboardCode(app: TestApp['app'], resource: string | string[] | undefined, scope = 'openid reports:read billing:read') {
  return obtainCode(app, {
    client_id: API_CLIENT.client_id,
    redirect_uri: API_CLIENT.redirect_uris[0],
    scope,
    resource,
  });
}

function redeem(app: TestApp['app'], code: { code: string; verifier: string; redirectUri: string | undefined }, resource?: string) {
  return tokenRequest(
    app,
    { grant_type: 'authorization_code', code: code.code, redirect_uri: code.redirectUri, code_verifier: code.verifier, resource },
    DASHBOARD,
  );
}

const post = (app: TestApp['app'], path: string, form: Record<string, string>, auth: string) =>
  app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth },
    payload: new URLSearchParams(form).toString(),
  });

t.test('RFC 9068: a resource that wants JWTs gets an at+jwt access token for it, which userinfo refuses', async (t) => {
  const { app, config } = await buildTestApp(t, { seed: SEED as never });
  const code = await dashboardCode(app, REPORTS);
  const res = await redeem(app, code, REPORTS);
  t.equal(res.statusCode, 200, res.body);
  const body = res.json() as { access_token: string; expires_in: number; scope: string; id_token: string };
  t.equal(body.expires_in, 600, "the resource server's lifetime");
  t.equal(body.scope, 'reports:read', 'RFC 8707 / RFC 6749 5.1: the scopes of that resource only');
  t.equal(decodeProtectedHeader(body.access_token).typ, 'at+jwt', 'RFC 9068 2.1: typ at+jwt');
  t.equal(decodeProtectedHeader(body.access_token).alg, 'ES256', 'signed with the alg the resource server asked for');
  // RFC 9068 4: what a resource server checks, with jose, in a few lines.
  const { payload } = await jwtVerify(body.access_token, createLocalJWKSet(await jwks(app)), {
    issuer: config.issuer,
    audience: REPORTS,
    typ: 'at+jwt',
  });
  const sub = decodeJwt(body.id_token).sub;
  t.match(payload, { sub, client_id: 'dashboard', scope: 'reports:read', jti: String, iat: Number, exp: Number, auth_time: Number });
  t.equal(payload.exp! - payload.iat!, 600);
  t.type(body.id_token, 'string', 'the ID token is issued still: openid was granted');
  const info = await app.inject({ method: 'GET', url: '/sso/userinfo', headers: { authorization: `Bearer ${body.access_token}` } });
  t.equal(info.statusCode, 401, 'RFC 6750 3.1: a token for another resource is invalid_token at userinfo');
});

t.test('RFC 7662 and RFC 7009: a JWT access token is introspected by its client and its resource server, and revoked', async (t) => {
  const { app } = await buildTestApp(t, { seed: SEED as never });
  const token = (await redeem(app, await dashboardCode(app, REPORTS), REPORTS)).json().access_token as string;
  const byClient = await post(app, '/sso/introspect', { token }, DASHBOARD);
  t.match(byClient.json(), { active: true, aud: REPORTS, client_id: 'dashboard', scope: 'reports:read', token_type: 'Bearer' });
  const byServer = await post(app, '/sso/introspect', { token }, basicAuth(SERVER_CLIENT.client_id, SERVER_CLIENT.client_secret));
  t.match(byServer.json(), { active: true, aud: REPORTS }, 'the resource server (introspecting_clients) may introspect it');
  const byOther = await post(app, '/sso/introspect', { token }, basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret));
  t.same(byOther.json(), { active: false }, 'another client learns nothing');
  const forged = `${token.slice(0, token.lastIndexOf('.'))}.${'A'.repeat(86)}`;
  t.same((await post(app, '/sso/introspect', { token: forged }, DASHBOARD)).json(), { active: false }, 'a forged signature is no token');
  const jti = decodeJwt(token).jti!;
  t.same(
    (await post(app, '/sso/introspect', { token: `jwt:${jti}` }, DASHBOARD)).json(),
    { active: false },
    'nor is its jti as an opaque value',
  );
  t.equal((await post(app, '/sso/revoke', { token }, DASHBOARD)).statusCode, 200);
  t.same((await post(app, '/sso/introspect', { token }, DASHBOARD)).json(), { active: false }, 'revoked: reported inactive');
});

t.test('RFC 8707 2.1 / 2.2: several resources at authorize, one per token request; each token for its own resource', async (t) => {
  const { app } = await buildTestApp(t, { seed: SEED as never });
  const code = await dashboardCode(app, [REPORTS, BILLING], 'openid offline_access reports:read billing:read');
  const unnamed = await redeem(app, code);
  t.equal(unnamed.json().error, 'invalid_target', 'a grant for several resources must name one at the token endpoint');
  const billing = await redeem(app, code, BILLING);
  t.equal(billing.statusCode, 200, billing.body);
  const tokens = billing.json() as { access_token: string; refresh_token: string; scope: string; expires_in: number };
  t.match(tokens.access_token, /^[0-9a-f]{12}[A-Za-z0-9_-]{43}$/, 'billing wants opaque tokens');
  t.equal(tokens.scope, 'billing:read');
  t.equal(tokens.expires_in, 300);
  const introspected = await post(app, '/sso/introspect', { token: tokens.access_token }, DASHBOARD);
  t.match(introspected.json(), { active: true, aud: BILLING, scope: 'billing:read' });

  const refresh = (resource: string | undefined) =>
    tokenRequest(app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, resource }, DASHBOARD);
  const notInGrant = await refresh(UNREGISTERED);
  t.equal(notInGrant.json().error, 'invalid_target', 'RFC 8707 2.2: a resource the grant was not for');
  const reports = await refresh(REPORTS);
  t.equal(reports.statusCode, 200, reports.body);
  t.equal(decodeJwt(reports.json().access_token as string).aud, REPORTS, 'the refresh narrows to the other resource of the grant');
  t.equal(reports.json().scope, 'reports:read');
});

t.test('RFC 8707 2: a resource the client may not ask for, a malformed one, an unknown one: invalid_target, redirected', async (t) => {
  const { app } = await buildTestApp(t, { seed: SEED as never });
  const browser = new Browser();
  const ask = async (resource: string) => {
    const res = await browser.request(
      app,
      'GET',
      authorizePath({
        response_type: 'code',
        client_id: API_CLIENT.client_id,
        redirect_uri: API_CLIENT.redirect_uris[0],
        scope: 'openid reports:read',
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
        state: 's',
        resource,
      }),
    );
    const location = new URL(String(res.headers.location));
    t.equal(`${location.origin}${location.pathname}`, API_CLIENT.redirect_uris[0], `${resource}: back to the client`);
    return location.searchParams.get('error');
  };
  t.equal(await ask('https://other.example/api'), 'invalid_target', 'not among allowed_resources');
  t.equal(await ask(`${REPORTS}#frag`), 'invalid_target', 'RFC 8707 2: a fragment');
  t.equal(await ask('reports'), 'invalid_target', 'RFC 8707 2: not an absolute URI');
  t.equal(await ask(UNREGISTERED), 'invalid_target', 'allowed, but no resource server of that name');
});

t.test('the consent page lists the resource scopes asked for, in the words of the resource server', async (t) => {
  const { app } = await buildTestApp(t, { seed: SEED as never });
  const browser = new Browser();
  const start = await browser.request(
    app,
    'GET',
    authorizePath({
      response_type: 'code',
      client_id: API_CLIENT.client_id,
      redirect_uri: API_CLIENT.redirect_uris[0],
      scope: 'openid reports:read reports:write billing:read',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      resource: REPORTS,
    }),
  );
  const login = await browser.request(app, 'GET', localPath(String(start.headers.location)));
  const signedIn = await browser.request(app, 'POST', formAction(login.body), {
    csrf: hiddenField(login.body, 'csrf'),
    login: ALICE.username,
    password: ALICE.password,
  });
  const consent = await browser.request(app, 'GET', localPath(String(signedIn.headers.location)));
  t.match(consent.body, /<li>Read your reports<\/li>/);
  t.match(consent.body, /<li>Change your reports<\/li>/);
  t.notMatch(consent.body, /See your invoices/, 'a scope of a resource not asked for is not offered');
});

t.test('client_credentials: the default resource, or the one named; sub is the client (RFC 9068 2.2)', async (t) => {
  const { app, config } = await buildTestApp(t, { seed: SEED as never });
  const worker = basicAuth(DEFAULTED.client_id, DEFAULTED.client_secret);
  const byDefault = await tokenRequest(app, { grant_type: 'client_credentials', scope: 'reports:write' }, worker);
  t.equal(byDefault.statusCode, 200, byDefault.body);
  const { payload } = await jwtVerify(byDefault.json().access_token as string, createLocalJWKSet(await jwks(app)), {
    issuer: config.issuer,
    audience: REPORTS,
    typ: 'at+jwt',
  });
  t.match(payload, { sub: 'worker', client_id: 'worker', scope: 'reports:write' });
  t.notOk('auth_time' in payload, 'no user signed in');
  const billing = await tokenRequest(app, { grant_type: 'client_credentials', scope: 'billing:read', resource: BILLING }, DASHBOARD);
  t.match(billing.json(), { token_type: 'Bearer', scope: 'billing:read', expires_in: 300 });
  const wrongScope = await tokenRequest(app, { grant_type: 'client_credentials', scope: 'reports:read', resource: BILLING }, DASHBOARD);
  t.equal(wrongScope.json().error, 'invalid_scope', 'none of the scopes asked is defined by that resource');
  const notAllowed = await tokenRequest(app, { grant_type: 'client_credentials', resource: BILLING }, worker);
  t.equal(notAllowed.json().error, 'invalid_target');
});

t.test('without any resource nothing changes: an opaque token for userinfo', async (t) => {
  const { app } = await buildTestApp(t, { seed: SEED as never });
  const code = await dashboardCode(app, undefined, 'openid profile');
  const res = await redeem(app, code);
  t.match(res.json().access_token, /^[0-9a-f]{12}[A-Za-z0-9_-]{43}$/);
  t.equal(res.json().scope, 'openid profile');
  const info = await app.inject({ method: 'GET', url: '/sso/userinfo', headers: { authorization: `Bearer ${res.json().access_token}` } });
  t.equal(info.statusCode, 200);
});

t.test('RFC 8628 with a default resource: the device asks for its scopes, the page names them, the token is for it', async (t) => {
  const { app } = await buildTestApp(t, { seed: SEED as never });
  const screen = basicAuth(SCREEN.client_id, SCREEN.client_secret);
  const started = await startDevice(app, { scope: 'openid reports:read' }, { auth: screen });
  const { res } = await verify(app, started.user_code, { decision: 'approve' });
  t.equal(res.statusCode, 200);
  const polled = await poll(app, started.device_code, screen);
  t.equal(polled.statusCode, 200, polled.body);
  t.equal(polled.json().scope, 'reports:read');
  t.match(decodeJwt(polled.json().access_token as string), { aud: REPORTS, client_id: 'screen', scope: 'reports:read' });
  t.type(polled.json().id_token, 'string');
});

// RFC 8707 2.1 "the resource parameter [...] in the authorization request" applies to the device authorization
// request (RFC 8628 3.1) as to /authorize: several may be named, each one the client may ask for and a known one.
t.test('RFC 8628 3.1 with RFC 8707 2: a device request names its resources as /authorize does; the token names one of them', async (t) => {
  const { app } = await buildTestApp(t, { seed: SEED as never });
  const wall = basicAuth(WALL.client_id, WALL.client_secret);
  const start = (form: string) =>
    app.inject({
      method: 'POST',
      url: '/sso/device_authorization',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: wall },
      payload: form,
    });
  const scope = `scope=${encodeURIComponent('openid reports:read billing:read')}`;
  const refused = [
    [`${scope}&resource=${encodeURIComponent(UNREGISTERED)}`, 'a resource no server is registered for'],
    [`${scope}&resource=${encodeURIComponent('https://elsewhere.example/')}`, 'a resource the client may not ask for'],
    [`${scope}&resource=relative`, 'a resource that is no absolute URI'],
  ] as const;
  for (const [form, why] of refused) {
    const res = await start(form);
    t.equal(res.statusCode, 400, why);
    t.equal(res.json().error, 'invalid_target', why);
  }
  const repeatedScope = await start(`${scope}&${scope}`);
  t.equal(repeatedScope.json().error, 'invalid_request', 'another parameter repeated is still refused (RFC 6749 3.1)');

  const res = await start(`${scope}&resource=${encodeURIComponent(REPORTS)}&resource=${encodeURIComponent(BILLING)}`);
  t.equal(res.statusCode, 200, res.body);
  const started = res.json() as { device_code: string; user_code: string };
  const { res: page } = await verify(app, started.user_code, { decision: 'approve' });
  t.equal(page.statusCode, 200);
  const unnamed = await poll(app, started.device_code, wall);
  t.equal(unnamed.json().error, 'invalid_target', 'RFC 8707 2.2: a grant for several resources names one at the token endpoint');
  const other = await poll(app, started.device_code, wall, { resource: UNREGISTERED });
  t.equal(other.json().error, 'invalid_target', 'a resource the device did not ask for');
  const billing = await poll(app, started.device_code, wall, { resource: BILLING });
  t.equal(billing.statusCode, 200, billing.body);
  t.equal(billing.json().scope, 'billing:read', "the token carries that resource's scopes only");
  const introspected = await post(app, '/sso/introspect', { token: billing.json().access_token as string }, wall);
  t.match(introspected.json(), { active: true, aud: BILLING });
});
