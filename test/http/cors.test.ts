// CORS (Fetch standard, "CORS protocol") for browser-based clients: on discovery, JWKS, token, userinfo,
// revocation and introspection only; never on the authorization endpoint or the sign-in and consent pages.
import type { LightMyRequestResponse } from 'fastify';
import t, { type Test } from 'tap';
import { buildTestApp, CONFIDENTIAL, PUBLIC } from '../helpers/app.js';
import { authorizePath, basicAuth, CONFIDENTIAL_REQUEST, pkcePair, signIn } from '../helpers/flow.js';

const ORIGIN = 'https://spa.example';
const CORS_PATHS = ['/sso/.well-known/openid-configuration', '/sso/jwks', '/sso/token', '/sso/userinfo', '/sso/revoke', '/sso/introspect'];
const FORM = { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN };

const { app } = await buildTestApp(t);

function preflight(url: string, method = 'POST') {
  return app.inject({
    method: 'OPTIONS',
    url,
    headers: { origin: ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' },
  });
}

function assertNoCors(t: Test, res: LightMyRequestResponse) {
  const cors = Object.keys(res.headers).filter((h) => h.startsWith('access-control-'));
  t.same(cors, [], 'no Access-Control-* header at all');
}

function assertCors(t: Test, res: LightMyRequestResponse) {
  t.equal(res.headers['access-control-allow-origin'], '*');
  t.equal(res.headers['access-control-allow-credentials'], undefined, 'never Access-Control-Allow-Credentials');
}

t.test(
  'a preflight on each CORS endpoint is answered 204 with *, GET and POST, Authorization and Content-Type, and no credentials (Fetch 3.2.3)',
  async (t) => {
    for (const url of CORS_PATHS) {
      const res = await preflight(url);
      t.equal(res.statusCode, 204, url);
      t.equal(res.body, '', `${url}: no body`);
      assertCors(t, res);
      t.equal(res.headers['access-control-allow-methods'], 'GET, POST', url);
      t.equal(res.headers['access-control-allow-headers'], 'Authorization, Content-Type', url);
      t.equal(res.headers['access-control-max-age'], '600', url);
    }
  },
);

t.test(
  'a preflight on the authorization endpoint, the interaction pages or anything else gets no CORS headers (RFC 9700 4.16)',
  async (t) => {
    const started = await app.inject({
      method: 'GET',
      url: authorizePath({
        ...CONFIDENTIAL_REQUEST,
      }),
    });
    const interaction = new URL(String(started.headers.location)).pathname;
    for (const url of [
      '/sso/authorize',
      interaction,
      `${interaction}/login`,
      `${interaction}/consent`,
      '/sso/nowhere',
      '/',
      '/sso/token/',
    ]) {
      const res = await preflight(url);
      t.equal(res.statusCode, 404, `${url}: not answered`);
      assertNoCors(t, res);
    }
  },
);

t.test('discovery and JWKS answer any origin with Access-Control-Allow-Origin: * (Fetch 3.2.3)', async (t) => {
  for (const url of ['/sso/.well-known/openid-configuration', '/sso/jwks']) {
    const res = await app.inject({ method: 'GET', url, headers: { origin: ORIGIN } });
    t.equal(res.statusCode, 200, url);
    assertCors(t, res);
  }
});

t.test(
  'a public client in a browser can redeem its code and call userinfo cross-origin, and read the errors too (RFC 6749 4.1.3, RFC 6750 3)',
  async (t) => {
    const { verifier, challenge } = pkcePair();
    const { location } = await signIn(app, {
      response_type: 'code',
      client_id: PUBLIC.client_id,
      redirect_uri: PUBLIC.redirect_uris[0],
      scope: 'openid profile',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const token = await app.inject({
      method: 'POST',
      url: '/sso/token',
      headers: FORM,
      payload: new URLSearchParams({
        grant_type: 'authorization_code',
        code: location.searchParams.get('code')!,
        redirect_uri: PUBLIC.redirect_uris[0]!,
        client_id: PUBLIC.client_id,
        code_verifier: verifier,
      }).toString(),
    });
    t.equal(token.statusCode, 200, token.body);
    assertCors(t, token);
    const accessToken = token.json().access_token as string;

    const userinfo = await app.inject({
      method: 'GET',
      url: '/sso/userinfo',
      headers: { origin: ORIGIN, authorization: `Bearer ${accessToken}` },
    });
    t.equal(userinfo.statusCode, 200);
    assertCors(t, userinfo);

    const refused = await app.inject({ method: 'GET', url: '/sso/userinfo', headers: { origin: ORIGIN, authorization: 'Bearer nope' } });
    t.equal(refused.statusCode, 401);
    assertCors(t, refused);
    t.match(refused.headers['access-control-expose-headers'], /WWW-Authenticate/, 'the script may read WWW-Authenticate');

    const badGrant = await app.inject({
      method: 'POST',
      url: '/sso/token',
      headers: FORM,
      payload: 'grant_type=authorization_code&code=x&client_id=spa',
    });
    t.equal(badGrant.statusCode, 400);
    assertCors(t, badGrant);
  },
);

t.test(
  'revocation and introspection answer cross-origin requests with Access-Control-Allow-Origin: * (RFC 7009 2, RFC 7662 2)',
  async (t) => {
    const auth = basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret);
    for (const url of ['/sso/revoke', '/sso/introspect']) {
      const res = await app.inject({ method: 'POST', url, headers: { ...FORM, authorization: auth }, payload: 'token=unknown-token' });
      t.equal(res.statusCode, 200, `${url}: ${res.body}`);
      assertCors(t, res);
    }
  },
);

t.test(
  'the authorization endpoint and the sign-in pages never send CORS headers, even to a request with Origin (RFC 9700 4.16)',
  async (t) => {
    const started = await app.inject({
      method: 'GET',
      url: authorizePath({
        ...CONFIDENTIAL_REQUEST,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
      }),
      headers: { origin: ORIGIN },
    });
    t.equal(started.statusCode, 303);
    assertNoCors(t, started);
    const page = await app.inject({
      method: 'GET',
      url: new URL(String(started.headers.location)).pathname,
      headers: { origin: ORIGIN, cookie: String(started.headers['set-cookie']).split(';')[0]! },
    });
    t.equal(page.statusCode, 200);
    assertNoCors(t, page);
    const posted = await app.inject({ method: 'POST', url: '/sso/authorize', headers: FORM, payload: 'client_id=unknown' });
    assertNoCors(t, posted);
  },
);
