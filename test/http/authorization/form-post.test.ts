// response_mode=form_post (OAuth 2.0 Form Post Response Mode): the authorization response as an
// auto-submitting form, for codes and errors, from /authorize and from the sign-in and consent pages.
import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import t, { type Test } from 'tap';
import { buildTestApp, CONFIDENTIAL, FIXTURES, SINGLE_REDIRECT } from '../../helpers/app.js';
import { authorizeToClient, readFormPost, type FormPost } from '../../helpers/form-post.js';
import { authorizePath, type Browser, pkcePair, tokenRequest } from '../../helpers/flow.js';

const ISSUER = 'http://localhost:3000/sso';
/** Signs in only where a test needs a user with no consent given yet. */
const DORA = { username: 'dora', password: 'dora-password-123' };

const { app } = await buildTestApp(t, { seed: { clients: FIXTURES.clients, users: [...FIXTURES.users, DORA] } });

function request(overrides: Record<string, string | undefined> = {}) {
  const { verifier, challenge } = pkcePair();
  const params = {
    response_type: 'code',
    client_id: CONFIDENTIAL.client_id,
    redirect_uri: CONFIDENTIAL.redirect_uris[0],
    scope: 'openid profile',
    state: 'st-form-post',
    nonce: 'n-form-post',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    response_mode: 'form_post',
    ...overrides,
  };
  return { params, verifier };
}

const get = (url: string, cookie?: string) => app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });

/** The CSP directives of a response, by name. */
function csp(res: LightMyRequestResponse): Map<string, string> {
  const directives = new Map<string, string>();
  for (const d of String(res.headers['content-security-policy'])
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [name = '', ...values] = d.split(/\s+/);
    directives.set(name, values.join(' '));
  }
  return directives;
}

/**
 * OAuth 2.0 Form Post Response Mode 2: a 200 HTML page whose form posts to the redirect URI, with the
 * response parameters as hidden fields; the one inline script is allowed by its hash, nothing is cached or framed.
 */
function assertFormPostPage(t: Test, res: LightMyRequestResponse, redirectUri: string): FormPost {
  t.equal(res.statusCode, 200, res.body.slice(0, 300));
  t.equal(res.headers.location, undefined, 'no Location header: the response goes by POST');
  t.equal(res.headers['content-type'], 'text/html; charset=utf-8');
  t.equal(res.headers['cache-control'], 'no-store');
  t.equal(res.headers['x-frame-options'], 'DENY');
  const form = readFormPost(res.body);
  if (!form) throw new Error(`no form_post form in ${res.body.slice(0, 500)}`);
  t.equal(form.action, redirectUri, 'the form posts to the verified redirect URI');
  t.match(res.body, /<button type="submit">Continue<\/button>/, 'a visible Continue button submits it without JavaScript');
  t.ok(form.script, 'an inline script submits it');
  const policy = csp(res);
  const hash = createHash('sha256').update(form.script!).digest('base64');
  t.equal(policy.get('script-src'), `'sha256-${hash}'`, 'the CSP allows exactly that script, by its hash');
  t.equal(policy.get('default-src'), "'none'");
  t.equal(policy.get('frame-ancestors'), "'none'");
  t.notOk(policy.has('form-action'), 'no form-action directive that could block the post to the client');
  return form;
}

/** A browser that is signed in as alice and has consented to `openid profile` for CONFIDENTIAL. */
async function signedInBrowser(): Promise<Browser> {
  const { browser, mode } = await authorizeToClient(app, request({ response_mode: undefined }).params);
  if (mode !== 'query') throw new Error('expected a query response');
  return browser;
}

t.test('discovery advertises query and form_post as response modes (Discovery 3, Form Post Response Mode 2)', async (t) => {
  const res = await get('/sso/.well-known/openid-configuration');
  t.same(res.json().response_modes_supported, ['query', 'form_post']);
});

t.test(
  'a code answered at once is posted by a form with code, state and iss, and redeems (Form Post Response Mode 2, RFC 9207 2)',
  async (t) => {
    const browser = await signedInBrowser();
    const { params, verifier } = request();
    const res = await browser.request(app, 'GET', authorizePath(params));
    const form = assertFormPostPage(t, res, CONFIDENTIAL.redirect_uris[0]!);
    t.same(
      form.params.map(([name]) => name),
      ['code', 'state', 'iss'],
      'exactly code, state and iss, in that order',
    );
    const fields = new Map(form.params);
    t.match(fields.get('code'), /^[0-9a-f]{12}[A-Za-z0-9_-]{43}$/);
    t.equal(fields.get('state'), 'st-form-post');
    t.equal(fields.get('iss'), ISSUER);

    const tokens = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code: fields.get('code'),
      redirect_uri: CONFIDENTIAL.redirect_uris[0],
      code_verifier: verifier,
    });
    t.equal(tokens.statusCode, 200, tokens.body);
    t.type(tokens.json().id_token, 'string');
  },
);

t.test('form_post survives the sign-in and consent pages: Allow answers with the form (Form Post Response Mode 2)', async (t) => {
  const { params } = request({ scope: 'openid email' });
  const result = await authorizeToClient(app, params, { user: DORA });
  t.equal(result.mode, 'form_post');
  const form = assertFormPostPage(t, result.response, CONFIDENTIAL.redirect_uris[0]!);
  t.equal(result.response.raw.req.method, 'POST', 'the page is the answer to the consent form post');
  t.match(result.response.raw.req.url, /\/sso\/interaction\/[A-Za-z0-9_-]+\/consent$/);
  const fields = new Map(form.params);
  t.ok(fields.get('code'));
  t.equal(fields.get('state'), 'st-form-post');
  t.equal(fields.get('iss'), ISSUER);
  t.equal(result.response.cookies.find((c) => c.name === 'sso_interaction')?.value, '', 'the interaction cookie is cleared');
});

t.test(
  'form_post survives the sign-in page: with consent remembered, the login post answers with the form (OIDC Core 3.1.2.1)',
  async (t) => {
    const browser = await signedInBrowser();
    const { params } = request({ prompt: 'login' });
    const result = await authorizeToClient(app, params, { browser });
    t.equal(result.mode, 'form_post');
    t.match(result.response.raw.req.url, /\/sso\/interaction\/[A-Za-z0-9_-]+\/login$/, 'answered by the sign-in form post');
    const form = assertFormPostPage(t, result.response, CONFIDENTIAL.redirect_uris[0]!);
    t.same(
      form.params.map(([name]) => name),
      ['code', 'state', 'iss'],
    );
  },
);

t.test(
  'Deny with form_post posts access_denied with state and iss, and no code (RFC 6749 4.1.2.1, Form Post Response Mode 2)',
  async (t) => {
    const { params } = request({ scope: 'openid phone' });
    const result = await authorizeToClient(app, params, { user: DORA, decision: 'deny' });
    t.equal(result.mode, 'form_post');
    const form = assertFormPostPage(t, result.response, CONFIDENTIAL.redirect_uris[0]!);
    t.same(
      form.params.map(([name]) => name),
      ['error', 'error_description', 'state', 'iss'],
    );
    const fields = new Map(form.params);
    t.equal(fields.get('error'), 'access_denied');
    t.equal(fields.get('error_description'), 'the user denied the request');
    t.equal(fields.get('state'), 'st-form-post');
    t.equal(fields.get('iss'), ISSUER);
  },
);

t.test('a phase-two error is posted by the form when form_post was asked for (RFC 6749 4.1.2.1, Form Post Response Mode 2)', async (t) => {
  const unsupported = await get(authorizePath(request({ response_type: 'token' }).params));
  const fields = new Map(assertFormPostPage(t, unsupported, CONFIDENTIAL.redirect_uris[0]!).params);
  t.equal(fields.get('error'), 'unsupported_response_type');
  t.equal(fields.get('state'), 'st-form-post');
  t.equal(fields.get('iss'), ISSUER);
  t.notOk(fields.has('code'));

  const noSession = await get(authorizePath(request({ prompt: 'none' }).params));
  t.equal(new Map(assertFormPostPage(t, noSession, CONFIDENTIAL.redirect_uris[0]!).params).get('error'), 'login_required');

  const refused = await get(authorizePath(request({ request: 'eyJhbGciOiJub25lIn0.e30.' }).params));
  t.equal(new Map(assertFormPostPage(t, refused, CONFIDENTIAL.redirect_uris[0]!).params).get('error'), 'invalid_request_object');
});

t.test('an unknown client or unregistered redirect_uri is shown our error page, never posted to (RFC 6749 4.1.2.1)', async (t) => {
  for (const overrides of [{ client_id: 'nobody' }, { redirect_uri: 'https://evil.example/cb' }]) {
    const res = await get(authorizePath(request(overrides).params));
    t.equal(res.statusCode, 400);
    t.equal(res.headers.location, undefined);
    t.notMatch(res.body, /<form/, 'no form on the error page');
    t.notMatch(res.body, /evil\.example/);
    t.match(res.headers['content-security-policy'], /^(?!.*script-src)/, 'the error page allows no script');
  }
});

t.test(
  'a response_mode other than query or form_post is refused as invalid_request, by redirect (Multiple Response Types 2.1)',
  async (t) => {
    for (const mode of ['fragment', 'jwt', 'form_post.jwt', 'FORM_POST']) {
      const res = await get(authorizePath(request({ response_mode: mode }).params));
      t.equal(res.statusCode, 303, `response_mode=${mode}`);
      const location = new URL(String(res.headers.location));
      t.equal(location.searchParams.get('error'), 'invalid_request');
      t.equal(location.searchParams.get('error_description'), 'response_mode must be query or form_post');
      t.equal(location.searchParams.get('state'), 'st-form-post');
    }
    const repeated = await get(`${authorizePath(request().params)}&response_mode=query`);
    t.equal(repeated.statusCode, 303, 'a repeated response_mode is reported by redirect');
    t.equal(new URL(String(repeated.headers.location)).searchParams.get('error'), 'invalid_request');
  },
);

t.test(
  'response_mode=query asks for the default: a 303 redirect with the parameters in the query (Multiple Response Types 2.1)',
  async (t) => {
    const browser = await signedInBrowser();
    const res = await browser.request(app, 'GET', authorizePath(request({ response_mode: 'query' }).params));
    t.equal(res.statusCode, 303);
    const location = new URL(String(res.headers.location));
    t.ok(location.searchParams.get('code'));
    t.equal(location.searchParams.get('iss'), ISSUER);
  },
);

t.test('the form posts to a redirect URI with a query of its own, which stays in the action (RFC 6749 3.1.2)', async (t) => {
  const redirectUri = CONFIDENTIAL.redirect_uris[1]!;
  const res = await get(authorizePath(request({ redirect_uri: redirectUri, response_type: 'token' }).params));
  const form = assertFormPostPage(t, res, redirectUri);
  t.match(res.body, /action="https:\/\/app\.example\/cb2\?keep=1"/);
  t.notOk(
    form.params.some(([name]) => name === 'keep'),
    'the registered query is not repeated as a field',
  );
});

t.test('state with markup is escaped in the page and posted back unchanged (OWASP XSS prevention)', async (t) => {
  const state = `"><script>alert('x')</script>&amp;`;
  const res = await get(authorizePath(request({ state, prompt: 'none' }).params));
  const form = assertFormPostPage(t, res, CONFIDENTIAL.redirect_uris[0]!);
  t.equal(new Map(form.params).get('state'), state);
  t.equal(res.body.match(/<script>/g)?.length, 1, 'the only script element is the page own');
  t.notMatch(res.body, /alert\('x'\)<\/script>/);
});

t.test('POST to the authorization endpoint honours form_post too (OIDC Core 3.1.2.1)', async (t) => {
  const { params } = request({ client_id: SINGLE_REDIRECT.client_id, redirect_uri: SINGLE_REDIRECT.redirect_uris[0], prompt: 'none' });
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) body.append(k, v);
  const res = await app.inject({
    method: 'POST',
    url: '/sso/authorize',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: body.toString(),
  });
  const form = assertFormPostPage(t, res, SINGLE_REDIRECT.redirect_uris[0]!);
  t.equal(new Map(form.params).get('error'), 'login_required');
});
