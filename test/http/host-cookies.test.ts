// "__Host-" cookies on an https issuer (RFC 6265bis 4.1.3.2): Secure, Path=/, no Domain; one binding cookie per
// interaction, by name. The http behaviour (unprefixed names, narrow paths) is tested in sign-in.test.ts.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import t, { type Test } from 'tap';
import { MAX_PENDING_INTERACTIONS } from '../../src/http/cookies.js';
import { ALICE, buildTestApp, CONFIDENTIAL } from '../helpers/app.js';
import { authorizePath, Browser, formAction, hiddenField, pkcePair } from '../helpers/flow.js';

const ISSUER = 'https://sso.example/sso';

function setCookies(res: LightMyRequestResponse): string[] {
  const raw = res.headers['set-cookie'];
  return raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
}

function setCookie(res: LightMyRequestResponse, name: string): string | undefined {
  return setCookies(res).find((c) => c.startsWith(`${name}=`));
}

/** RFC 6265bis 4.1.3.2: "__Host-" requires Secure, Path=/ and no Domain attribute. */
function assertHostCookie(t: Test, cookie: string | undefined) {
  t.ok(cookie, 'the cookie is set');
  t.match(cookie, /^__Host-/);
  t.match(cookie, /; Secure/i);
  t.match(cookie, /; Path=\/(;|$)/);
  t.notMatch(cookie, /; Domain=/i);
  t.match(cookie, /; HttpOnly/i);
  t.match(cookie, /; SameSite=Lax/i);
}

/** Path of a URL on the https test issuer, for app.inject. */
function path(url: string): string {
  const u = new URL(url, ISSUER);
  return `${u.pathname}${u.search}`;
}

function request(state: string) {
  return authorizePath({
    response_type: 'code',
    client_id: CONFIDENTIAL.client_id,
    redirect_uri: CONFIDENTIAL.redirect_uris[0],
    scope: 'openid',
    state,
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
  });
}

/** GET /authorize; returns the interaction id and its page path. */
async function start(t: Test, app: FastifyInstance, browser: Browser, state: string) {
  const res = await browser.request(app, 'GET', request(state));
  t.equal(res.statusCode, 303);
  const location = String(res.headers.location);
  t.match(location, new RegExp(`^${ISSUER}/interaction/`));
  return { res, id: location.split('/').pop()!, page: path(location) };
}

t.test('https issuer', async (t) => {
  const { app } = await buildTestApp(t, {
    env: { BASE_URL: 'https://sso.example', KEYS_ENCRYPTION_SECRET: 'a-test-secret-of-at-least-32-characters' },
  });

  t.test('the interaction cookie is __Host-sso_interaction_<id>: Secure, Path=/, no Domain (RFC 6265bis 4.1.3.2)', async (t) => {
    const { res, id } = await start(t, app, new Browser(), 'one');
    t.same(
      setCookies(res).map((c) => c.split('=', 1)[0]),
      [`__Host-sso_interaction_${id}`],
      'one cookie, named after its interaction',
    );
    assertHostCookie(t, setCookie(res, `__Host-sso_interaction_${id}`));
  });

  t.test('the session cookie is __Host-sso_session: Secure, Path=/, no Domain (RFC 6265bis 4.1.3.2)', async (t) => {
    const browser = new Browser();
    const { page } = await start(t, app, browser, 'two');
    const form = await browser.request(app, 'GET', page);
    const res = await browser.request(app, 'POST', path(formAction(form.body)), {
      csrf: hiddenField(form.body, 'csrf'),
      login: ALICE.username,
      password: ALICE.password,
    });
    t.equal(res.statusCode, 303);
    assertHostCookie(t, setCookie(res, '__Host-sso_session'));
    t.notOk(setCookie(res, 'sso_session'), 'no unprefixed session cookie');
  });

  t.test('two sign-ins in one browser keep their own binding cookies and both complete (RFC 9700 4.2.4)', async (t) => {
    const browser = new Browser();
    const first = await start(t, app, browser, 'first');
    const second = await start(t, app, browser, 'second');
    t.ok(browser.get(`__Host-sso_interaction_${first.id}`) && browser.get(`__Host-sso_interaction_${second.id}`), 'both cookies are kept');

    for (const [interaction, state] of [
      [first, 'first'],
      [second, 'second'],
    ] as const) {
      let res = await browser.request(app, 'GET', interaction.page);
      for (let step = 0; step < 4 && res.statusCode !== 303; step += 1) {
        t.equal(res.statusCode, 200, res.body.slice(0, 200));
        const csrf = hiddenField(res.body, 'csrf');
        t.equal(csrf, browser.get(`__Host-sso_interaction_${interaction.id}`), "the form carries this interaction's binding");
        const fields: Record<string, string> = res.body.includes('type="password"')
          ? { csrf, login: ALICE.username, password: ALICE.password }
          : { csrf, decision: 'allow' };
        res = await browser.request(app, 'POST', path(formAction(res.body)), fields);
        if (res.statusCode === 303 && String(res.headers.location).startsWith(ISSUER))
          res = await browser.request(app, 'GET', path(String(res.headers.location)));
      }
      const back = new URL(String(res.headers.location));
      t.equal(`${back.origin}${back.pathname}`, CONFIDENTIAL.redirect_uris[0], `${state}: back at the client`);
      t.equal(back.searchParams.get('state'), state);
      t.ok(back.searchParams.get('code'), `${state}: with a code`);
      const cleared = setCookie(res, `__Host-sso_interaction_${interaction.id}`);
      t.match(cleared, /Max-Age=0|Expires=Thu, 01 Jan 1970/i, 'its binding cookie is cleared');
      assertHostCookie(t, cleared);
    }
  });

  t.test('the binding cookie of another interaction does not open this one (RFC 9700 4.2.4)', async (t) => {
    const browser = new Browser();
    const first = await start(t, app, browser, 'a');
    const other = await start(t, app, new Browser(), 'b');
    const res = await app.inject({
      method: 'GET',
      url: other.page,
      headers: { cookie: `__Host-sso_interaction_${other.id}=${browser.get(`__Host-sso_interaction_${first.id}`)}` },
    });
    t.equal(res.statusCode, 400);
    t.match(res.body, /not valid in this browser/);
  });

  t.test(
    'on an https issuer only __Host-sso_session carries the session; an unprefixed sso_session is ignored (RFC 6265bis 4.1.3.2)',
    async (t) => {
      const browser = new Browser();
      const { page } = await start(t, app, browser, 'c');
      const form = await browser.request(app, 'GET', page);
      const signedIn = await browser.request(app, 'POST', path(formAction(form.body)), {
        csrf: hiddenField(form.body, 'csrf'),
        login: ALICE.username,
        password: ALICE.password,
      });
      t.equal(signedIn.statusCode, 303);
      const sessionId = browser.get('__Host-sso_session')!;
      const open = async (sessionCookie: string) => {
        const other = new Browser();
        const next = await start(t, app, other, 'd');
        const binding = `__Host-sso_interaction_${next.id}=${other.get(`__Host-sso_interaction_${next.id}`)}`;
        return app.inject({ method: 'GET', url: next.page, headers: { cookie: `${sessionCookie}=${sessionId}; ${binding}` } });
      };
      const planted = await open('sso_session');
      t.equal(planted.statusCode, 200);
      t.match(planted.body, /type="password"/, 'asked to sign in: the unprefixed name carries no session');
      const real = await open('__Host-sso_session');
      t.notMatch(real.body, /type="password"/, 'the __Host- cookie does');
    },
  );

  t.test('issue 16 finding 5: 200 pending sign-ins leave a bounded cookie jar, and the newest still completes', async (t) => {
    const browser = new Browser();
    let newest = { id: '', page: '' };
    for (let i = 0; i < 200; i += 1) {
      const res = await browser.request(app, 'GET', request(`bomb-${i}`));
      const location = String(res.headers.location);
      newest = { id: location.split('/').pop()!, page: path(location) };
    }
    const header = browser.header('/sso/token');
    const bindings = header.split('; ').filter((c) => c.startsWith('__Host-sso_interaction_'));
    t.equal(bindings.length, MAX_PENDING_INTERACTIONS, 'the browser keeps a bounded number of bindings');
    t.ok(header.length < 1024, `the Cookie header stays small (${header.length} bytes), far below a server's header limit`);
    t.ok(
      bindings.some((c) => c.startsWith(`__Host-sso_interaction_${newest.id}=`)),
      'the newest binding is kept',
    );
    const form = await browser.request(app, 'GET', newest.page);
    t.equal(form.statusCode, 200);
    const res = await browser.request(app, 'POST', path(formAction(form.body)), {
      csrf: hiddenField(form.body, 'csrf'),
      login: ALICE.username,
      password: ALICE.password,
    });
    t.equal(res.statusCode, 303, 'the newest sign-in completes');
  });
});
