// Every page a person sees, checked in Chromium by axe-core against WCAG 2.1 A and AA (test/helpers/axe.ts): zero
// violations, in the light and the dark colour scheme, with and without an error on the page; and each page fits a
// 375 px wide screen without scrolling sideways. The pages no flow below passes through (the outcomes of a device
// approval, a linking proof, a withheld error, ...) are rendered by their view functions and served as they are. The
// second-factor page is checked in test/e2e/browser/second-factor-browser.test.ts, which reaches it anyway.
// The sign-in and sign-up pages are checked again in German: longer words must still fit, and the page must say its
// language (WCAG 2.1 3.1.1 Language of Page, axe's html-lang-valid) as the one it speaks.
import t from 'tap';
import { translator } from '../../../src/i18n/translate.js';
import { accountErrorPage, accountMessagePage, emailConfirmPage } from '../../../src/http/pages/views/account-pages.js';
import { linkProofPage } from '../../../src/http/views/connection-pages.js';
import { deviceConfirmPage, deviceDonePage } from '../../../src/http/pages/views/device-pages.js';
import { formPostPage } from '../../../src/http/views/form-post.js';
import { deviceNotInGroupPage, notInGroupPage } from '../../../src/http/pages/views/group-pages.js';
import { PAGE_HEADERS, type PageText } from '../../../src/http/views/layout.js';
import { loginPage, logoutConfirmPage, signedOutPage, withheldErrorPage } from '../../../src/http/views/pages.js';
import { resetDonePage, resetManagedPage } from '../../../src/http/pages/views/reset-pages.js';
import { signupEndPage } from '../../../src/http/pages/views/signup-pages.js';
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

  t.test('the pages no flow above reaches pass axe in both colour schemes too', async (t) => {
    const text: PageText = Object.assign(translator('en'), { brand: { name: 'Example SSO', logoUrl: null, stylesheetUrl: null } });
    const back = { url: '/sso/account', label: 'Back to your account' };
    const withheld = {
      redirectUri: 'https://rp.example/cb',
      params: { error: 'invalid_scope', error_description: 'unknown scope', state: 's' },
      mode: 'query' as const,
    };
    const pages: Array<[string, string]> = [
      [
        'sign-in with a notice, a passkey and connections',
        loginPage(text, {
          action: '/sso/interaction/x/login',
          csrfToken: 'c',
          clientName: 'Example App',
          notice: 'You were signed out.',
          forgotUrl: '/sso/account/forgot',
          signupUrl: '/sso/account/signup',
          passkey: { optionsUrl: '/sso/passkey/options', action: '/sso/passkey' },
          connections: { interactionId: 'x', csrfToken: 'c', items: [{ action: '/sso/upstream/a', name: 'Acme', icon: null }] },
        }),
      ],
      ['a withheld error', withheldErrorPage(text, { clientName: 'Example App', response: withheld })],
      ['not in the group', notInGroupPage(text, { clientName: 'Example App', response: withheld })],
      ['device not in the group', deviceNotInGroupPage(text, 'Example TV')],
      [
        'device confirmation of a self-registered client',
        deviceConfirmPage(text, {
          action: '/sso/device/confirm',
          csrfToken: 'c',
          clientName: 'Example TV',
          selfRegistered: true,
          deviceLabel: 'Chromium on Linux',
          requestedAt: new Date('2026-12-01T10:00:00Z'),
          now: new Date('2026-12-01T10:02:00Z'),
          userName: 'Alice',
          scopes: ['openid', 'email'],
          apiScopes: [{ name: 'read', description: 'Read your files' }],
        }),
      ],
      ['device approved', deviceDonePage(text, true)],
      ['device denied', deviceDonePage(text, false)],
      [
        'link an upstream account',
        linkProofPage(text, { action: '/sso/link', provider: 'Acme', email: 'a@example.com', username: 'alice', error: 'Wrong password.' }),
      ],
      [
        'sign out, asked by a client',
        logoutConfirmPage(text, { action: '/sso/session/end', csrfToken: 'c', clientName: 'Example App', hidden: {} }),
      ],
      ['signed out', signedOutPage(text, true)],
      ['stayed signed in', signedOutPage(text, false)],
      [
        'confirm an email change',
        emailConfirmPage(text, { action: '/sso/account/email/confirm', token: 't', newEmail: 'new@example.com' }),
      ],
      ['an account message', accountMessagePage(text, { title: 'Email changed', message: 'Your address is changed.', link: back })],
      ['an account alert', accountMessagePage(text, { title: 'Link expired', message: 'Ask again.', link: back, alert: true })],
      ['an account error', accountErrorPage(text, '/sso/account', 'Not allowed', 'This cannot be done here.')],
      ['password reset done', resetDonePage(text, { continueUrl: '/sso/account', continueLabel: 'Continue' })],
      ['a password the directory manages', resetManagedPage(text, { signInUrl: '/sso/account' })],
      ['sign-up done', signupEndPage(text, { title: 'Account created', message: 'Welcome.', link: back })],
      ['the form_post response', formPostPage(text, { action: 'https://rp.example/cb', params: { code: 'c', state: 's' } })],
    ];
    const context = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 375, height: 740 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    // Served with the pages' own headers: their CSP holds (the form_post page's script does not run, as none of
    // the others would), and nothing reaches the network.
    let body = '';
    await page.route('http://pages.test/**', (route) => route.fulfill({ status: 200, headers: { ...PAGE_HEADERS }, body }));
    for (const [name, markup] of pages) {
      body = markup;
      await page.goto(`http://pages.test/${encodeURIComponent(name)}`);
      await check(t, page, name);
    }
  });
});
