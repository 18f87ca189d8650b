// Request limits: body size (64 KiB), parameter length (4096), scope values (50), URL and headers (16 KiB);
// each refused with its OAuth error (RFC 6749 4.1.2.1, 5.2), never with a bare 413 or a stack.
import type { LightMyRequestResponse } from 'fastify';
import t, { type Test } from 'tap';
import { MAX_PARAM_LENGTH } from '../../src/domain/params.js';
import { MAX_SCOPE_VALUES } from '../../src/domain/scope.js';
import { buildTestApp, CONFIDENTIAL } from '../helpers/app.js';
import { authorizePath, basicAuth, CONFIDENTIAL_REQUEST, pkcePair } from '../helpers/flow.js';
import { listenTestApp } from '../helpers/listening.js';

const { app } = await buildTestApp(t);
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const BASIC = basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret);
const OVER_BODY_LIMIT = 64 * 1024 + 1;

function assertJsonError(t: Test, res: LightMyRequestResponse, status: number, error: string, description: RegExp) {
  t.equal(res.statusCode, status, res.body.slice(0, 200));
  t.match(res.headers['content-type'], /^application\/json/);
  t.same(Object.keys(res.json()).sort(), ['error', 'error_description']);
  t.equal(res.json().error, error);
  t.match(res.json().error_description, description);
  t.notMatch(res.body, /stack|at [A-Za-z]+ \(/, 'no stack');
}

/** The error redirect of an authorization request back to the client (RFC 6749 4.1.2.1). */
function redirectedError(t: Test, res: LightMyRequestResponse): URL {
  t.equal(res.statusCode, 303, res.body.slice(0, 200));
  const location = new URL(String(res.headers.location));
  t.equal(`${location.origin}${location.pathname}`, CONFIDENTIAL.redirect_uris[0]);
  return location;
}

function authorize(overrides: Record<string, string> = {}) {
  return app.inject({
    method: 'GET',
    url: authorizePath({
      ...CONFIDENTIAL_REQUEST,
      state: 'st',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      ...overrides,
    }),
  });
}

t.test('a token request body over 64 KiB is invalid_request with 400, not 413 (RFC 6749 5.2)', async (t) => {
  const res = await app.inject({
    method: 'POST',
    url: '/sso/token',
    headers: { ...FORM, authorization: BASIC },
    payload: `grant_type=authorization_code&code=${'c'.repeat(OVER_BODY_LIMIT)}`,
  });
  assertJsonError(t, res, 400, 'invalid_request', /^the request body is too large$/);
});

t.test(
  'a userinfo, revocation or introspection body over 64 KiB is invalid_request with 400 (RFC 6750 3.1, RFC 7009 2.2.1, RFC 7662 2.3)',
  async (t) => {
    for (const url of ['/sso/userinfo', '/sso/revoke', '/sso/introspect']) {
      const res = await app.inject({
        method: 'POST',
        url,
        headers: { ...FORM, authorization: BASIC },
        payload: `token=${'t'.repeat(OVER_BODY_LIMIT)}`,
      });
      assertJsonError(t, res, 400, 'invalid_request', /too large/);
    }
  },
);

t.test('an authorization request body over 64 KiB gets an error page with 400, not a redirect (RFC 6749 4.1.2.1)', async (t) => {
  const res = await app.inject({
    method: 'POST',
    url: '/sso/authorize',
    headers: FORM,
    payload: `client_id=app&state=${'s'.repeat(OVER_BODY_LIMIT)}`,
  });
  t.equal(res.statusCode, 400);
  t.equal(res.headers.location, undefined);
  t.match(res.headers['content-type'], /^text\/html/);
  t.match(res.body, /the request body is too large/);
});

t.test('a parameter over 4096 characters is redirected back as invalid_request once the client is known (RFC 6749 4.1.2.1)', async (t) => {
  const res = await authorize({ nonce: 'n'.repeat(MAX_PARAM_LENGTH + 1) });
  const location = redirectedError(t, res);
  t.equal(location.searchParams.get('error'), 'invalid_request');
  t.equal(location.searchParams.get('error_description'), 'parameter nonce is too long');
  t.equal(location.searchParams.get('state'), 'st');
  const atLimit = await authorize({ nonce: 'n'.repeat(MAX_PARAM_LENGTH) });
  t.match(String(atLimit.headers.location), /\/sso\/interaction\//, 'exactly 4096 characters is accepted');
});

t.test('a client_id over 4096 characters gets an error page, never a redirect (RFC 6749 4.1.2.1)', async (t) => {
  const res = await authorize({ client_id: 'c'.repeat(MAX_PARAM_LENGTH + 1) });
  t.equal(res.statusCode, 400);
  t.equal(res.headers.location, undefined);
  t.match(res.body, /parameter client_id is too long/);
});

t.test('a token request parameter over 4096 characters is invalid_request (RFC 6749 5.2)', async (t) => {
  const res = await app.inject({
    method: 'POST',
    url: '/sso/token',
    headers: { ...FORM, authorization: BASIC },
    payload: `grant_type=authorization_code&code=${'c'.repeat(MAX_PARAM_LENGTH + 1)}&redirect_uri=x`,
  });
  assertJsonError(t, res, 400, 'invalid_request', /^parameter code is too long$/);
});

t.test('more than 50 scope values is redirected back as invalid_scope; 50 are accepted (RFC 6749 4.1.2.1)', async (t) => {
  const values = (n: number) => ['openid', ...Array.from({ length: n - 1 }, (_, i) => `x${i}`)].join(' ');
  const res = await authorize({ scope: values(MAX_SCOPE_VALUES + 1) });
  const location = redirectedError(t, res);
  t.equal(location.searchParams.get('error'), 'invalid_scope');
  t.equal(location.searchParams.get('error_description'), 'the scope parameter lists more than 50 values');
  t.equal(location.searchParams.get('state'), 'st');
  const fifty = await authorize({ scope: values(MAX_SCOPE_VALUES) });
  t.match(String(fifty.headers.location), /\/sso\/interaction\//, 'fifty values (unknown ones ignored) go on to sign-in');
});

t.test('a URL over 16 KiB is answered 431 with an invalid_request JSON body by the listening server (RFC 6585 5)', async (t) => {
  const server = await listenTestApp(t);
  const res = await fetch(`${server.issuer}/authorize?client_id=app&state=${'s'.repeat(20 * 1024)}`);
  t.equal(res.status, 431);
  t.match(res.headers.get('content-type'), /^application\/json/);
  t.equal(res.headers.get('x-content-type-options'), 'nosniff');
  t.same(await res.json(), { error: 'invalid_request', error_description: 'the request line or headers are too large' });
  const fine = await fetch(`${server.issuer}/.well-known/openid-configuration`);
  t.equal(fine.status, 200, 'the server still answers');
});
