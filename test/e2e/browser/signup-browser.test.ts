// Sign-up in Chromium, with the verification mailed by a real SMTP server on 127.0.0.1: from an application's
// sign-in page, "Create an account", the code read from the mail and typed, and back to the application signed in,
// where openid-client (v6) redeems the code and reads the new person's verified email (OIDC Core 5.1) from UserInfo. Then the link
// opened in another browser, and a second sign-up with the same address, whose owner gets "you already have an
// account" while the page says what it says to anyone; and a change of email address confirmed by its link. All in
// French: each browser context asks for it (Accept-Language: fr-FR), and the selectors are the French wording of
// src/i18n/locales/fr.ts, so each step shows the page and the mail speak it (French puts a no-break space, U+00A0,
// before ? ! : ;).
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
/** A browser context that asks for French (playwright's locale sets Accept-Language: fr-FR). */
const FRENCH = { serviceWorkers: 'block', locale: 'fr-FR' } as const;

async function fillSignup(page: Page, email: string, name: string) {
  await page.getByLabel('Adresse e-mail').fill(email);
  await page.getByLabel('Votre nom').fill(name);
  await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Répétez le mot de passe').fill(PASSWORD);
  await page.getByRole('button', { name: 'Créer le compte' }).click();
  await page.getByRole('heading', { name: 'Confirmez votre adresse e-mail' }).waitFor();
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
    const context = await browser.newContext(FRENCH);
    t.teardown(() => context.close());
    const page = await context.newPage();
    let captured: URL | undefined;
    await page.route(`${REDIRECT_URI}*`, async (route) => {
      captured = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Callback</title>' });
    });
    const attempt = await prepareAttempt(await discoverConfidential(server), REDIRECT_URI);
    await page.goto(attempt.authorizationUrl.href);
    t.equal(await page.locator('html').getAttribute('lang'), 'fr', 'the sign-in page says it speaks French');
    await page.getByRole('link', { name: 'Créer un compte' }).click();
    await page.getByLabel('Mot de passe', { exact: true }).fill('qwertyuiop');
    await page.getByLabel('Adresse e-mail').fill('gryphon@example.org');
    await page.getByLabel('Votre nom').fill('Gryphon');
    await page.getByLabel('Répétez le mot de passe').fill('qwertyuiop');
    await page.getByRole('button', { name: 'Créer le compte' }).click();
    t.match(await page.locator('#password-error').textContent(), 'les plus courants', 'a breached password is refused, tied to its field');
    await fillSignup(page, 'gryphon@example.org', 'Gryphon');

    const message = await mail.next('gryphon@example.org', 1, 20_000);
    t.match(message.subject, 'Confirmez votre adresse e-mail pour', 'the mail speaks French, as the page that queued it');
    const code = /^ {4}(\d{6})$/m.exec(message.text ?? '')?.[1];
    t.ok(code, 'the mail holds the code');
    await page.getByLabel('Code').fill(code!);
    await page.getByRole('button', { name: 'Confirmer' }).click();

    await page.getByRole('heading', { name: 'Autoriser l’accès\u00a0?' }).waitFor();
    await page.getByRole('button', { name: 'Autoriser' }).click();
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
      const first = await browser.newContext(FRENCH);
      const phone = await browser.newContext(FRENCH);
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
      t.match(message.text, 'Ou confirmez avec ce lien');
      const other = await phone.newPage();
      await other.goto(link!);
      await other.getByRole('button', { name: 'Confirmer mon adresse e-mail' }).click();
      await other.getByRole('heading', { name: 'Votre compte' }).waitFor();
      t.match(await other.getByRole('status').textContent(), 'Bienvenue\u00a0! Votre adresse e-mail est confirmée');

      const again = await first.newPage();
      await again.goto(`${server.issuer}/account/signup`);
      await fillSignup(again, 'duchess@example.org', 'Someone else');
      const told = await mail.next('duchess@example.org', 2, 20_000);
      t.match(told.subject, 'Vous avez déjà un compte');
      t.match(told.text, 'Aucun second compte n’a été créé.');
      await again.getByLabel('Code').fill('123456');
      await again.getByRole('button', { name: 'Confirmer' }).click();
      t.match(await again.getByRole('alert').textContent(), 'Ce code n’est pas correct', 'the page behaves as for any address');
    },
  );

  t.test('the account page changes the email address: the link mailed to the new address makes it so', async (t) => {
    const context = await browser.newContext(FRENCH);
    t.teardown(() => context.close());
    const page = await context.newPage();
    await page.goto(`${server.issuer}/account`);
    await page.getByLabel('Nom d’utilisateur ou adresse e-mail').fill('gryphon@example.org');
    await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
    await page.getByRole('link', { name: 'Changer votre adresse e-mail' }).click();
    await page.getByLabel('Nouvelle adresse e-mail').fill('gryphon@example.net');
    await page.getByLabel('Votre mot de passe').fill(PASSWORD);
    await page.getByRole('button', { name: 'Envoyer le lien' }).click();
    t.match(await page.getByRole('status').textContent(), 'Nous avons envoyé un lien à la nouvelle adresse.');
    const notice = await mail.next('gryphon@example.org', 2, 20_000);
    t.match(notice.subject, 'Votre adresse e-mail');
    t.match(notice.subject, 'est en cours de modification');
    t.match(notice.text, 'g***@example.net', 'the old address is told, the new one masked');
    const message = await mail.next('gryphon@example.net', 1, 20_000);
    t.match(message.subject, 'Confirmez votre nouvelle adresse e-mail pour');
    const link = /(http:\/\/\S+\/sso\/account\/email\/verify\?token=[A-Za-z0-9_-]{43})/.exec(message.text ?? '')?.[1];
    t.ok(link, 'the new address gets the link');
    await page.goto(link!);
    await page.getByRole('button', { name: 'Utiliser cette adresse' }).click();
    t.match(await page.getByRole('status').textContent(), 'Votre compte utilise désormais gryphon@example.net.');
    await page.goto(`${server.issuer}/account`);
    t.match(await page.locator('main').textContent(), 'gryphon@example.net (confirmée)');
  });
});
