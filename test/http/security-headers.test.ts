// Security headers: every page (sign-in, consent, every error page) forbids framing, referrers and every script,
// but for the sign-in page's own device-signals and passkey scripts, allowed there by their hashes (and the passkey
// script's fetch of its options from the page's own origin);
// every response, JSON included, says nosniff (RFC 9700 4.16, OWASP Secure Headers, Fetch "X-Content-Type-Options").
import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import t, { type Test } from 'tap';
import { DEVICE_SIGNALS_SCRIPT } from '../../src/http/views/device-signals-script.js';
import { PASSKEY_SCRIPT } from '../../src/http/views/passkey-script.js';
import { ALICE, buildTestApp, CONFIDENTIAL } from '../helpers/app.js';
import { authorizePath, basicAuth, Browser, formAction, hiddenField, localPath, pkcePair } from '../helpers/flow.js';

const { app } = await buildTestApp(t);

/** CSP directives by name. */
function csp(res: LightMyRequestResponse): Map<string, string> {
  const header = String(res.headers['content-security-policy'] ?? '');
  return new Map(
    header
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => [d.split(' ')[0]!, d.slice(d.indexOf(' ') + 1)]),
  );
}

const hashOf = (script: string) => `'sha256-${createHash('sha256').update(script).digest('base64')}'`;

/** `signInPage`: the page may run the device-signals and passkey scripts, allowed by their hashes, and nothing else. */
function assertPageHeaders(t: Test, res: LightMyRequestResponse, what: string, signInPage = false) {
  t.equal(res.headers['content-type'], 'text/html; charset=utf-8', `${what}: HTML`);
  const policy = csp(res);
  t.equal(policy.get('default-src'), "'none'", `${what}: default-src 'none'`);
  if (signInPage) {
    t.equal(
      policy.get('script-src'),
      `${hashOf(DEVICE_SIGNALS_SCRIPT)} ${hashOf(PASSKEY_SCRIPT)}`,
      `${what}: script-src allows the device-signals and passkey scripts by their hashes and nothing else`,
    );
    t.equal(policy.get('connect-src'), "'self'", `${what}: the passkey script fetches from this origin only`);
  } else {
    t.notOk(policy.has('script-src'), `${what}: no script-src, so default-src 'none' forbids every script`);
    t.notOk(policy.has('connect-src'), `${what}: no connect-src`);
    t.notMatch(res.body, /<script/i, `${what}: no script element`);
  }
  t.notMatch(String(res.headers['content-security-policy']), /unsafe-inline|unsafe-eval/, `${what}: nothing unsafe`);
  t.equal(policy.get('frame-ancestors'), "'none'", `${what}: frame-ancestors 'none'`);
  t.equal(policy.get('base-uri'), "'none'", `${what}: base-uri 'none'`);
  t.equal(res.headers['x-frame-options'], 'DENY', `${what}: X-Frame-Options DENY`);
  t.equal(
    res.headers['cross-origin-opener-policy'],
    'same-origin',
    `${what}: Cross-Origin-Opener-Policy same-origin (issue 16, finding 5)`,
  );
  t.equal(res.headers['referrer-policy'], 'no-referrer', `${what}: Referrer-Policy no-referrer`);
  t.equal(res.headers['x-content-type-options'], 'nosniff', `${what}: nosniff`);
  t.equal(res.headers['cache-control'], 'no-store', `${what}: never cached`);
  const scripts = [...res.body.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/gi)];
  t.ok(
    scripts.every((m) => m[0] === `<script>${DEVICE_SIGNALS_SCRIPT}</script>` || m[0] === `<script>${PASSKEY_SCRIPT}</script>`),
    `${what}: no script element but the device-signals and passkey scripts`,
  );
  t.notMatch(res.body, /<script[^>]+src=/i, `${what}: no external script`);
  t.notMatch(res.body, /\son[a-z]+=/i, `${what}: no inline event handler`);
}

function authorize(overrides: Record<string, string> = {}) {
  return authorizePath({
    response_type: 'code',
    client_id: CONFIDENTIAL.client_id,
    redirect_uri: CONFIDENTIAL.redirect_uris[0],
    scope: 'openid',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    ...overrides,
  });
}

t.test('the one inline style is allowed by its hash, and nothing else is inline (CSP Level 3 8.2)', async (t) => {
  const browser = new Browser();
  const started = await browser.request(app, 'GET', authorize());
  const page = await browser.request(app, 'GET', localPath(String(started.headers.location)));
  const styles = [...page.body.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
  t.equal(styles.length, 1, 'one style element');
  const hash = createHash('sha256').update(styles[0]!).digest('base64');
  t.equal(
    csp(page).get('style-src'),
    `'sha256-${hash}' 'self'`,
    "style-src names exactly that block by its SHA-256, and this origin's brand stylesheet (BRAND_COLOR)",
  );
});

t.test('the sign-in, consent and wrong-password pages carry the page security headers (RFC 9700 4.16)', async (t) => {
  const browser = new Browser();
  const started = await browser.request(app, 'GET', authorize({ scope: 'openid phone' }));
  const login = await browser.request(app, 'GET', localPath(String(started.headers.location)));
  assertPageHeaders(t, login, 'sign-in page', true);
  const csrf = hiddenField(login.body, 'csrf');
  const wrong = await browser.request(app, 'POST', formAction(login.body), { csrf, login: ALICE.username, password: 'wrong' });
  t.equal(wrong.statusCode, 401);
  assertPageHeaders(t, wrong, 'wrong password page', true);
  const posted = await browser.request(app, 'POST', formAction(login.body), { csrf, login: ALICE.username, password: ALICE.password });
  const consent = await browser.request(app, 'GET', localPath(String(posted.headers.location)));
  t.match(consent.body, /name="decision"/);
  assertPageHeaders(t, consent, 'consent page');
});

t.test(
  'every error page carries the page security headers: untrusted redirect, bad interaction, bad form, oversized form (RFC 9700 4.16)',
  async (t) => {
    const unknownClient = await app.inject({ method: 'GET', url: authorize({ client_id: 'nobody' }) });
    t.equal(unknownClient.statusCode, 400);
    assertPageHeaders(t, unknownClient, 'authorize error page');

    const badQuery = await app.inject({ method: 'GET', url: '/sso/authorize?client_id=%zz' });
    t.equal(badQuery.statusCode, 400);
    assertPageHeaders(t, badQuery, 'malformed query page');

    const noInteraction = await app.inject({ method: 'GET', url: '/sso/interaction/AAAAAAAAAAAAAAAAAAAAAA' });
    t.equal(noInteraction.statusCode, 400);
    assertPageHeaders(t, noInteraction, 'unknown interaction page');

    const malformedId = await app.inject({ method: 'GET', url: '/sso/interaction/short' });
    t.equal(malformedId.statusCode, 400);
    assertPageHeaders(t, malformedId, 'schema error page');

    const tooLarge = await app.inject({
      method: 'POST',
      url: '/sso/interaction/AAAAAAAAAAAAAAAAAAAAAA/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `login=${'a'.repeat(70 * 1024)}`,
    });
    t.equal(tooLarge.statusCode, 400);
    assertPageHeaders(t, tooLarge, 'body too large page');
  },
);

t.test(
  'JSON answers say nosniff too: discovery, JWKS, token, userinfo, revocation, introspection, errors and 404 (Fetch 3.5)',
  async (t) => {
    const auth = basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret);
    const form = { 'content-type': 'application/x-www-form-urlencoded', authorization: auth };
    const responses: Array<[string, LightMyRequestResponse]> = [
      ['discovery', await app.inject({ method: 'GET', url: '/sso/.well-known/openid-configuration' })],
      ['jwks', await app.inject({ method: 'GET', url: '/sso/jwks' })],
      [
        'token error',
        await app.inject({ method: 'POST', url: '/sso/token', headers: form, payload: 'grant_type=authorization_code&code=x' }),
      ],
      ['userinfo error', await app.inject({ method: 'GET', url: '/sso/userinfo' })],
      ['revocation', await app.inject({ method: 'POST', url: '/sso/revoke', headers: form, payload: 'token=x' })],
      ['introspection', await app.inject({ method: 'POST', url: '/sso/introspect', headers: form, payload: 'token=x' })],
      ['not found', await app.inject({ method: 'GET', url: '/sso/nothing-here' })],
      ['redirect', await app.inject({ method: 'GET', url: authorize() })],
    ];
    for (const [what, res] of responses) t.equal(res.headers['x-content-type-options'], 'nosniff', `${what} (HTTP ${res.statusCode})`);
    t.same(
      responses.map(([, r]) => r.statusCode),
      [200, 200, 400, 401, 200, 200, 404, 303],
    );
  },
);

t.test('RFC 6797: Strict-Transport-Security on every response of an https issuer, and never from an http one', async (t) => {
  /** A page, a JSON answer, an OAuth error, a redirect and a 404. */
  async function answers(target: typeof app): Promise<Array<[string, LightMyRequestResponse]>> {
    const form = {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret),
    };
    return [
      ['discovery', await target.inject({ method: 'GET', url: '/sso/.well-known/openid-configuration' })],
      [
        'token error',
        await target.inject({ method: 'POST', url: '/sso/token', headers: form, payload: 'grant_type=authorization_code&code=x' }),
      ],
      ['authorize', await target.inject({ method: 'GET', url: authorize() })],
      ['error page', await target.inject({ method: 'GET', url: '/sso/authorize?client_id=nobody' })],
      ['not found', await target.inject({ method: 'GET', url: '/sso/nothing-here' })],
    ];
  }
  const cases: Array<[string, Record<string, string>, string | undefined]> = [
    [
      'https issuer, default max-age (a year)',
      { BASE_URL: 'https://sso.example', KEYS_ENCRYPTION_SECRET: 'a-test-secret-of-at-least-32-characters' },
      'max-age=31536000',
    ],
    [
      'https issuer, HSTS_MAX_AGE_SECONDS=600',
      { BASE_URL: 'https://sso.example', KEYS_ENCRYPTION_SECRET: 'a-test-secret-of-at-least-32-characters', HSTS_MAX_AGE_SECONDS: '600' },
      'max-age=600',
    ],
    [
      'https issuer, HSTS_MAX_AGE_SECONDS=0',
      { BASE_URL: 'https://sso.example', KEYS_ENCRYPTION_SECRET: 'a-test-secret-of-at-least-32-characters', HSTS_MAX_AGE_SECONDS: '0' },
      undefined,
    ],
  ];
  for (const [what, env, expected] of cases) {
    const built = await buildTestApp(t, { env });
    for (const [name, res] of await answers(built.app))
      t.equal(res.headers['strict-transport-security'], expected, `${what}: ${name} (HTTP ${res.statusCode})`);
  }
  // RFC 6797 7.2: "An HSTS Host MUST NOT include the STS header field in HTTP responses conveyed over non-secure transport."
  for (const [name, res] of await answers(app)) t.equal(res.headers['strict-transport-security'], undefined, `http issuer: ${name}`);
});
