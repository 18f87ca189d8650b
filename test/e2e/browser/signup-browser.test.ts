// Sign-up in Chromium, with the verification mailed by a real SMTP server on 127.0.0.1: from an application's
// sign-in page, "Create an account", the code read from the mail and typed, and back to the application signed in,
// where openid-client (v6) redeems the code and reads the new person's verified email (OIDC Core 5.1) from UserInfo. Then the link
// opened in another browser, and a second sign-up with the same address, whose owner gets "you already have an
// account" while the page says what it says to anyone; and a change of email address confirmed by its link.
import * as oidc from 'openid-client';
import type { Page } from 'playwright-core';
import t from 'tap';
import { CONFIDENTIAL } from '../../helpers/app.js';
import { HEADLESS_IS_FINE, withChromium } from '../../helpers/chromium.js';
import { listenTestApp } from '../../helpers/listening.js';
import { startMailServer } from '../../helpers/mail-server.js';
import { discoverConfidential, prepareAttempt, redeem } from '../../helpers/relying-party.js';

const REDIRECT_URI = CONFIDENTIAL.redirect_uris[0]!;
const PASSWORD = 'mock turtle soup recipe';

async function fillSignup(page: Page, email: string, name: string) {
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Your name').fill(name);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Repeat the password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create the account' }).click();
  await page.getByRole('heading', { name: 'Confirm your email address' }).waitFor();
}

await withChromium(t, async (browser) => {
  const mail = await startMailServer(t);
  const server = await listenTestApp(t, {
    env: {
      ...HEADLESS_IS_FINE,
      SIGNUP: 'open',
      NOTIFIER: 'smtp',
      SMTP_URL: mail.url(),
      MAIL_FROM: 'sso@example.com',
      OUTBOX_POLL_SECONDS: '1',
    },
  });

  t.test('from the sign-in page: create an account, type the mailed code, and go on to the application signed in', async (t) => {
    const context = await browser.newContext({ serviceWorkers: 'block' });
    t.teardown(() => context.close());
    const page = await context.newPage();
    let captured: URL | undefined;
    await page.route(`${REDIRECT_URI}*`, async (route) => {
      captured = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Callback</title>' });
    });
    const attempt = await prepareAttempt(await discoverConfidential(server), REDIRECT_URI);
    await page.goto(attempt.authorizationUrl.href);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Password', { exact: true }).fill('qwertyuiop');
    await page.getByLabel('Email address').fill('gryphon@example.org');
    await page.getByLabel('Your name').fill('Gryphon');
    await page.getByLabel('Repeat the password').fill('qwertyuiop');
    await page.getByRole('button', { name: 'Create the account' }).click();
    t.match(await page.locator('#password-error').textContent(), 'most common', 'a breached password is refused, tied to its field');
    await fillSignup(page, 'gryphon@example.org', 'Gryphon');

    const message = await mail.next('gryphon@example.org', 1, 20_000);
    t.match(message.subject, 'Confirm your email address');
    const code = /^ {4}(\d{6})$/m.exec(message.text ?? '')?.[1];
    t.ok(code, 'the mail holds the code');
    await page.getByLabel('Code').fill(code!);
    await page.getByRole('button', { name: 'Confirm' }).click();

    await page.getByRole('heading', { name: 'Allow access?' }).waitFor();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${REDIRECT_URI}*`);
    const tokens = await redeem(attempt, captured!);
    // OIDC Core 5.4: with an access token, the scopes' claims come from the UserInfo endpoint.
    const claims = await oidc.fetchUserInfo(attempt.config, tokens.access_token, tokens.claims()!.sub);
    t.equal(claims.email, 'gryphon@example.org');
    t.equal(claims.email_verified, true, 'verified by the code');
    t.equal(claims.name, 'Gryphon');
  });

  t.test(
    'the mailed link, opened in another browser, confirms and signs that browser in; a second sign-up only tells the owner',
    async (t) => {
      const first = await browser.newContext({ serviceWorkers: 'block' });
      const phone = await browser.newContext({ serviceWorkers: 'block' });
      t.teardown(async () => {
        await first.close();
        await phone.close();
      });
      const page = await first.newPage();
      await page.goto(`${server.issuer}/account/signup`);
      await fillSignup(page, 'duchess@example.org', 'Duchess');
      const message = await mail.next('duchess@example.org', 1, 20_000);
      const link = /(http:\/\/\S+\/sso\/account\/signup\/verify\?token=[A-Za-z0-9_-]{43})/.exec(message.text ?? '')?.[1];
      t.ok(link, 'the mail holds the link');
      const other = await phone.newPage();
      await other.goto(link!);
      await other.getByRole('button', { name: 'Confirm my email address' }).click();
      await other.getByRole('heading', { name: 'Your account' }).waitFor();
      t.match(await other.getByRole('status').textContent(), 'Welcome!');

      const again = await first.newPage();
      await again.goto(`${server.issuer}/account/signup`);
      await fillSignup(again, 'duchess@example.org', 'Someone else');
      const told = await mail.next('duchess@example.org', 2, 20_000);
      t.match(told.subject, 'You already have a');
      t.match(told.text, 'No second account was made.');
      await again.getByLabel('Code').fill('123456');
      await again.getByRole('button', { name: 'Confirm' }).click();
      t.match(await again.getByRole('alert').textContent(), 'That code is not right', 'the page behaves as for any address');
    },
  );

  t.test('the account page changes the email address: the link mailed to the new address makes it so', async (t) => {
    const context = await browser.newContext({ serviceWorkers: 'block' });
    t.teardown(() => context.close());
    const page = await context.newPage();
    await page.goto(`${server.issuer}/account`);
    await page.getByLabel('Username or email').fill('gryphon@example.org');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('link', { name: 'Change your email address' }).click();
    await page.getByLabel('New email address').fill('gryphon@example.net');
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Send the link' }).click();
    t.match(await page.getByRole('status').textContent(), 'We have sent a link to the new address.');
    const notice = await mail.next('gryphon@example.org', 2, 20_000);
    t.match(notice.text, 'g***@example.net', 'the old address is told, the new one masked');
    const message = await mail.next('gryphon@example.net', 1, 20_000);
    const link = /(http:\/\/\S+\/sso\/account\/email\/verify\?token=[A-Za-z0-9_-]{43})/.exec(message.text ?? '')?.[1];
    t.ok(link, 'the new address gets the link');
    await page.goto(link!);
    await page.getByRole('button', { name: 'Use this address' }).click();
    t.match(await page.getByRole('status').textContent(), 'Your account uses gryphon@example.net from now on.');
    await page.goto(`${server.issuer}/account`);
    t.match(await page.locator('main').textContent(), 'gryphon@example.net (confirmed)');
  });
});
