// The account page in a real browser (Debian's Chromium through playwright-core), with JavaScript off: sign in
// through it, enrol an authenticator app from the manual key, see the devices, revoke another device.
import t from 'tap';
import { base32Decode } from '../../../src/domain/accounts/base32.js';
import { totp } from '../../../src/domain/accounts/totp.js';
import { ALICE } from '../../helpers/app.js';
import { KEYS_SECRET } from '../../helpers/account.js';
import { HEADLESS_IS_FINE, withChromium } from '../../helpers/chromium.js';
import { listenTestApp } from '../../helpers/listening.js';

await withChromium(t, async (browser) => {
  t.test('a user signs in on the account page, enrols an authenticator app, sees their devices and revokes one', async (t) => {
    const server = await listenTestApp(t, { env: { ...HEADLESS_IS_FINE, ...KEYS_SECRET } });
    const account = `${server.issuer}/account`;
    const signIn = async (javaScriptEnabled: boolean) => {
      const context = await browser.newContext({ javaScriptEnabled, serviceWorkers: 'block' });
      t.teardown(() => context.close());
      const page = await context.newPage();
      await page.goto(account);
      t.equal(page.url(), `${account}/sign-in`, 'without a session the account page sends the browser to sign in');
      await page.getByLabel('Username or email').fill(ALICE.username);
      await page.getByLabel('Password').fill(ALICE.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.waitForURL(account);
      t.equal(await page.title(), 'Your account');
      return page;
    };

    // This browser runs no script at all: every page must work without it.
    const page = await signIn(false);
    t.ok(await page.getByText('(this device)').isVisible(), 'the current device is marked');

    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await page.waitForURL(`${account}/totp`);
    const qr = await page.locator('img.qr').boundingBox();
    t.ok(qr && qr.width > 100 && qr.height > 100, 'the QR code is shown');
    const key = (await page.locator('#manual-key').textContent()) ?? '';
    const secret = base32Decode(key);
    if (!secret) throw new Error(`no manual key: ${key}`);
    await page.getByLabel('Code from the app').fill(totp(secret, new Date()));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL(`${account}?done=totp-enrolled`);
    t.ok(await page.getByText('Your authenticator app is set up.').isVisible());
    t.ok(await page.getByText('An authenticator app is set up').isVisible());

    // The same user on a second browser: a second device.
    const other = await signIn(true);
    await page.reload();
    const devices = page.locator('li[data-device]');
    t.equal(await devices.count(), 2, 'both devices are listed');
    t.match(await devices.first().textContent(), /last seen .* UTC,\s+1 sign-in/);

    await devices
      .filter({ hasNot: page.locator('.current') })
      .getByRole('button', { name: /^Revoke/ })
      .click();
    await page.waitForURL(`${account}?done=device-revoked`);
    t.ok(await page.getByText('The device was revoked').isVisible());
    t.equal(await page.locator('li[data-device]').count(), 1, 'the revoked device is gone from the list');
    t.ok(await page.getByText('(this device)').isVisible(), 'and this one stays');

    await other.goto(account);
    t.equal(other.url(), `${account}/sign-in`, 'the revoked browser is signed out');
  });
});
