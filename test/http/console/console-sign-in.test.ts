// Signing in to the web console (issue 20): the console is a client of this provider (OIDC Core 3.1, RFC 7636 S256);
// the sign-in needs a second factor (RFC 8176 amr `mfa`) and an admin role; its session cookie, lifetimes, sign-out.
import t from 'tap';
import { sql } from 'kysely';
import { buildTestApp, testConfig, type TestApp } from '../../helpers/app.js';
import { consoleBindingCookie, consoleSessionCookie } from '../../../src/http/console/console-http.js';
import { DeviceBrowser } from '../../helpers/device-browser.js';
import { formAction, hiddenField, localPath } from '../../helpers/flow.js';
import { CapturingNotifier } from '../../helpers/notifier.js';
import { riskEnv, weightsEnv } from '../../helpers/risk.js';
import { findUserByUsername } from '../../../src/storage/users.js';
import { CONSOLE_IDLE_SECONDS } from '../../../src/domain/console/console-sessions.js';
import { sha256 } from '../../../src/domain/secrets.js';

/** What the page script posts in an automated browser (AUTOMATION). */
const WEBDRIVER = { ds_webdriver: '1', ds_tz: 'UTC', ds_hc: '4', ds_screen: '1280x720', ds_langs: 'en-US' };
const ADMIN = { username: 'ada', password: 'ada-password-0123', email: 'ada@example.com', role: 'admin' as const };
const PLAIN = { username: 'pat', password: 'pat-password-0123', email: 'pat@example.com' };
/** An admin whom an allow rule lets in on the password alone (RULE_ALLOW: no challenge, so no second factor). */
const TRUSTED = { username: 'tess', password: 'tess-password-0123', role: 'admin' as const };

const notifier = new CapturingNotifier();
const testApp: TestApp = await buildTestApp(t, {
  notifier,
  // AUTOMATION at 40: a sign-in with it is challenged (30) and, even from a new device on a new network (75), not blocked (80).
  env: riskEnv({ RISK_WEIGHTS: weightsEnv({ AUTOMATION: 40 }) }),
  seed: {
    clients: [],
    users: [ADMIN, PLAIN, TRUSTED],
    risk_rules: [{ kind: 'username', value: TRUSTED.username, effect: 'allow', note: null }],
  },
});
const { app, db } = testApp;

let networks = 0;
const newBrowser = () => new DeviceBrowser({ ip: `10.30.${++networks}.1` });

/** From GET /admin through the provider's pages to the console's callback; `secondFactor` answers the code asked. */
async function signInToConsole(user: { username: string; password: string }, secondFactor: boolean, browser = newBrowser()) {
  const start = await browser.request(app, 'GET', '/admin');
  const authorize = new URL(String(start.headers.location));
  let res = await browser.request(app, 'GET', localPath(authorize.href));
  res = await browser.request(app, 'GET', localPath(String(res.headers.location)));
  const id = (await findUserByUsername(db, user.username))!.id;
  const sent = notifier.to(id, 'one-time-code').length;
  res = await browser.request(app, 'POST', formAction(res.body), {
    csrf: hiddenField(res.body, 'csrf'),
    login: user.username,
    password: user.password,
    ...(secondFactor ? WEBDRIVER : {}),
  });
  if (secondFactor) {
    res = await browser.answer(app, await notifier.code(id, sent + 1));
  }
  for (let step = 0; step < 6; step += 1) {
    if (res.statusCode === 303) {
      const location = String(res.headers.location);
      res = await browser.request(app, 'GET', localPath(location));
      if (location.startsWith('http://localhost:3000/admin/callback')) return { browser, start, authorize, callback: res };
      continue;
    }
    if (res.statusCode === 200 && res.body.includes('name="decision"')) {
      res = await browser.request(app, 'POST', formAction(res.body), { csrf: hiddenField(res.body, 'csrf'), decision: 'allow' });
      continue;
    }
    throw new Error(`stopped at ${res.statusCode}: ${res.body.slice(0, 300)}`);
  }
  throw new Error('no callback');
}

t.test(
  'GET /admin without a session sends the browser to /sso/authorize as the sso-console client, with S256 PKCE, state and nonce (OIDC Core 3.1.2.1, RFC 7636 4.3)',
  async (t) => {
    const browser = newBrowser();
    const res = await browser.request(app, 'GET', '/admin');
    t.equal(res.statusCode, 303);
    const url = new URL(String(res.headers.location));
    t.equal(url.origin + url.pathname, `${testApp.config.issuer}/authorize`);
    t.equal(url.searchParams.get('client_id'), 'sso-console');
    t.equal(url.searchParams.get('redirect_uri'), 'http://localhost:3000/admin/callback');
    t.equal(url.searchParams.get('response_type'), 'code');
    t.equal(url.searchParams.get('code_challenge_method'), 'S256');
    t.match(url.searchParams.get('code_challenge'), /^[A-Za-z0-9_-]{43}$/);
    t.match(url.searchParams.get('state'), /^[A-Za-z0-9_-]{43}$/);
    t.match(url.searchParams.get('nonce'), /^[A-Za-z0-9_-]{43}$/);
    const cookie = String(res.headers['set-cookie']);
    t.match(cookie, /^sso_console_sign_in=/);
    t.match(cookie, /HttpOnly/);
    t.match(cookie, /SameSite=Lax/);
    t.match(cookie, /Path=\/admin\/callback/);
  },
);

t.test(
  'an admin who signs in with a second factor gets a console session: HttpOnly, SameSite=Lax, Path=/admin, its digest at rest',
  async (t) => {
    const { browser, callback } = await signInToConsole(ADMIN, true);
    t.equal(callback.statusCode, 303);
    t.equal(callback.headers.location, 'http://localhost:3000/admin');
    const cookie = String([callback.headers['set-cookie']].flat().find((c) => String(c).startsWith('sso_console=')));
    t.match(cookie, /HttpOnly/);
    t.match(cookie, /SameSite=Lax/);
    t.match(cookie, /Path=\/admin(;|$)/);
    const value = browser.cookie('sso_console')!;
    const rows = await db.selectFrom('console_sessions').select('id_hash').execute();
    t.ok(
      rows.some((r) => r.id_hash === sha256(value)),
      'the row holds the digest',
    );
    t.notOk(
      rows.some((r) => r.id_hash === value),
      'never the value',
    );
    const page = await browser.request(app, 'GET', '/admin');
    t.equal(page.statusCode, 200);
    t.match(page.body, /Dashboard/);
    t.match(page.body, /ada \(admin\)/);
  },
);

t.test('the provider asks for the second factor the console client requires: an admin with none is told so at sign-in', async (t) => {
  const browser = newBrowser();
  const start = await browser.request(app, 'GET', '/admin');
  let res = await browser.request(app, 'GET', localPath(String(start.headers.location)));
  res = await browser.request(app, 'GET', localPath(String(res.headers.location)));
  // The allow rule lets Tess in on her password alone; the client's rule still wants a second factor, which she lacks.
  res = await browser.request(app, 'POST', formAction(res.body), {
    csrf: hiddenField(res.body, 'csrf'),
    login: TRUSTED.username,
    password: TRUSTED.password,
  });
  t.equal(res.statusCode, 403);
  t.match(res.body, /asks for a second factor, and your account has none yet/);
  t.notOk(browser.cookie('sso_session'), 'no session at the provider');
  t.notOk(browser.cookie('sso_console'), 'no console session');
});

t.test(
  'a console client an operator changed to take a password alone: the callback still refuses a sign-in without mfa, and offers prompt=login with max_age=0 (OIDC Core 3.1.2.1)',
  async (t) => {
    const setRule = (on: boolean) =>
      db
        .updateTable('clients')
        .set({ metadata: sql`case when ${on} then metadata || '{"require_mfa": true}'::jsonb else metadata - 'require_mfa' end` })
        .where('client_id', '=', 'sso-console')
        .execute();
    await setRule(false);
    t.teardown(() => setRule(true));
    const { browser, callback } = await signInToConsole(TRUSTED, false);
    t.equal(callback.statusCode, 403);
    t.match(callback.body, /second factor/);
    t.notOk(browser.cookie('sso_console'), 'no console session');
    const again = await browser.request(app, 'GET', '/admin/sign-in?again=1');
    const url = new URL(String(again.headers.location));
    t.equal(url.searchParams.get('prompt'), 'login');
    t.equal(url.searchParams.get('max_age'), '0');
  },
);

t.test('a user without an admin role is refused with a 403 page that says why', async (t) => {
  const { browser, callback } = await signInToConsole(PLAIN, true);
  t.equal(callback.statusCode, 403);
  t.match(callback.body, /neither the admin nor the auditor role/);
  t.notOk(browser.cookie('sso_console'));
});

t.test("a callback whose state is not this browser's is refused (RFC 6749 10.12)", async (t) => {
  const { authorize } = await signInToConsole(ADMIN, true);
  const stranger = newBrowser();
  const res = await stranger.request(app, 'GET', `/admin/callback?code=x&state=${authorize.searchParams.get('state')}`);
  t.equal(res.statusCode, 400);
  t.match(res.body, /did not start in this browser/);
});

t.test('a console session ends after the idle lifetime, and at sign-out (which needs its CSRF token)', async (t) => {
  const { browser } = await signInToConsole(ADMIN, true);
  const page = await browser.request(app, 'GET', '/admin');
  const csrf = hiddenField(page.body, 'csrf');
  const forged = await browser.request(app, 'POST', '/admin/sign-out', { csrf: 'wrong' });
  t.equal(forged.statusCode, 303, 'a forged sign-out changes nothing');
  t.equal((await browser.request(app, 'GET', '/admin')).statusCode, 200);
  const out = await browser.request(app, 'POST', '/admin/sign-out', { csrf });
  t.equal(out.statusCode, 200);
  t.match(out.body, /You have left the console/);
  const after = await browser.request(app, 'GET', '/admin');
  t.equal(after.statusCode, 303, 'signed out: sent to sign in');

  const second = await signInToConsole(ADMIN, true);
  t.equal((await second.browser.request(app, 'GET', '/admin')).statusCode, 200);
  testApp.advance(CONSOLE_IDLE_SECONDS + 1);
  const idle = await second.browser.request(app, 'GET', '/admin');
  t.equal(idle.statusCode, 303, 'idle too long: sent to sign in again');
  t.match(String(idle.headers.location), /\/sso\/authorize\?/);
});

t.test(
  'on an https issuer the console cookies are Secure with the __Secure- prefix, still under /admin (RFC 6265bis 4.1.3.1)',
  async (t) => {
    const config = testConfig({ BASE_URL: 'https://sso.example', ALLOW_UNENCRYPTED_KEYS: 'true' });
    const session = consoleSessionCookie(config);
    t.equal(session.name, '__Secure-sso_console');
    t.match(session.options, { secure: true, httpOnly: true, sameSite: 'lax', path: '/admin' });
    const binding = consoleBindingCookie(config);
    t.equal(binding.name, '__Secure-sso_console_sign_in');
    t.match(binding.options, { secure: true, httpOnly: true, path: '/admin/callback' });
  },
);
