// response_mode=form_post in a real browser (Debian's Chromium through playwright-core): the response page
// posts itself to the client's redirect URI with JavaScript, and by its Continue button without; the
// redirect URI is intercepted, never fetched.
import { type Browser, type Page } from 'playwright-core';
import t from 'tap';
import type { Test } from 'tap';
import { ALICE, CONFIDENTIAL } from '../../helpers/app.js';
import { basicAuth, pkcePair } from '../../helpers/flow.js';
import { HEADLESS_IS_FINE, withChromium } from '../../helpers/chromium.js';
import { listenTestApp, type ListeningApp } from '../../helpers/listening.js';

const REDIRECT_URI = CONFIDENTIAL.redirect_uris[0]!;

interface Captured {
  method: string;
  contentType: string | undefined;
  body: URLSearchParams;
  url: string;
}

interface Started {
  server: ListeningApp;
  page: Page;
  state: string;
  verifier: string;
  consoleErrors: string[];
  /** Resolves with the request the browser made to the redirect URI. */
  callback: () => Promise<Captured>;
}

async function start(t: Test, browser: Browser, javaScriptEnabled: boolean): Promise<Started> {
  const context = await browser.newContext({ javaScriptEnabled, serviceWorkers: 'block' });
  t.teardown(() => context.close());
  const server = await listenTestApp(t, { env: HEADLESS_IS_FINE });
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });

  let captured: Captured | undefined;
  await page.route(`${REDIRECT_URI}*`, async (route) => {
    const request = route.request();
    captured = {
      method: request.method(),
      contentType: (await request.headerValue('content-type')) ?? undefined,
      body: new URLSearchParams(request.postData() ?? ''),
      url: request.url(),
    };
    await route.fulfill({
      status: 200,
      contentType: 'text/html; charset=utf-8',
      body: '<!doctype html><title>Callback</title><p id="done">back at the client</p>',
    });
  });

  const { verifier, challenge } = pkcePair();
  const state = `state-${Math.random().toString(36).slice(2)}`;
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: CONFIDENTIAL.client_id,
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile',
    state,
    nonce: 'n-browser',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    response_mode: 'form_post',
  });
  const response = await page.goto(`${server.issuer}/authorize?${query}`);
  t.equal(response?.status(), 200, 'the authorization URL lands on the sign-in page');
  await page.getByLabel('Username or email').fill(ALICE.username);
  await page.getByLabel('Password').fill(ALICE.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Allow access?' }).waitFor();

  return {
    server,
    page,
    state,
    verifier,
    consoleErrors,
    async callback() {
      await page.waitForURL(`${REDIRECT_URI}*`);
      await page.locator('#done').waitFor();
      if (!captured) throw new Error('the redirect URI was reached but not intercepted');
      return captured;
    },
  };
}

async function assertPostedResponse(t: Test, started: Started, captured: Captured): Promise<void> {
  t.equal(captured.method, 'POST', 'the response arrives by POST');
  t.equal(captured.url, REDIRECT_URI, 'at the redirect URI itself, nothing in its query');
  t.match(captured.contentType, /^application\/x-www-form-urlencoded/);
  t.same([...captured.body.keys()], ['code', 'state', 'iss']);
  t.equal(captured.body.get('state'), started.state);
  t.equal(captured.body.get('iss'), started.server.issuer);
  const code = captured.body.get('code');
  t.match(code, /^[0-9a-f]{12}[A-Za-z0-9_-]{43}$/, 'the moment it was made, then 256 random bits');

  const tokens = await fetch(`${started.server.issuer}/token`, {
    method: 'POST',
    headers: {
      authorization: basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: REDIRECT_URI,
      code_verifier: started.verifier,
    }).toString(),
  });
  t.equal(tokens.status, 200, 'the posted code redeems');
}

async function browserTests(browser: Browser): Promise<void> {
  t.test('with JavaScript the form_post page submits itself to the redirect URI (Form Post Response Mode 2)', async (t) => {
    const started = await start(t, browser, true);
    const { page } = started;
    // The consent answer passes through unchanged; its body is kept, since the page navigates away at once.
    let formPage: { status: number; body: string } | undefined;
    await page.route(`${started.server.issuer}/interaction/*/consent`, async (route) => {
      const response = await route.fetch();
      formPage = { status: response.status(), body: await response.text() };
      await route.fulfill({ response });
    });
    await page.getByRole('button', { name: 'Allow' }).click();
    const captured = await started.callback();
    t.equal(formPage?.status, 200, 'consent answers with the form_post page');
    t.match(formPage?.body, /<form method="post" action="https:\/\/app\.example\/cb">/);
    t.equal(await page.locator('#done').textContent(), 'back at the client', 'no click was needed');
    t.same(started.consoleErrors, [], 'no console errors: the script ran under the CSP, and the post was not blocked');
    await assertPostedResponse(t, started, captured);
  });

  t.test('without JavaScript the form_post page shows Continue, which posts the response (Form Post Response Mode 2)', async (t) => {
    const started = await start(t, browser, false);
    const { page } = started;
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('heading', { name: 'Returning to the application' }).waitFor();
    t.equal(await page.title(), 'Returning to the application');
    t.match(page.url(), new RegExp(`^${started.server.issuer}/interaction/[A-Za-z0-9_-]+/consent$`), 'the page stays until Continue');
    const cont = page.getByRole('button', { name: 'Continue' });
    t.ok(await cont.isVisible(), 'Continue is shown');
    await cont.click();
    await assertPostedResponse(t, started, await started.callback());
  });
}

await withChromium(t, browserTests);
