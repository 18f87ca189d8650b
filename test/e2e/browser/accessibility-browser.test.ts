// Every page a person sees, checked in Chromium by axe-core against WCAG 2.1 A and AA (test/helpers/axe.ts): zero
// violations, with and without an error on the page; and each page fits a 375 px wide screen without scrolling
// sideways. The second-factor page is checked in test/e2e/browser/second-factor-browser.test.ts, which reaches it anyway.
// The sign-in and sign-up pages are checked again in German: longer words must still fit, and the page must say its
// language (WCAG 2.1 3.1.1 Language of Page, axe's html-lang-valid) as the one it speaks.
import t from 'tap';
import { ALICE, CONFIDENTIAL } from '../../helpers/app.js';
import { checkPage as check } from '../../helpers/axe.js';
import { HEADLESS_IS_FINE, withChromium } from '../../helpers/chromium.js';
import { listenTestApp } from '../../helpers/listening.js';
import { CapturingNotifier } from '../../helpers/notifier.js';
import { discoverConfidential, prepareAttempt } from '../../helpers/relying-party.js';

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

    const german = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 375, height: 740 }, locale: 'de-DE' });
    t.teardown(() => german.close());
    const de = await german.newPage();
    await de.goto((await prepareAttempt(attempt.config, CONFIDENTIAL.redirect_uris[0]!)).authorizationUrl.href);
    t.equal(await de.locator('html').getAttribute('lang'), 'de', 'the German sign-in page says <html lang="de">');
    await check(t, de, 'sign-in in German');
    await de.getByRole('link', { name: 'Konto erstellen' }).click();
    await de.getByRole('heading', { name: 'Konto erstellen' }).waitFor();
    t.equal(await de.locator('html').getAttribute('lang'), 'de', 'the German sign-up page says <html lang="de">');
    await check(t, de, 'sign-up in German');
  });
});
