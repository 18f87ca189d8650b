// The sign-in and consent pages (OIDC Core 3.1.2.3-3.1.2.4): forms, CSRF binding, cookies, remembered consent.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import t, { type Test } from 'tap';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { applySeed } from '../../../src/domain/admin/seed.js';
import { ALICE, buildTestApp, CONFIDENTIAL, FIXTURES } from '../../helpers/app.js';
import { authorizePath, Browser, formAction, hiddenField, localPath, pkcePair, signIn } from '../../helpers/flow.js';
import { TestClock } from '../../helpers/account.js';

const ISSUER = 'http://localhost:3000/sso';
const GENERIC_FAILURE = 'The username or password is not correct.';

/** A client whose name would run script if a page did not escape it. */
const HOSTILE_NAME = `Evil <script>alert("x")</script> & 'Co'`;
const HOSTILE = {
  client_id: 'hostile',
  client_secret: 'hostile-secret-0123456789',
  client_name: HOSTILE_NAME,
  redirect_uris: ['https://hostile.example/cb'],
};

interface User {
  username: string;
  password: string;
}

/** Parameters of a valid request for the confidential client. */
function request(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    response_type: 'code',
    client_id: CONFIDENTIAL.client_id,
    redirect_uri: CONFIDENTIAL.redirect_uris[0],
    scope: 'openid profile email',
    state: `st-${randomBytes(4).toString('hex')}`,
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    ...overrides,
  };
}

function setCookie(res: LightMyRequestResponse, name: string): string | undefined {
  const raw = res.headers['set-cookie'];
  const all = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return all.find((c) => c.startsWith(`${name}=`));
}

function hasSession(res: LightMyRequestResponse): boolean {
  return res.cookies.some((c) => c.name === 'sso_session' && c.value !== '');
}

function assertPageHeaders(t: Test, res: LightMyRequestResponse) {
  t.equal(res.headers['content-type'], 'text/html; charset=utf-8');
  t.match(res.headers['content-security-policy'], /frame-ancestors 'none'/);
  t.match(res.headers['content-security-policy'], /default-src 'none'/);
  t.equal(res.headers['x-frame-options'], 'DENY');
  t.equal(res.headers['cache-control'], 'no-store');
}

function assertErrorPage(t: Test, res: LightMyRequestResponse, message: RegExp) {
  t.equal(res.statusCode, 400, res.body.slice(0, 300));
  t.equal(res.headers.location, undefined, 'not redirected');
  assertPageHeaders(t, res);
  t.match(res.body, /Something went wrong/);
  t.match(res.body, message);
  t.notOk(hasSession(res), 'no session cookie');
}

/** GET /authorize in this browser; returns the path of the interaction page it sends the browser to. */
async function startInteraction(t: Test, app: FastifyInstance, browser: Browser, params: Record<string, string | undefined>) {
  const res = await browser.request(app, 'GET', authorizePath(params));
  t.equal(res.statusCode, 303, res.body.slice(0, 300));
  const location = String(res.headers.location);
  t.match(location, /\/sso\/interaction\/[A-Za-z0-9_-]{16,64}$/, 'sent to an interaction page');
  return localPath(location);
}

/** The sign-in page of a new interaction: its response, CSRF token and form action. */
async function openLoginPage(t: Test, app: FastifyInstance, browser: Browser, params = request()) {
  const path = await startInteraction(t, app, browser, params);
  const page = await browser.request(app, 'GET', path);
  t.equal(page.statusCode, 200, page.body.slice(0, 300));
  t.match(page.body, /type="password"/, 'the sign-in page');
  return { path, page, csrf: hiddenField(page.body, 'csrf'), action: formAction(page.body) };
}

/** Signs `user` in on a new interaction and returns the consent page that follows. */
async function openConsentPage(t: Test, app: FastifyInstance, browser: Browser, user: User, params = request()) {
  const login = await openLoginPage(t, app, browser, params);
  const posted = await browser.request(app, 'POST', login.action, { csrf: login.csrf, login: user.username, password: user.password });
  t.equal(posted.statusCode, 303, posted.body.slice(0, 300));
  t.equal(localPath(String(posted.headers.location)), login.path, 'after sign-in, back to the interaction page');
  const page = await browser.request(app, 'GET', login.path);
  t.equal(page.statusCode, 200, page.body.slice(0, 300));
  t.match(page.body, /name="decision" value="allow"/, 'the consent page');
  return { path: login.path, page, csrf: hiddenField(page.body, 'csrf'), action: formAction(page.body) };
}

function clientRedirect(t: Test, res: LightMyRequestResponse, redirectUri = CONFIDENTIAL.redirect_uris[0]!): URL {
  t.equal(res.statusCode, 303, res.body.slice(0, 300));
  const location = new URL(String(res.headers.location));
  t.equal(`${location.origin}${location.pathname}`, redirectUri, 'back at the client');
  t.equal(location.searchParams.get('iss'), ISSUER);
  return location;
}

t.test('sign-in and consent pages', async (t) => {
  const testApp = await buildTestApp(t, { seed: { clients: [...FIXTURES.clients, HOSTILE], users: FIXTURES.users } });
  const { app } = testApp;
  const hasher = new PasswordHasher(testApp.config.argon2);

  /** A user of the test's own, so that no other test's consent or session can touch it. */
  async function newUser(name: string): Promise<User & { email: string }> {
    const user = { username: `${name}-${randomBytes(3).toString('hex')}`, password: `pw-${randomBytes(6).toString('hex')}` };
    const email = `${user.username}@example.org`;
    await applySeed(testApp.db, hasher, { clients: [], users: [{ ...user, email }] });
    return { ...user, email };
  }

  t.test(
    'the sign-in page is a form with username, password and a hidden CSRF field, never cached or framed (RFC 9700 4.16, RFC 6749 10.13)',
    async (t) => {
      const browser = new Browser();
      const { page, csrf, action, path } = await openLoginPage(t, app, browser);
      assertPageHeaders(t, page);
      t.match(page.body, /<input type="text" id="login" name="login"/);
      t.match(page.body, /<input type="password" id="password" name="password"/);
      t.match(page.body, /<input type="hidden" name="csrf" value="[A-Za-z0-9_-]{22,}">/);
      t.equal(csrf, browser.get('sso_interaction'), 'the CSRF token is the interaction binding');
      t.equal(action, `${path}/login`);
      t.match(page.body, /to continue to Test App/);
    },
  );

  t.test('the interaction cookie is HttpOnly, SameSite=Lax and scoped to its own interaction (RFC 6265 4.1.2)', async (t) => {
    const res = await app.inject({ method: 'GET', url: authorizePath(request()) });
    const id = String(res.headers.location).split('/').pop();
    const cookie = setCookie(res, 'sso_interaction');
    t.ok(cookie, 'set by the authorization endpoint');
    t.match(cookie, /; HttpOnly/i);
    t.match(cookie, /; SameSite=Lax/i);
    t.match(cookie, new RegExp(`; Path=/sso/interaction/${id}(;|$)`));
    t.notMatch(cookie, /; Secure/i);
  });

  t.test('a wrong password and an unknown user get the same generic answer (OIDC Core 3.1.2.3, RFC 6749 10.10)', async (t) => {
    const browser = new Browser();
    const { csrf, action } = await openLoginPage(t, app, browser);
    const wrongPassword = await browser.request(app, 'POST', action, { csrf, login: ALICE.username, password: 'not her password' });
    const unknownUser = await browser.request(app, 'POST', action, { csrf, login: 'nobody-here', password: 'not her password' });
    for (const res of [wrongPassword, unknownUser]) {
      t.equal(res.statusCode, 401);
      assertPageHeaders(t, res);
      t.ok(res.body.includes(GENERIC_FAILURE), 'the generic message');
      t.notOk(hasSession(res), 'no session cookie');
      t.match(res.body, /type="password"/, 'the form is shown again');
    }
    t.match(wrongPassword.body, /value="alice"/, 'the login is echoed back');
    t.match(unknownUser.body, /value="nobody-here"/);
    t.equal(
      wrongPassword.body.replace('value="alice"', 'value=""'),
      unknownUser.body.replace('value="nobody-here"', 'value=""'),
      'nothing else tells the two apart',
    );
    t.notOk(wrongPassword.body.includes('not her password'), 'the password is not echoed');
  });

  t.test('after a failed attempt the same form signs in with the right password (OIDC Core 3.1.2.3)', async (t) => {
    const user = await newUser('retry');
    const browser = new Browser();
    const { csrf, action, path } = await openLoginPage(t, app, browser);
    const failed = await browser.request(app, 'POST', action, { csrf, login: user.username, password: 'wrong' });
    t.equal(failed.statusCode, 401);
    t.equal(hiddenField(failed.body, 'csrf'), csrf);
    const ok = await browser.request(app, 'POST', action, { csrf, login: user.username, password: user.password });
    t.equal(ok.statusCode, 303);
    t.equal(localPath(String(ok.headers.location)), path);
    t.ok(hasSession(ok));
  });

  t.test('a user can sign in with their email address, in any letter case (OIDC Core 3.1.2.3)', async (t) => {
    const user = await newUser('mail');
    for (const login of [user.email, user.email.toUpperCase()]) {
      const browser = new Browser();
      const { csrf, action, path } = await openLoginPage(t, app, browser);
      const res = await browser.request(app, 'POST', action, { csrf, login, password: user.password });
      t.equal(res.statusCode, 303, `${login}: ${res.body.slice(0, 200)}`);
      t.equal(localPath(String(res.headers.location)), path);
      t.ok(hasSession(res), 'a session cookie');
    }
  });

  t.test('a login form posted without the CSRF field is refused with an error page (RFC 6749 10.12)', async (t) => {
    const browser = new Browser();
    const { action } = await openLoginPage(t, app, browser);
    const res = await browser.request(app, 'POST', action, { login: ALICE.username, password: ALICE.password });
    assertErrorPage(t, res, /did not come from this site/);
  });

  t.test('a login form posted with a wrong CSRF value is refused with an error page (RFC 6749 10.12)', async (t) => {
    const browser = new Browser();
    const { action, csrf } = await openLoginPage(t, app, browser);
    const wrong = `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}`;
    const res = await browser.request(app, 'POST', action, { csrf: wrong, login: ALICE.username, password: ALICE.password });
    assertErrorPage(t, res, /did not come from this site/);
  });

  t.test('a login form posted without the interaction cookie is refused with an error page (RFC 6749 10.12)', async (t) => {
    const browser = new Browser();
    const { action, csrf } = await openLoginPage(t, app, browser);
    const res = await new Browser().request(app, 'POST', action, { csrf, login: ALICE.username, password: ALICE.password });
    assertErrorPage(t, res, /did not come from this site/);
  });

  t.test('a login form posted with a repeated field is refused with an error page (RFC 6749 3.1)', async (t) => {
    const browser = new Browser();
    const { action, csrf } = await openLoginPage(t, app, browser);
    const payload = `${new URLSearchParams({ csrf, login: ALICE.username, password: ALICE.password })}&password=other`;
    const res = await app.inject({
      method: 'POST',
      url: action,
      headers: { cookie: browser.header(action), 'content-type': 'application/x-www-form-urlencoded' },
      payload,
    });
    t.equal(res.statusCode, 400);
    t.match(res.headers['content-type'], /^text\/html/);
    t.notOk(hasSession(res));
  });

  t.test('a login form posted as JSON is refused with an error page (HTML 4.01 17.13.4)', async (t) => {
    const browser = new Browser();
    const { action, csrf } = await openLoginPage(t, app, browser);
    const res = await app.inject({
      method: 'POST',
      url: action,
      headers: { cookie: browser.header(action) },
      payload: { csrf, login: ALICE.username, password: ALICE.password },
    });
    assertErrorPage(t, res, /application\/x-www-form-urlencoded/);
  });

  t.test('an interaction id that is not well formed shows an error page (OIDC Core 3.1.2.3)', async (t) => {
    for (const url of ['/sso/interaction/short', '/sso/interaction/has.dots.in.it.0123456789']) {
      const res = await app.inject({ method: 'GET', url });
      assertErrorPage(t, res, /not valid/);
    }
  });

  t.test('the session cookie is HttpOnly, SameSite=Lax, Path=/sso and not Secure over http (RFC 6265 4.1.2)', async (t) => {
    const browser = new Browser();
    const { csrf, action } = await openLoginPage(t, app, browser);
    const res = await browser.request(app, 'POST', action, { csrf, login: ALICE.username, password: ALICE.password });
    t.equal(res.statusCode, 303);
    const cookie = setCookie(res, 'sso_session');
    t.ok(cookie, 'a session cookie is set');
    t.match(cookie, /^sso_session=[A-Za-z0-9_-]{22,};/);
    t.match(cookie, /; HttpOnly/i);
    t.match(cookie, /; SameSite=Lax/i);
    t.match(cookie, /; Path=\/sso(;|$)/);
    t.notMatch(cookie, /; Secure/i);
  });

  t.test('the consent page lists the requested scopes and names the client (OIDC Core 3.1.2.4)', async (t) => {
    const user = await newUser('consent-page');
    const { page } = await openConsentPage(t, app, new Browser(), user, request({ scope: 'openid email phone' }));
    assertPageHeaders(t, page);
    t.match(page.body, /Test App is asking to:/);
    t.match(page.body, /<li>Sign you in with your account identifier<\/li>/);
    t.match(page.body, /<li>Your email address<\/li>/);
    t.match(page.body, /<li>Your phone number<\/li>/);
    t.notMatch(page.body, /Your name and basic profile/, 'a scope that was not asked for is not listed');
    t.notMatch(page.body, /Your postal address/);
    t.match(page.body, /name="decision" value="deny"/);
  });

  t.test('the consent page says which account is consenting, escaped by construction (OIDC Core 3.1.2.4)', async (t) => {
    const user = await newUser('<b>mallory</b>&"co"');
    const { page } = await openConsentPage(t, app, new Browser(), user);
    const escaped = user.username.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
    t.ok(page.body.includes(`Signed in as <strong>${escaped}</strong>`), 'the username is shown, escaped');
    t.notOk(page.body.includes('<b>mallory'), 'no markup of the username gets through');
  });

  t.test('a consent answer without a session shows an error page and completes nothing (OIDC Core 3.1.2.4)', async (t) => {
    const user = await newUser('no-session');
    const browser = new Browser();
    const consent = await openConsentPage(t, app, browser, user);
    const onlyBinding = `sso_interaction=${browser.get('sso_interaction')}`;
    const res = await app.inject({
      method: 'POST',
      url: consent.action,
      headers: { cookie: onlyBinding, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ csrf: consent.csrf, decision: 'allow' }).toString(),
    });
    assertErrorPage(t, res, /no longer signed in/);
    const withSession = await browser.request(app, 'POST', consent.action, { csrf: consent.csrf, decision: 'allow' });
    t.ok(clientRedirect(t, withSession).searchParams.get('code'), 'the signed-in browser can still answer');
  });

  t.test('a client name with markup is escaped on the sign-in and consent pages (OWASP XSS prevention)', async (t) => {
    const user = await newUser('hostile');
    const params = request({ client_id: HOSTILE.client_id, redirect_uri: HOSTILE.redirect_uris[0] });
    const login = await openLoginPage(t, app, new Browser(), params);
    const escaped = 'Evil &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;';
    t.ok(login.page.body.includes(escaped), 'escaped on the sign-in page');
    t.notOk(login.page.body.includes('<script>alert'), 'the hostile name runs no script on the sign-in page');
    const consent = await openConsentPage(t, app, new Browser(), user, params);
    t.ok(consent.page.body.includes(escaped), 'escaped on the consent page');
    t.notOk(consent.page.body.includes('<script'), 'no script element on the consent page');
  });

  t.test('Deny sends the client access_denied with state and iss, and nothing is remembered (RFC 6749 4.1.2.1, RFC 9207 2)', async (t) => {
    const user = await newUser('deny');
    const browser = new Browser();
    const params = request();
    const consent = await openConsentPage(t, app, browser, user, params);
    const res = await browser.request(app, 'POST', consent.action, { csrf: consent.csrf, decision: 'deny' });
    const location = clientRedirect(t, res);
    t.equal(location.searchParams.get('error'), 'access_denied');
    t.ok(location.searchParams.get('error_description'));
    t.equal(location.searchParams.get('state'), params.state!);
    t.notOk(location.searchParams.has('code'));

    const again = await browser.request(app, 'GET', authorizePath(request()));
    t.equal(again.statusCode, 303);
    t.match(String(again.headers.location), new RegExp(`^${ISSUER}/interaction/`), 'consent is asked for again');
  });

  t.test('Allow sends the client a code with state and iss (RFC 6749 4.1.2, RFC 9207 2)', async (t) => {
    const user = await newUser('allow');
    const browser = new Browser();
    const params = request();
    const consent = await openConsentPage(t, app, browser, user, params);
    const res = await browser.request(app, 'POST', consent.action, { csrf: consent.csrf, decision: 'allow' });
    const location = clientRedirect(t, res);
    t.match(location.searchParams.get('code'), /^[A-Za-z0-9_-]{22,}$/);
    t.equal(location.searchParams.get('state'), params.state!);
    t.notOk(location.searchParams.has('error'));
    t.equal(res.headers['cache-control'], 'no-store');
    t.notOk(browser.get('sso_interaction'), 'the interaction cookie is cleared');
  });

  t.test('remembered consent covers the same or fewer scopes: the endpoint answers with a code at once (OIDC Core 3.1.2.4)', async (t) => {
    const user = await newUser('remembered');
    const { browser } = await signIn(app, request({ scope: 'openid profile email' }), { user });
    for (const scope of ['openid profile email', 'openid email', 'email openid profile']) {
      const params = request({ scope });
      const res = await browser.request(app, 'GET', authorizePath(params));
      const location = clientRedirect(t, res);
      t.ok(location.searchParams.get('code'), `${scope}: a code without any page`);
      t.equal(location.searchParams.get('state'), params.state!);
    }
  });

  t.test('a scope not consented to before asks for consent again, without asking to sign in (OIDC Core 3.1.2.4)', async (t) => {
    const user = await newUser('new-scope');
    const { browser } = await signIn(app, request({ scope: 'openid email' }), { user });
    const path = await startInteraction(t, app, browser, request({ scope: 'openid email phone' }));
    const page = await browser.request(app, 'GET', path);
    t.equal(page.statusCode, 200);
    t.notMatch(page.body, /type="password"/, 'still signed in');
    t.match(page.body, /<li>Your phone number<\/li>/);
    const res = await browser.request(app, 'POST', formAction(page.body), { csrf: hiddenField(page.body, 'csrf'), decision: 'allow' });
    t.ok(clientRedirect(t, res).searchParams.get('code'));
  });

  t.test('prompt=consent asks for consent again even when it was given (OIDC Core 3.1.2.1)', async (t) => {
    const user = await newUser('prompt-consent');
    const { browser } = await signIn(app, request(), { user });
    const path = await startInteraction(t, app, browser, request({ prompt: 'consent' }));
    const page = await browser.request(app, 'GET', path);
    t.equal(page.statusCode, 200);
    t.match(page.body, /name="decision" value="allow"/, 'the consent page');
    t.notMatch(page.body, /type="password"/);
  });

  t.test('prompt=login shows the sign-in page again even with a session (OIDC Core 3.1.2.1)', async (t) => {
    const user = await newUser('prompt-login');
    const { browser } = await signIn(app, request(), { user });
    const sessionBefore = browser.get('sso_session');
    t.ok(sessionBefore);
    const params = request({ prompt: 'login' });
    const path = await startInteraction(t, app, browser, params);
    const page = await browser.request(app, 'GET', path);
    t.equal(page.statusCode, 200);
    t.match(page.body, /type="password"/, 'the sign-in page');
    const posted = await browser.request(app, 'POST', formAction(page.body), {
      csrf: hiddenField(page.body, 'csrf'),
      login: user.username,
      password: user.password,
    });
    const location = clientRedirect(t, posted);
    t.ok(location.searchParams.get('code'), 'consent was remembered, so the code follows the sign-in');
    t.equal(location.searchParams.get('state'), params.state!);
    t.not(browser.get('sso_session'), sessionBefore, 'a new session');
  });

  t.test('an interaction link opened in another browser shows an error page (RFC 9700 4.2.4)', async (t) => {
    const browser = new Browser();
    const path = await startInteraction(t, app, browser, request());
    const elsewhere = await new Browser().request(app, 'GET', path);
    assertErrorPage(t, elsewhere, /not valid in this browser/);
    const own = await browser.request(app, 'GET', path);
    t.equal(own.statusCode, 200, 'the browser that started it can still go on');
  });

  t.test('an interaction whose binding cookie belongs to another interaction shows an error page (RFC 9700 4.2.4)', async (t) => {
    const browser = new Browser();
    const first = await startInteraction(t, app, browser, request());
    const second = await startInteraction(t, app, browser, request());
    const res = await app.inject({ method: 'GET', url: second, headers: { cookie: browser.header(first) } });
    assertErrorPage(t, res, /not valid in this browser/);
  });

  t.test('a completed interaction cannot be completed again (RFC 6749 10.12)', async (t) => {
    const user = await newUser('twice');
    const browser = new Browser();
    const consent = await openConsentPage(t, app, browser, user);
    const cookies = browser.header(consent.action);
    const first = await browser.request(app, 'POST', consent.action, { csrf: consent.csrf, decision: 'allow' });
    t.ok(clientRedirect(t, first).searchParams.get('code'));

    const replay = (decision: string) =>
      app.inject({
        method: 'POST',
        url: consent.action,
        headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ csrf: consent.csrf, decision }).toString(),
      });
    assertErrorPage(t, await replay('allow'), /already completed/);
    assertErrorPage(t, await replay('deny'), /already completed/);
    const page = await app.inject({ method: 'GET', url: consent.path, headers: { cookie: cookies } });
    assertErrorPage(t, page, /already completed/);
  });

  t.test('two simultaneous Allow posts on one interaction yield exactly one code (RFC 6749 10.5)', async (t) => {
    const user = await newUser('race');
    const browser = new Browser();
    const consent = await openConsentPage(t, app, browser, user);
    const post = () =>
      app.inject({
        method: 'POST',
        url: consent.action,
        headers: { cookie: browser.header(consent.action), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ csrf: consent.csrf, decision: 'allow' }).toString(),
      });
    const results = await Promise.all([post(), post(), post()]);
    const statuses = results.map((r) => r.statusCode).sort();
    t.same(statuses, [303, 400, 400]);
    const winner = results.find((r) => r.statusCode === 303)!;
    t.ok(new URL(String(winner.headers.location)).searchParams.get('code'));
  });
});

t.test('the session and interaction cookies are Secure when the issuer is https (RFC 6265 4.1.2.5, RFC 9700 4.16)', async (t) => {
  const { app } = await buildTestApp(t, {
    env: { BASE_URL: 'https://sso.example', KEYS_ENCRYPTION_SECRET: 'a-test-secret-of-at-least-32-characters' },
  });
  const browser = new Browser();
  const started = await browser.request(app, 'GET', authorizePath(request()));
  t.equal(started.statusCode, 303);
  t.match(String(started.headers.location), /^https:\/\/sso\.example\/sso\/interaction\//);
  const id = String(started.headers.location).split('/').pop();
  t.match(
    setCookie(started, `__Host-sso_interaction_${id}`),
    /; Secure/i,
    'https cookies carry the __Host- prefix (see host-cookies.test.ts)',
  );
  const page = await browser.request(app, 'GET', localPath(String(started.headers.location)));
  t.equal(page.statusCode, 200);
  const action = formAction(page.body);
  t.match(page.body, /action="https:\/\/sso\.example\/sso\/interaction\//);
  const res = await browser.request(app, 'POST', action, {
    csrf: hiddenField(page.body, 'csrf'),
    login: ALICE.username,
    password: ALICE.password,
  });
  t.equal(res.statusCode, 303);
  const cookie = setCookie(res, '__Host-sso_session');
  t.match(cookie, /; Secure/i);
  t.match(cookie, /; HttpOnly/i);
  t.match(cookie, /; SameSite=Lax/i);
});

t.test('an interaction older than INTERACTION_TTL shows an error page and signs no one in (RFC 9700 4.2.4)', async (t) => {
  const clock = new TestClock(new Date());
  const { app } = await buildTestApp(t, { env: { INTERACTION_TTL_SECONDS: '900' }, clock: clock.now });
  const browser = new Browser();
  const { path, csrf, action } = await openLoginPage(t, app, browser);
  clock.advance(899);
  const early = await browser.request(app, 'GET', path);
  t.equal(early.statusCode, 200, 'still valid just before the limit');
  clock.advance(2);
  const page = await browser.request(app, 'GET', path);
  assertErrorPage(t, page, /expired/);
  const posted = await browser.request(app, 'POST', action, { csrf, login: ALICE.username, password: ALICE.password });
  assertErrorPage(t, posted, /expired/);
});
