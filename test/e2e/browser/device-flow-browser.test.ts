// The device authorization grant end to end: openid-client v6 as the device (initiateDeviceAuthorization, then
// pollDeviceAuthorizationGrant) against the provider listening on loopback, while a person answers on the
// verification page in Debian's Chromium (playwright-core): once approving, with JavaScript; once denying, without.
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { ALICE } from '../../helpers/app.js';
import { HEADLESS_IS_FINE, withChromium } from '../../helpers/chromium.js';
import { CLI, DEVICE_FIXTURES, TV } from '../../helpers/device.js';
import { listenTestApp, type ListeningApp } from '../../helpers/listening.js';
import { discover } from '../../helpers/relying-party.js';

type Outcome = { tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers } | { error: unknown };

/** The provider with a one-second polling interval, so that the device's polls come quickly. */
function server(t: Test): Promise<ListeningApp> {
  return listenTestApp(t, { seed: DEVICE_FIXTURES, env: { ...HEADLESS_IS_FINE, DEVICE_CODE_INTERVAL_SECONDS: '1' } });
}

/** The device polls in the background until the user has decided (or a minute has passed). */
function startPolling(config: oidc.Configuration, response: oidc.DeviceAuthorizationResponse): Promise<Outcome> {
  return oidc.pollDeviceAuthorizationGrant(config, response, undefined, { signal: AbortSignal.timeout(60_000) }).then(
    (tokens) => ({ tokens }),
    (error: unknown) => ({ error }),
  );
}

async function openPage(t: Test, browser: Browser, javaScriptEnabled: boolean): Promise<Page> {
  const context = await browser.newContext({ javaScriptEnabled, serviceWorkers: 'block' });
  t.teardown(() => context.close());
  return context.newPage();
}

/** Signs in on the device sign-in page and waits for the confirmation. */
async function signIn(page: Page): Promise<void> {
  await page.getByLabel('Username or email').fill(ALICE.username);
  await page.getByLabel('Password').fill(ALICE.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Connect this device?' }).waitFor();
}

async function browserTests(browser: Browser): Promise<void> {
  t.test(
    'a device gets tokens and a valid ID token with openid-client while the user types the code and approves in Chromium',
    async (t) => {
      const provider = await server(t);
      const config = await discover(provider, TV.client_id, oidc.ClientSecretBasic(TV.client_secret), TV.client_secret);
      t.equal(config.serverMetadata().device_authorization_endpoint, `${provider.issuer}/device_authorization`, 'discovered');
      const authorization = await oidc.initiateDeviceAuthorization(config, { scope: 'openid profile email offline_access' });
      t.match(authorization.user_code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
      t.equal(authorization.verification_uri, `${provider.issuer}/device`);
      const polling = startPolling(config, authorization);

      const page = await openPage(t, browser, true);
      const consoleErrors: string[] = [];
      page.on('console', (message) => {
        // The browser's own favicon request is no page's doing.
        if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) consoleErrors.push(message.text());
      });
      const entry = await page.goto(authorization.verification_uri);
      t.equal(entry?.status(), 200);
      t.equal(await page.title(), 'Connect a device');
      await page.getByLabel('Code').fill(authorization.user_code.toLowerCase());
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
      t.equal(await page.locator('p.lead').textContent(), `to continue to ${TV.client_name}`);
      await signIn(page);
      t.equal(await page.locator('#client').textContent(), TV.client_name);
      t.equal(
        await page.locator('#device').textContent(),
        'Unknown browser on an unknown system',
        "the device's label, from openid-client's user agent",
      );
      t.match(await page.locator('#asked').textContent(), /^less than a minute ago \(\d\d:\d\d UTC\)$/);
      t.equal(await page.locator('#account').textContent(), 'alice');
      t.same(await page.locator('ul.scopes li').allTextContents(), [
        'Sign you in with your account identifier',
        'Your name and basic profile',
        'Your email address',
        'Keep access while you are not using the app',
      ]);
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.getByRole('heading', { name: 'Device connected' }).waitFor();

      const outcome = await polling;
      if (!('tokens' in outcome)) throw outcome.error;
      const { tokens } = outcome;
      t.equal(tokens.token_type, 'bearer', 'openid-client lower-cases the token type');
      t.type(tokens.access_token, 'string');
      t.type(tokens.refresh_token, 'string', 'offline_access was approved');
      const claims = tokens.claims();
      t.ok(claims, 'an ID token, validated by openid-client (signature, iss, aud, exp, iat)');
      t.equal(claims!.iss, provider.issuer);
      t.equal(claims!.aud, TV.client_id);
      t.same(claims!.amr, ['pwd']);
      t.type(claims!.sid, 'string');
      t.type(claims!.auth_time, 'number');
      const info = await oidc.fetchUserInfo(config, tokens.access_token, claims!.sub);
      t.equal(info.name, 'Alice Liddell');
      t.equal(info.email, 'alice@example.com');
      t.same(consoleErrors, [], 'no console errors (CSP violations included)');
    },
  );

  t.test('a public device gets access_denied when the user opens verification_uri_complete without JavaScript and denies', async (t) => {
    const provider = await server(t);
    const config = await discover(provider, CLI.client_id, oidc.None());
    const authorization = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    t.type(authorization.verification_uri_complete, 'string');
    const polling = startPolling(config, authorization);

    const page = await openPage(t, browser, false);
    await page.goto(authorization.verification_uri_complete!);
    t.equal(await page.getByLabel('Code').inputValue(), authorization.user_code, 'the code is filled in from the link');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
    await signIn(page);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByRole('heading', { name: 'Request denied' }).waitFor();

    const outcome = await polling;
    t.ok('error' in outcome, 'the device gets no tokens');
    const error = (outcome as { error: unknown }).error;
    t.type(error, oidc.ResponseBodyError);
    t.equal((error as oidc.ResponseBodyError).error, 'access_denied');
  });
}

await withChromium(t, browserTests);
