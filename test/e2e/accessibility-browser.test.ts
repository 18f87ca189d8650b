// Every page a person sees, checked in Chromium by axe-core against WCAG 2.1 A and AA (wcag2a, wcag2aa, wcag21a,
// wcag21aa): zero violations, with and without an error on the page; and each page fits a 375 px wide screen without
// scrolling sideways. axe is evaluated through the DevTools protocol, so the pages keep their own CSP.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { ALICE, CONFIDENTIAL } from '../helpers/app.js';
import { HEADLESS_IS_FINE, withChromium } from '../helpers/chromium.js';
import { listenTestApp } from '../helpers/listening.js';
import { CapturingNotifier } from '../helpers/notifier.js';
import { discoverConfidential, prepareAttempt } from '../helpers/relying-party.js';

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

interface AxeResult {
  violations: Array<{ id: string; help: string; nodes: Array<{ target: string[] }> }>;
}

/** axe's violations on the page as it is now, and whether it scrolls sideways at 375 px. */
async function check(t: Test, page: Page, name: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(WCAG_21_AA)} } })`,
  )) as AxeResult;
  const found = result.violations.map((v) => `${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  t.same(found, [], `${name}: no WCAG 2.1 AA violation`);
  const sideways = await page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth');
  t.equal(sideways, false, `${name}: fits 375 px without scrolling sideways`);
}

await withChromium(t, async (browser) => {
  t.test('every page passes axe (WCAG 2.1 AA) and fits 375 px', async (t) => {
    const notifier = new CapturingNotifier();
    const server = await listenTestApp(t, { env: { ...HEADLESS_IS_FINE, SIGNUP: 'open' }, notifier, hostName: 'localhost' });
    const context = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 375, height: 740 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    await page.route(`${CONFIDENTIAL.redirect_uris[0]}*`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Callback</title>' }),
    );
    /** The first message of `kind`, as the person would read it. */
    const message = async (kind: string) => {
      for (let i = 0; i < 500; i++) {
        const found = notifier.messages.find((m) => m.kind === kind);
        if (found) return found.payload as Record<string, string>;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`no ${kind} message`);
    };

    const attempt = await prepareAttempt(await discoverConfidential(server), CONFIDENTIAL.redirect_uris[0]!);
    await page.goto(attempt.authorizationUrl.href);
    await check(t, page, 'sign-in');
    await page.getByLabel('Username or email').fill(ALICE.username);
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').first().waitFor();
    await check(t, page, 'sign-in with an error');
    await page.getByLabel('Password', { exact: true }).fill(ALICE.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Allow access?' }).waitFor();
    await check(t, page, 'consent');

    await page.goto(`${server.issuer}/account`);
    await check(t, page, 'account');
    await page.goto(`${server.issuer}/account/password`);
    await check(t, page, 'change password');
    await page.getByLabel('Current password').fill('wrong');
    await page.getByLabel('New password', { exact: true }).fill('a long new passphrase');
    await page.getByLabel('Repeat the new password').fill('a long new passphrase');
    await page.getByRole('button', { name: 'Change the password' }).click();
    await check(t, page, 'change password with an error');
    await page.goto(`${server.issuer}/account/email`);
    await check(t, page, 'change email');
    await page.goto(`${server.issuer}/account`);
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await page.getByRole('heading', { name: 'Set up an authenticator app' }).waitFor();
    await check(t, page, 'authenticator enrolment');
    await page.goto(`${server.issuer}/account`);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForLoadState('load');
    await check(t, page, 'add a passkey');
    await page.goto(`${server.issuer}/session/end`);
    await check(t, page, 'sign out');

    const fresh = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 375, height: 740 } });
    t.teardown(() => fresh.close());
    const anon = await fresh.newPage();
    await anon.goto(`${server.issuer}/account/forgot`);
    await check(t, anon, 'forgot password');
    await anon.getByLabel('Username or email').fill(ALICE.username);
    await anon.getByRole('button', { name: 'Send me a link' }).click();
    await anon.getByRole('heading', { name: 'Check your email' }).waitFor();
    await check(t, anon, 'reset link sent');
    const reset = await message('password-reset');
    await anon.goto(reset.url!);
    await check(t, anon, 'new password');
    await anon.getByLabel('New password').fill('password1');
    await anon.getByLabel('Repeat it').fill('password1');
    await anon.getByRole('button', { name: 'Set the new password' }).click();
    await check(t, anon, 'new password with an error');
    await anon.goto(`${server.issuer}/account/reset?token=${'A'.repeat(43)}`);
    await check(t, anon, 'a reset link that no longer works');

    await anon.goto(`${server.issuer}/account/signup`);
    await check(t, anon, 'sign-up');
    await anon.getByRole('button', { name: 'Create the account' }).click({ noWaitAfter: true });
    await anon.getByLabel('Email address').fill('not an address');
    await anon.getByLabel('Your name').fill('Pat');
    await anon.getByLabel('Password', { exact: true }).fill('password1');
    await anon.getByLabel('Repeat the password').fill('password1');
    await anon.evaluate('document.getElementById("email").type = "text"');
    await anon.getByRole('button', { name: 'Create the account' }).click();
    await anon.getByRole('alert').first().waitFor();
    await check(t, anon, 'sign-up with errors');
    await anon.goto(`${server.issuer}/account/signup/code`);
    await check(t, anon, 'sign-up code');
    await anon.goto(`${server.issuer}/account/signup/verify?token=${'A'.repeat(43)}`);
    await check(t, anon, 'confirm a sign-up');
    await anon.goto(`${server.issuer}/interaction/${'x'.repeat(22)}`);
    await check(t, anon, 'an error page');
    await anon.goto(`${server.issuer}/device`);
    await check(t, anon, 'device code entry');
    await anon.getByLabel(/code/i).first().fill('BCDF-GHJK');
    await anon.getByRole('button').first().click();
    await anon.waitForLoadState('load');
    await check(t, anon, 'device code entry with an error');
  });

  t.test('the second-factor page passes axe and fits 375 px', async (t) => {
    // Headless Chromium is challenged here (AUTOMATION weighs 40, past the challenge score of 30).
    const server = await listenTestApp(t, { env: { RISK_WEIGHTS: 'AUTOMATION=40' }, notifier: new CapturingNotifier() });
    const context = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 375, height: 740 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    await page.goto(`${server.issuer}/account`);
    await page.getByLabel('Username or email').fill(ALICE.username);
    await page.getByLabel('Password', { exact: true }).fill(ALICE.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    await check(t, page, 'second factor');
    await page.getByLabel('Code').fill('000000');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert').first().waitFor();
    await check(t, page, 'second factor with an error');
  });
});
