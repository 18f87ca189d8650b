// Passkeys in a real browser: Debian's Chromium through playwright-core, with Chromium's virtual authenticator
// (DevTools protocol, WebAuthn domain: CTAP2, internal, resident keys, user verification). The person registers a
// passkey on the account page, signs out, signs in with it alone at an authorization request of openid-client (v6),
// whose ID token says amr hwk, user, mfa (RFC 8176 2), answers a risk challenge of a password sign-in with it, and
// renames and deletes it. Headless Chromium says it is automated, so the risk engine challenges its password sign-ins
// (riskEnv: AUTOMATION 60, CHALLENGE at 30); the first is answered with the code the notifier captured.
// WebAuthn needs a secure context and a domain as RP ID: the issuer is http://localhost:<port> (WebAuthn L3 §5.1.2
// RP ID; http://localhost is potentially trustworthy in Secure Contexts §3.1), served on 127.0.0.1.
// All in German, named by the wording of src/i18n/locales/de.ts: the browser context asks for it (Accept-Language:
// de-DE), except at the password sign-in the passkey answers as a second factor, where the browser prefers English
// (its sign-out page is English) and the authorization request asks for German (ui_locales=de, OIDC Core 3.1.2.1),
// which wins.
import t from 'tap';
import { ALICE, CONFIDENTIAL } from '../../helpers/app.js';
import { withChromium } from '../../helpers/chromium.js';
import { listenTestApp } from '../../helpers/listening.js';
import { CapturingNotifier } from '../../helpers/notifier.js';
import { discoverConfidential, prepareAttempt, redeem, type Attempt } from '../../helpers/relying-party.js';
import { riskEnv } from '../../helpers/risk.js';
import { findUserByUsername } from '../../../src/storage/users.js';

const REDIRECT_URI = CONFIDENTIAL.redirect_uris[0]!;

await withChromium(t, async (browser) => {
  t.test('a passkey registered on the account page signs in alone, answers a risk challenge, and is renamed and deleted', async (t) => {
    const notifier = new CapturingNotifier();
    const server = await listenTestApp(t, { env: riskEnv(), notifier, hostName: 'localhost' });
    t.match(server.issuer, /^http:\/\/localhost:\d+\/sso$/, 'the issuer is named by host name: the RP ID is localhost');
    const account = `${server.issuer}/account`;
    const aliceId = (await findUserByUsername(server.db, ALICE.username))!.id;

    const context = await browser.newContext({ serviceWorkers: 'block', locale: 'de-DE' });
    t.teardown(() => context.close());
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });
    // The redirect to the client is read from the request itself: page.route does not see every hop of a redirect
    // chain, and the client's host does not resolve here (test/helpers/chromium.ts).
    const seen: URL[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(REDIRECT_URI)) seen.push(new URL(request.url()));
    });
    await page.route(`${REDIRECT_URI}*`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: '<!doctype html><title>Callback</title>' }),
    );
    /** The authorization response to `attempt` (known by its state), once the browser is sent there. */
    const callback = async (attempt: Attempt) => {
      const find = () => seen.find((url) => url.searchParams.get('state') === attempt.state);
      for (let waited = 0; !find() && waited < 20_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
      const url = find();
      if (!url) throw new Error('the browser was not sent to the redirect URI');
      // The navigation ends either way: loaded through the route, or refused by the resolver after a redirect.
      await page.waitForURL(`${REDIRECT_URI}*`).catch(() => undefined);
      return url;
    };
    /**
     * page.goto, again when Chromium's error page for a redirect it could not resolve (callback above) landed late and
     * interrupted it: every navigation after a callback goes through here. Under load that error page has come more
     * than once (a CI run saw two in a row), so each retry first lets the interrupting navigation finish.
     */
    const open = async (url: string) => {
      for (let attempt = 1; ; attempt++) {
        try {
          await page.goto(url);
          return;
        } catch (error: unknown) {
          if (attempt === 5 || !String(error).includes('interrupted by another navigation')) throw error;
          await page.waitForLoadState('load').catch(() => undefined);
        }
      }
    };
    const signOut = async () => {
      await open(`${server.issuer}/session/end`);
      await page.getByRole('button', { name: 'Abmelden' }).click();
      await page.getByRole('heading', { name: 'Sie sind abgemeldet' }).waitFor();
    };

    // 1. The account page: the password, challenged (a headless browser), answered with the code sent.
    await page.goto(account);
    await page.getByLabel('Benutzername oder E-Mail-Adresse').fill(ALICE.username);
    await page.getByLabel('Passwort', { exact: true }).fill(ALICE.password);
    await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
    await page.getByRole('heading', { name: 'Bestätigen Sie, dass Sie es sind' }).waitFor();
    t.equal(await page.getByRole('button', { name: 'Passkey verwenden' }).count(), 0, 'no passkey yet: only the code');
    await page.getByLabel('Code').fill(await notifier.code(aliceId));
    await page.getByRole('button', { name: 'Weiter' }).click();
    await page.waitForURL(account);

    // 2. WebAuthn L3 §7.1: a passkey registered; the virtual authenticator holds it as a discoverable credential.
    await page.getByRole('button', { name: 'Passkey hinzufügen' }).click();
    await page.waitForURL(`${account}/passkeys/new`);
    await page.getByLabel('Name').fill('Chromium key');
    await page.getByRole('button', { name: 'Passkey erstellen' }).click();
    await page.waitForURL(`${account}?done=passkey-added`);
    const listed = page.locator('li[data-passkey]');
    t.equal(await listed.count(), 1, 'the passkey is listed');
    t.match(await listed.textContent(), /Chromium key[\s\S]*Hinzugefügt am .* UTC,\s+nie verwendet/);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    t.equal(credentials.length, 1, 'the authenticator holds one credential');
    t.equal(credentials[0]!.isResidentCredential, true, 'a discoverable credential (residentKey required, §5.4.6)');

    // 3. Signed out, the passkey alone signs in at an authorization request, from the username field's autofill
    // (RFC 8176 2: hwk, user, mfa).
    await signOut();
    const config = await discoverConfidential(server);
    const first = await prepareAttempt(config, REDIRECT_URI);
    await open(first.authorizationUrl.href);
    // Chromium's virtual authenticator answers the conditional request at once, as a person picking the passkey from
    // the username field's autofill would (Credential Management mediation "conditional", WebAuthn L3 §5.1.4).
    await page.getByRole('heading', { name: 'Zugriff erlauben?' }).waitFor();
    await page.getByRole('button', { name: 'Erlauben' }).click();
    const signedIn = (await redeem(first, await callback(first))).claims()!;
    t.equal(signedIn.sub, aliceId);
    t.same(signedIn.amr, ['hwk', 'user', 'mfa'], 'the ID token says a hardware key, a verified user, multiple factors');
    const allowed = await server.db
      .selectFrom('security_events')
      .select('details')
      .where('type', '=', 'sign_in_allowed')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    t.equal((allowed.details as { action: string }).action, 'CHALLENGE', 'the risk engine challenged, and the passkey answered');

    // 3b. A browser without conditional mediation: the "Sign in with a passkey" button (consent is remembered now).
    await page.addInitScript('PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);');
    await signOut();
    const viaButton = await prepareAttempt(config, REDIRECT_URI);
    await open(viaButton.authorizationUrl.href);
    await page.getByRole('button', { name: 'Mit einem Passkey anmelden' }).click();
    t.same((await redeem(viaButton, await callback(viaButton))).claims()!.amr, ['hwk', 'user', 'mfa'], 'the button signs in too');

    // 4. A password sign-in challenged by the risk engine: the passkey is offered ahead of the code, and answers.
    // Here the browser prefers English, and the application asks for German with ui_locales: the pages of this
    // authorization request speak German all the same. The header still names de-DE first (at q=0.1): the device's
    // fingerprint reads its first language (src/domain/risk/device-identity.ts), and another one would make this a
    // different device to the risk engine, which would refuse the sign-in. Chromium writes its own q-values for a
    // context's locale, so the header is set on the requests to the issuer.
    const PREFERS_ENGLISH = 'de-DE;q=0.1, en-US';
    await page.route(`${server.issuer}/**`, (route) =>
      route.continue({ headers: { ...route.request().headers(), 'accept-language': PREFERS_ENGLISH } }),
    );
    await open(`${server.issuer}/session/end`);
    t.equal(await page.locator('html').getAttribute('lang'), 'en', 'without ui_locales, this browser gets English');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
    const second = await prepareAttempt(config, REDIRECT_URI, undefined, { ui_locales: 'de' });
    await open(second.authorizationUrl.href);
    t.equal(await page.locator('html').getAttribute('lang'), 'de', 'ui_locales=de wins over Accept-Language');
    await page.getByLabel('Benutzername oder E-Mail-Adresse').fill(ALICE.username);
    await page.getByLabel('Passwort', { exact: true }).fill(ALICE.password);
    await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
    await page.getByRole('heading', { name: 'Bestätigen Sie, dass Sie es sind' }).waitFor();
    await page.getByRole('button', { name: 'Passkey verwenden' }).click();
    const challenged = (await redeem(second, await callback(second))).claims()!;
    t.same(challenged.amr, ['pwd', 'hwk', 'user', 'mfa'], 'the password and the passkey');
    await page.unroute(`${server.issuer}/**`);

    // 5. Renamed and deleted on the account page.
    await open(account);
    await page.getByLabel('Neuer Name für Chromium key').fill('Work laptop');
    await page.getByRole('button', { name: 'Umbenennen' }).click();
    await page.waitForURL(`${account}?done=passkey-renamed`);
    t.match(await page.locator('li[data-passkey] strong').textContent(), 'Work laptop');
    await page.getByRole('button', { name: 'Work laptop löschen' }).click();
    await page.waitForURL(`${account}?done=passkey-deleted`);
    t.equal(await page.locator('li[data-passkey]').count(), 0, 'the passkey is gone');
  });
});
