// Headless Chromium, which says it is automated, is challenged for a second factor on the real pages (issue 5): the
// test reads the one-time code from the notifier as the user would read their message, types it, and openid-client
// (v6) gets an ID token whose amr includes "otp". The risk weights are explicit, and HEADLESS_IS_FINE is NOT used.
// With NOTIFIER=smtp the code comes by email from a real SMTP server on 127.0.0.1, also when that server was down at
// first. Also: the sign-in page with JavaScript disabled (its script's fields stay empty and cost nothing).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { ALICE, CONFIDENTIAL } from '../../helpers/app.js';
import { checkPage } from '../../helpers/axe.js';
import { withChromium } from '../../helpers/chromium.js';
import { listenTestApp, type ListeningApp } from '../../helpers/listening.js';
import { startMailServer } from '../../helpers/mail-server.js';
import { CapturingNotifier } from '../../helpers/notifier.js';
import { discoverConfidential, prepareAttempt, redeem, type Attempt } from '../../helpers/relying-party.js';
import { riskEnv } from '../../helpers/risk.js';
import { findUserByUsername } from '../../../src/storage/users.js';

const REDIRECT_URI = CONFIDENTIAL.redirect_uris[0]!;
/** What an ordinary (not headless) Chromium on Linux says it is. */
const DESKTOP_CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';
const SIGNAL_FIELDS = ['ds_webdriver', 'ds_tz', 'ds_hc', 'ds_screen', 'ds_langs'];

interface Started {
  server: ListeningApp;
  notifier: CapturingNotifier;
  page: Page;
  attempt: Attempt;
  callback: () => Promise<URL>;
  aliceId: string;
}

interface StartOptions {
  javaScriptEnabled?: boolean;
  userAgent?: string;
  /** Settings of the server's own notifier (NOTIFIER=smtp…) instead of a capturing one. */
  notifierEnv?: Record<string, string>;
}

/** A server of its own with a capturing notifier, a browser context, the callback intercepted, and the RP's request opened. */
async function start(t: Test, browser: Browser, options: StartOptions = {}): Promise<Started> {
  const notifier = new CapturingNotifier();
  // AUTOMATION (60) asks for a second factor (30) and does not block (80), whatever the defaults become.
  const server = options.notifierEnv
    ? await listenTestApp(t, { env: { ...riskEnv(), ...options.notifierEnv } })
    : await listenTestApp(t, { env: riskEnv(), notifier });
  const context: BrowserContext = await browser.newContext({
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    serviceWorkers: 'block',
    userAgent: options.userAgent,
  });
  t.teardown(() => context.close());
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
  const attempt = await prepareAttempt(await discoverConfidential(server), REDIRECT_URI);
  t.equal((await page.goto(attempt.authorizationUrl.href))?.status(), 200, 'the authorization URL lands on the sign-in page');
  const aliceId = (await findUserByUsername(server.db, ALICE.username))!.id;
  return {
    server,
    notifier,
    page,
    attempt,
    aliceId,
    async callback() {
      await page.waitForURL(`${REDIRECT_URI}*`);
      if (!captured) throw new Error('the redirect URI was reached but not intercepted');
      return captured;
    },
  };
}

async function signInAs(page: Page): Promise<void> {
  await page.getByLabel('Username or email').fill(ALICE.username);
  await page.getByLabel('Password').fill(ALICE.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

async function lastEvent(server: ListeningApp, type: string): Promise<{ action: string; score: number; reasons: string[] }> {
  const row = await server.db
    .selectFrom('security_events')
    .select('details')
    .where('type', '=', type)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  return (typeof row.details === 'string' ? JSON.parse(row.details) : row.details) as { action: string; score: number; reasons: string[] };
}

async function tests(browser: Browser): Promise<void> {
  t.test(
    'headless Chromium is challenged, types the one-time code it was sent, and openid-client gets an ID token with amr otp (OIDC Core 2, RFC 8176)',
    async (t) => {
      const { server, notifier, page, attempt, callback, aliceId } = await start(t, browser);
      await signInAs(page);

      await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
      t.equal(page.url(), `${server.issuer}/sign-in/verify`, 'the code page, not the consent page');
      const challenged = await lastEvent(server, 'sign_in_challenged');
      t.ok(challenged.reasons.includes('AUTOMATION'), `challenged for automation (${challenged.reasons.join(', ')})`);

      const code = await notifier.code(aliceId);
      await page.getByLabel('Code').fill(code);
      await page.getByRole('button', { name: 'Continue' }).click();

      await page.getByRole('heading', { name: 'Allow access?' }).waitFor();
      await page.getByRole('button', { name: 'Allow' }).click();
      const tokens = await redeem(attempt, await callback());
      const claims = tokens.claims()!;
      t.equal(claims.sub, aliceId);
      t.equal(claims.nonce, attempt.nonce);
      t.ok(Array.isArray(claims.amr), 'amr is an array');
      t.ok((claims.amr as string[]).includes('otp'), `amr includes otp: ${JSON.stringify(claims.amr)}`);
      t.ok((claims.amr as string[]).includes('pwd'), 'and pwd');
    },
  );

  t.test(
    'NOTIFIER=smtp: the code is mailed, text and HTML, through a mail server that was down at first; typed, it signs the person in',
    async (t) => {
      // Down, its port held (test/helpers/mail-server.ts): the mail server comes back on the address the app was given.
      const mail = await startMailServer(t, { down: true });
      const smtp = { NOTIFIER: 'smtp', SMTP_URL: mail.url(), MAIL_FROM: 'Example SSO <sso@example.com>', OUTBOX_POLL_SECONDS: '1' };
      const { server, page, attempt, callback, aliceId } = await start(t, browser, { notifierEnv: smtp });
      await signInAs(page);
      // The mail server is down: the person still gets the code page at once, and the code waits in the outbox.
      await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
      const queued = await server.db.selectFrom('outbox').select(['sent_at', 'attempts']).where('user_id', '=', aliceId).execute();
      t.equal(queued.length, 1, 'one message queued');
      t.equal(queued[0]!.sent_at, null, 'not sent while the server is down');

      mail.up();
      const message = await mail.next(ALICE.email, 1, 20_000);
      t.same(message.from?.value, [{ address: 'sso@example.com', name: 'Example SSO' }]);
      const code = /^ {4}(\d{6})$/m.exec(message.text ?? '')?.[1];
      t.ok(code, 'the text part holds the code on a line of its own');
      t.match(message.html as string, `>${code}</p>`, 'and so does the HTML part');

      await page.getByLabel('Code').fill(code!);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Allow access?' }).waitFor();
      await page.getByRole('button', { name: 'Allow' }).click();
      const tokens = await redeem(attempt, await callback());
      t.ok((tokens.claims()!.amr as string[]).includes('otp'), 'amr includes otp');
      const sent = await server.db.selectFrom('outbox').select(['sent_at', 'payload']).where('user_id', '=', aliceId).execute();
      t.ok(sent[0]!.sent_at, 'marked sent');
      t.notMatch(JSON.stringify(sent[0]!.payload), code!, 'and the code wiped');
      t.equal(mail.received.length, 1, 'mailed once');
    },
  );

  t.test('the page script reports navigator.webdriver: an automated browser with an ordinary user agent is challenged too', async (t) => {
    const { server, page } = await start(t, browser, { userAgent: DESKTOP_CHROME });
    await signInAs(page);
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    t.same((await lastEvent(server, 'sign_in_challenged')).reasons, ['AUTOMATION'], 'only the script could tell');
    // The code page, with and without an error, passes axe (WCAG 2.1 AA) and fits 375 px (test/helpers/axe.ts).
    await checkPage(t, page, 'second factor');
    await page.getByLabel('Code').fill('000000');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert').first().waitFor();
    await checkPage(t, page, 'second factor with an error');
  });

  t.test("with JavaScript disabled the sign-in page works: the script's fields stay empty, and cost nothing", async (t) => {
    const { server, page, attempt, callback } = await start(t, browser, { javaScriptEnabled: false, userAgent: DESKTOP_CHROME });
    for (const name of SIGNAL_FIELDS) t.equal(await page.locator(`input[name="${name}"]`).inputValue(), '', `${name} is empty`);
    await signInAs(page);
    await page.getByRole('heading', { name: 'Allow access?' }).waitFor();
    const allowed = await lastEvent(server, 'sign_in_allowed');
    t.equal(allowed.score, 0, 'no penalty for the missing signals');
    t.same(allowed.reasons, []);
    await page.getByRole('button', { name: 'Allow' }).click();
    const tokens = await redeem(attempt, await callback());
    t.same(tokens.claims()!.amr, ['pwd'], 'a plain sign-in: amr ["pwd"]');
  });
}

await withChromium(t, tests);
