// A real browser (Debian's Chromium through playwright-core) on the sign-in and consent pages of the
// provider listening on loopback; the client's redirect URI is intercepted, never fetched.
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import t from 'tap';
import type { Test } from 'tap';
import { ALICE, CONFIDENTIAL } from '../../helpers/app.js';
import { basicAuth, pkcePair } from '../../helpers/flow.js';
import { HEADLESS_IS_FINE, withChromium } from '../../helpers/chromium.js';
import { listenTestApp, type ListeningApp } from '../../helpers/listening.js';

const REDIRECT_URI = CONFIDENTIAL.redirect_uris[0]!;
const WRONG_CREDENTIALS = 'The username or password is not correct.';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

interface Started {
  server: ListeningApp;
  page: Page;
  /** Resolves with the URL the provider sent the browser to, once the intercepted callback is reached. */
  callback: () => Promise<URL>;
  authorizationUrl: string;
  state: string;
  nonce: string;
  verifier: string;
}

/** A fresh context and server, the redirect URI intercepted, and the authorization URL opened. */
async function start(t: Test, browser: Browser, options: { javaScriptEnabled?: boolean } = {}): Promise<Started> {
  const context: BrowserContext = await browser.newContext({
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    serviceWorkers: 'block',
  });
  t.teardown(() => context.close());
  const server = await listenTestApp(t, { env: HEADLESS_IS_FINE });
  const page = await context.newPage();

  let captured: URL | undefined;
  await page.route(`${REDIRECT_URI}*`, async (route) => {
    captured = new URL(route.request().url());
    await route.fulfill({
      status: 200,
      contentType: 'text/html; charset=utf-8',
      body: '<!doctype html><title>Callback</title><p id="done">back at the client</p>',
    });
  });

  const { verifier, challenge } = pkcePair();
  const state = `state-${Math.random().toString(36).slice(2)}`;
  const nonce = `nonce-${Math.random().toString(36).slice(2)}`;
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: CONFIDENTIAL.client_id,
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile email',
    state,
    nonce,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const authorizationUrl = `${server.issuer}/authorize?${query}`;
  const response = await page.goto(authorizationUrl);
  t.equal(response?.status(), 200, 'the authorization URL lands on a page');

  return {
    server,
    page,
    authorizationUrl,
    state,
    nonce,
    verifier,
    async callback() {
      await page.waitForURL(`${REDIRECT_URI}*`);
      if (!captured) throw new Error('the redirect URI was reached but not intercepted');
      return captured;
    },
  };
}

/** Redeems the code the browser brought back, to show it is the genuine article. */
async function redeem(started: Started, code: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${started.server.issuer}/token`, {
    method: 'POST',
    headers: {
      authorization: basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: started.verifier,
    }).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function assertPng(t: Test, file: string): void {
  t.ok(existsSync(file), `${file} exists`);
  t.ok(statSync(file).size > 1000, `${file} is not empty (${statSync(file).size} bytes)`);
  t.same(readFileSync(file).subarray(0, 8), PNG_SIGNATURE, `${file} is a PNG`);
}

async function browserTests(browser: Browser): Promise<void> {
  const screenshots = mkdtempSync(path.join(os.tmpdir(), 'sso-browser-screenshots-'));
  t.comment(`screenshots in ${screenshots}`);

  t.test('a person signs in, allows access, and the browser arrives at the redirect URI with code, state and iss', async (t) => {
    const started = await start(t, browser);
    const { page, server } = started;
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });

    t.equal(await page.title(), 'Sign in');
    t.match(page.url(), new RegExp(`^${server.issuer}/interaction/[A-Za-z0-9_-]+$`));
    t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Sign in');
    t.equal(await page.locator('p.lead').textContent(), `to continue to ${CONFIDENTIAL.client_name}`);
    // The inline style is allowed by its CSP hash: the button is painted in the page's blue.
    const background = await page
      .getByRole('button', { name: 'Sign in', exact: true })
      .evaluate(
        (el) =>
          (globalThis as unknown as { getComputedStyle(e: typeof el): { backgroundColor: string } }).getComputedStyle(el).backgroundColor,
      );
    t.equal(background, 'rgb(29, 78, 216)');
    const loginShot = path.join(screenshots, 'login.png');
    await page.screenshot({ path: loginShot, fullPage: true });
    assertPng(t, loginShot);

    await page.getByLabel('Username or email').fill(ALICE.username);
    await page.getByLabel('Password').fill(ALICE.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();

    await page.waitForURL(new RegExp(`^${server.issuer}/interaction/[A-Za-z0-9_-]+$`));
    await page.getByRole('heading', { name: 'Allow access?' }).waitFor();
    t.equal(await page.title(), 'Allow access');
    t.equal(await page.locator('p.lead').textContent(), `${CONFIDENTIAL.client_name} is asking to:`);
    t.same(await page.locator('ul.scopes li').allTextContents(), [
      'Sign you in with your account identifier',
      'Your name and basic profile',
      'Your email address',
    ]);
    t.ok(await page.getByRole('button', { name: 'Allow' }).isVisible(), 'Allow is shown');
    t.ok(await page.getByRole('button', { name: 'Deny' }).isVisible(), 'Deny is shown');
    const consentShot = path.join(screenshots, 'consent.png');
    await page.screenshot({ path: consentShot, fullPage: true });
    assertPng(t, consentShot);

    await page.getByRole('button', { name: 'Allow' }).click();
    const callback = await started.callback();
    t.equal(`${callback.origin}${callback.pathname}`, REDIRECT_URI);
    t.equal(callback.searchParams.get('state'), started.state);
    t.equal(callback.searchParams.get('iss'), server.issuer);
    const code = callback.searchParams.get('code');
    t.match(code, /^[A-Za-z0-9_-]{22,}$/);
    t.equal(await page.locator('#done').textContent(), 'back at the client', 'the intercepted callback page is shown');
    t.same(consoleErrors, [], 'no console errors (no CSP violations) on the pages');

    const tokens = await redeem(started, code!);
    t.equal(tokens.status, 200, `token response: ${String(tokens.body.error ?? 'tokens')}`);
    t.equal(tokens.body.scope, 'openid profile email');
    t.type(tokens.body.id_token, 'string');
  });

  t.test('a wrong password shows the generic error message and keeps the username', async (t) => {
    const started = await start(t, browser);
    const { page, server } = started;
    t.equal(await page.getByRole('alert').count(), 0, 'no error before a sign-in attempt');

    const tries = [
      { login: ALICE.username, password: 'not the password' },
      { login: 'nobody-by-this-name', password: ALICE.password },
    ];
    for (const attempt of tries) {
      await page.locator('input[name="login"]').fill(attempt.login);
      await page.locator('input[name="password"]').fill(attempt.password);
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/login')),
        page.getByRole('button', { name: 'Sign in', exact: true }).click(),
      ]);
      t.equal(response.status(), 401);
      await page.getByRole('alert').waitFor();
      t.equal((await page.getByRole('alert').textContent())?.trim(), WRONG_CREDENTIALS, `the same message for ${attempt.login}`);
      t.equal(await page.locator('input[name="login"]').inputValue(), attempt.login, 'the username is kept');
      t.equal(await page.locator('input[name="password"]').inputValue(), '', 'the password is not sent back');
      t.equal(await page.title(), 'Sign in');
    }

    // The page still works after failures: the right password goes on to consent.
    await page.locator('input[name="login"]').fill(ALICE.username);
    await page.locator('input[name="password"]').fill(ALICE.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Allow access?' }).waitFor();
    t.match(page.url(), new RegExp(`^${server.issuer}/interaction/`));
  });

  t.test('the sign-in and consent pages work with JavaScript disabled', async (t) => {
    const started = await start(t, browser, { javaScriptEnabled: false });
    const { page, server } = started;
    t.equal(await page.title(), 'Sign in');
    await page.getByLabel('Username or email').fill(ALICE.username);
    await page.getByLabel('Password').fill(ALICE.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Allow access?' }).waitFor();
    t.same(await page.locator('ul.scopes li').allTextContents(), [
      'Sign you in with your account identifier',
      'Your name and basic profile',
      'Your email address',
    ]);
    await page.getByRole('button', { name: 'Allow' }).click();
    const callback = await started.callback();
    t.equal(callback.searchParams.get('state'), started.state);
    t.equal(callback.searchParams.get('iss'), server.issuer);
    const code = callback.searchParams.get('code');
    t.match(code, /^[A-Za-z0-9_-]{22,}$/);
    t.equal((await redeem(started, code!)).status, 200);
  });

  t.test('Deny sends the browser back to the client with access_denied', async (t) => {
    const started = await start(t, browser, { javaScriptEnabled: false });
    const { page, server } = started;
    await page.getByLabel('Username or email').fill(ALICE.username);
    await page.getByLabel('Password').fill(ALICE.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Deny' }).click();
    const callback = await started.callback();
    t.equal(callback.searchParams.get('error'), 'access_denied');
    t.equal(callback.searchParams.get('state'), started.state);
    t.equal(callback.searchParams.get('iss'), server.issuer);
    t.equal(callback.searchParams.get('code'), null);
  });
}

await withChromium(t, browserTests);
