// RP-Initiated Logout in a real browser (Debian's Chromium through playwright-core): the confirmation page,
// its two answers, and the way back to the client's registered post_logout_redirect_uri (intercepted, never fetched).
import type { Browser, Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { ALICE, CONFIDENTIAL, FIXTURES } from '../../helpers/app.js';
import { HEADLESS_IS_FINE, withChromium } from '../../helpers/chromium.js';
import { pkcePair } from '../../helpers/flow.js';
import { listenTestApp, type ListeningApp } from '../../helpers/listening.js';

const LOGGED_OUT = 'https://app.example/logged-out';
const CLIENT = { ...CONFIDENTIAL, post_logout_redirect_uris: [LOGGED_OUT] };
const REDIRECT_URI = CLIENT.redirect_uris[0]!;

/** The client's URLs answer with a stub page; every URL the browser reached there is recorded. */
async function interceptClient(page: Page): Promise<URL[]> {
  const reached: URL[] = [];
  await page.route('https://app.example/**', async (route) => {
    reached.push(new URL(route.request().url()));
    await route.fulfill({
      status: 200,
      contentType: 'text/html; charset=utf-8',
      body: '<!doctype html><title>Client</title><p>back at the client</p>',
    });
  });
  return reached;
}

function authorizationUrl(server: ListeningApp, extra: Record<string, string> = {}): string {
  return `${server.issuer}/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT.client_id,
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile',
    state: 'st',
    nonce: 'n',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    ...extra,
  })}`;
}

async function signIn(page: Page, server: ListeningApp, reached: URL[]): Promise<void> {
  await page.goto(authorizationUrl(server));
  await page.getByLabel('Username or email').fill(ALICE.username);
  await page.getByLabel('Password').fill(ALICE.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL(`${REDIRECT_URI}*`);
  if (!reached.at(-1)?.searchParams.get('code')) throw new Error('the sign-in did not bring a code back');
}

/** prompt=none, with the browser's cookies, tells whether it still has a session: a code, or login_required. */
async function sessionAnswer(page: Page, server: ListeningApp): Promise<string | null> {
  const response = await page.context().request.get(authorizationUrl(server, { prompt: 'none' }), { maxRedirects: 0 });
  const back = new URL(response.headers().location ?? 'about:blank');
  return back.searchParams.get('error') ?? (back.searchParams.get('code') ? 'code' : null);
}

async function logoutTests(browser: Browser): Promise<void> {
  for (const javaScriptEnabled of [true, false]) {
    t.test(`the user confirms sign-out on the page (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async (t: Test) => {
      const server = await listenTestApp(t, { seed: { clients: [CLIENT], users: FIXTURES.users }, env: HEADLESS_IS_FINE });
      const endSession = `${server.issuer}/session/end?${new URLSearchParams({ client_id: CLIENT.client_id, post_logout_redirect_uri: LOGGED_OUT, state: 'bye' })}`;
      const context = await browser.newContext({ javaScriptEnabled, serviceWorkers: 'block' });
      t.teardown(() => context.close());
      const page = await context.newPage();
      const reached = await interceptClient(page);
      await signIn(page, server, reached);

      const response = await page.goto(endSession);
      t.equal(response?.status(), 200);
      t.equal(await page.title(), 'Sign out');
      t.match(response?.headers()['content-security-policy'], /frame-ancestors 'none'/);
      t.ok(await page.getByText('Test App asks to sign you out of this site.').isVisible());

      // Without an id_token_hint the browser is not sent to post_logout_redirect_uri (issue 16, finding 4).
      await page.getByRole('button', { name: 'Stay signed in' }).click();
      await page.getByRole('heading', { name: 'You are still signed in' }).waitFor();
      t.notOk(
        reached.some((u) => u.href.startsWith(LOGGED_OUT)),
        'not sent to the client without an id_token_hint',
      );
      t.equal(await sessionAnswer(page, server), 'code', 'and the session is still there');

      await page.goto(endSession);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
      t.notOk(
        reached.some((u) => u.href.startsWith(LOGGED_OUT)),
        'the signed-out page, not the client',
      );
      t.equal(await sessionAnswer(page, server), 'login_required', 'signed out: prompt=none needs a sign-in');
    });
  }
}

await withChromium(t, logoutTests);
