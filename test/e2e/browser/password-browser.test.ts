// Passwords in Chromium. "Forgot your password?" end to end, with the mail delivered by a real SMTP server on
// 127.0.0.1 that is down when the link is asked for: the link waits in the outbox, arrives once the server is back,
// and, followed, sets a new password; the "password changed" notice follows; the person goes back to the sign-in,
// signs in with the new password, and openid-client (v6) redeems the code; the spent link shows a clear page. And
// changing the password on the account page. All in German: each browser context asks for it (Accept-Language:
// de-DE), and the selectors and the mails' subjects are the German wording of src/i18n/locales/de.ts.
import type { Page } from 'playwright-core';
import t from 'tap';
import { ALICE, CONFIDENTIAL } from '../../helpers/app.js';
import { HEADLESS_IS_FINE, withChromium } from '../../helpers/chromium.js';
import { listenTestApp } from '../../helpers/listening.js';
import { startMailServer } from '../../helpers/mail-server.js';
import { discoverConfidential, prepareAttempt, redeem } from '../../helpers/relying-party.js';
import { findUserByUsername } from '../../../src/storage/users.js';

const REDIRECT_URI = CONFIDENTIAL.redirect_uris[0]!;
const NEW_PASSWORD = 'tea-party at the march hare';
/** A browser context that asks for German (playwright's locale sets Accept-Language: de-DE). */
const GERMAN = { serviceWorkers: 'block', locale: 'de-DE' } as const;

/** The callback reached by the page, intercepted (the client's redirect URI is not served by anyone). */
async function interceptCallback(page: Page): Promise<() => Promise<URL>> {
  let captured: URL | undefined;
  await page.route(`${REDIRECT_URI}*`, async (route) => {
    captured = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Callback</title><p>back</p>' });
  });
  return async () => {
    await page.waitForURL(`${REDIRECT_URI}*`);
    if (!captured) throw new Error('the redirect URI was not intercepted');
    return captured;
  };
}

await withChromium(t, async (browser) => {
  t.test('forgot, mailed link (the mail server down at first), new password, notice, and back to the application', async (t) => {
    // Down, its port held (test/helpers/mail-server.ts): the mail server comes back on the address the app was given.
    const mail = await startMailServer(t, { down: true });
    const server = await listenTestApp(t, {
      env: {
        ...HEADLESS_IS_FINE,
        NOTIFIER: 'smtp',
        SMTP_URL: mail.url(),
        MAIL_FROM: 'Example SSO <sso@example.com>',
        OUTBOX_POLL_SECONDS: '1',
      },
    });
    const aliceId = (await findUserByUsername(server.db, ALICE.username))!.id;
    const context = await browser.newContext(GERMAN);
    t.teardown(() => context.close());
    const page = await context.newPage();
    const callback = await interceptCallback(page);
    const attempt = await prepareAttempt(await discoverConfidential(server), REDIRECT_URI);
    await page.goto(attempt.authorizationUrl.href);

    await page.getByRole('link', { name: 'Passwort vergessen?' }).click();
    await page.getByRole('heading', { name: 'Passwort vergessen?' }).waitFor();
    await page.getByLabel('Benutzername oder E-Mail-Adresse').fill(ALICE.email);
    await page.getByRole('button', { name: 'Link senden' }).click();
    await page.getByRole('heading', { name: 'Prüfen Sie Ihre E-Mails' }).waitFor();
    const waiting = await server.db.selectFrom('outbox').select(['kind', 'sent_at']).where('user_id', '=', aliceId).execute();
    t.same(waiting, [{ kind: 'password-reset', sent_at: null }], 'the link waits in the outbox while the mail server is down');

    mail.up();
    const message = await mail.next(ALICE.email, 1, 20_000);
    t.match(message.subject, /^Passwort für .* zurücksetzen$/, 'the mail speaks German, as the page that asked for it');
    const link = /(http:\/\/\S+\/sso\/account\/reset\?token=[A-Za-z0-9_-]{43})/.exec(message.text ?? '')?.[1];
    t.ok(link, 'the text part holds the link');
    t.match(message.html as string, link!.replace(/&/g, '&amp;'), 'and so does the HTML part');
    t.match(message.html as string, '<html lang="de">', 'which says it is German');

    await page.goto(link!);
    await page.getByRole('heading', { name: 'Neues Passwort wählen' }).waitFor();
    await page.getByLabel('Neues Passwort').fill('password1');
    await page.getByLabel('Passwort wiederholen').fill('password1');
    await page.getByRole('button', { name: 'Neues Passwort festlegen' }).click();
    t.match(await page.locator('.field-error').textContent(), 'zu den häufigsten', 'a breached password is refused on the page');
    await page.getByLabel('Neues Passwort').fill(NEW_PASSWORD);
    await page.getByLabel('Passwort wiederholen').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Neues Passwort festlegen' }).click();
    await page.getByRole('heading', { name: 'Passwort geändert' }).waitFor();

    const notice = await mail.next(ALICE.email, 2, 20_000);
    t.match(notice.subject, /^Ihr Passwort für .* wurde geändert$/);
    t.match(notice.text, 'auf allen Geräten abgemeldet');

    await page.getByRole('link', { name: 'Mit dem neuen Passwort anmelden und fortfahren' }).click();
    await page.getByLabel('Benutzername oder E-Mail-Adresse').fill(ALICE.username);
    await page.getByLabel('Passwort', { exact: true }).fill(ALICE.password);
    await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
    t.match(await page.getByRole('alert').textContent(), 'nicht korrekt', 'the old password no longer works');
    await page.getByLabel('Passwort', { exact: true }).fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
    await page.getByRole('heading', { name: 'Zugriff erlauben?' }).waitFor();
    await page.getByRole('button', { name: 'Erlauben' }).click();
    const tokens = await redeem(attempt, await callback());
    t.equal(tokens.claims()!.sub, aliceId, 'the application gets its ID token for the same person');

    await page.goto(link!);
    await page.getByRole('heading', { name: 'Dieser Link funktioniert nicht mehr' }).waitFor();
    t.pass('the spent link shows a clear page');
    t.equal(mail.received.length, 2, 'two mails, each once');
  });

  t.test('the account page changes the password: the current one first, and this browser stays signed in', async (t) => {
    const server = await listenTestApp(t, { env: HEADLESS_IS_FINE, notifier: null });
    const context = await browser.newContext(GERMAN);
    t.teardown(() => context.close());
    const page = await context.newPage();
    await page.goto(`${server.issuer}/account`);
    await page.getByLabel('Benutzername oder E-Mail-Adresse').fill(ALICE.username);
    await page.getByLabel('Passwort', { exact: true }).fill(ALICE.password);
    await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
    await page.getByRole('link', { name: 'Passwort ändern' }).click();
    t.equal(await page.locator('html').getAttribute('lang'), 'de', 'the page says it speaks German');
    await page.getByLabel('Aktuelles Passwort').fill('not the password');
    await page.getByLabel('Neues Passwort', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Neues Passwort wiederholen').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Passwort ändern' }).click();
    t.equal(await page.locator('#current-error').textContent(), 'Das aktuelle Passwort ist nicht korrekt.');
    t.equal(await page.getByLabel('Aktuelles Passwort').getAttribute('aria-invalid'), 'true', 'the field says it is wrong');
    await page.getByLabel('Aktuelles Passwort').fill(ALICE.password);
    await page.getByLabel('Neues Passwort', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Neues Passwort wiederholen').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Passwort ändern' }).click();
    await page.getByRole('heading', { name: 'Ihr Konto' }).waitFor();
    t.match(await page.getByRole('status').textContent(), 'Ihr Passwort wurde geändert.');
  });
});
