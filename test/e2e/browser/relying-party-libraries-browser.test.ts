// Auth.js and Auth0's express-openid-connect sign alice in against the provider in Chromium and show her name and
// email: both read the ID token only, so this holds because the ID token carries the scope claims (OIDC Core 5.4).
import type { Browser } from 'playwright-core';
import t, { type Test } from 'tap';
import { ALICE, FIXTURES } from '../../helpers/app.js';
import { HEADLESS_IS_FINE, withChromium } from '../../helpers/chromium.js';
import { authJsApp, expressOpenIdConnectApp, type RelyingPartyApp, type RpClient } from '../../helpers/express-relying-parties.js';
import { listenTestApp } from '../../helpers/listening.js';

const AUTHJS: RpClient = { clientId: 'authjs', clientSecret: 'authjs-secret-0123456789abcdef' };
const EOC: RpClient = { clientId: 'express-oidc', clientSecret: 'express-oidc-secret-0123456789' };

/** The provider with the relying party's client registered, then the relying party against it. */
async function startBoth(t: Test, rp: RelyingPartyApp, client: RpClient, env: Record<string, string> = {}) {
  const seed = {
    clients: [
      ...FIXTURES.clients,
      { client_id: client.clientId, client_secret: client.clientSecret, client_name: 'Express RP', redirect_uris: [rp.redirectUri] },
    ],
    users: FIXTURES.users,
  };
  const server = await listenTestApp(t, { seed, env: { ...HEADLESS_IS_FINE, ...env } });
  await rp.start(t, server.issuer);
  return server;
}

async function newPage(t: Test, browser: Browser) {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  t.teardown(() => context.close());
  return context.newPage();
}

async function signInAndAllow(page: Awaited<ReturnType<typeof newPage>>): Promise<void> {
  await page.getByLabel('Username or email').fill(ALICE.username);
  await page.getByLabel('Password').fill(ALICE.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Allow access?' }).waitFor();
  await page.getByRole('button', { name: 'Allow' }).click();
}

async function browserTests(browser: Browser): Promise<void> {
  t.test('OIDC Core 5.4: Auth.js (provider type oidc) signs alice in and shows her name and email', async (t) => {
    const rp = await authJsApp(t, AUTHJS);
    const server = await startBoth(t, rp, AUTHJS);
    const page = await newPage(t, browser);
    await page.goto(`${rp.baseUrl}/auth/signin`);
    await page.getByRole('button', { name: 'Sign in with Our SSO' }).click();
    await page.waitForURL(`${server.issuer}/**`);
    await signInAndAllow(page);
    await page.waitForURL(`${rp.baseUrl}/**`);
    await page.goto(`${rp.baseUrl}/`);
    t.equal(await page.locator('#name').textContent(), ALICE.name);
    t.equal(await page.locator('#email').textContent(), ALICE.email);
  });

  t.test("OIDC Core 5.4: Auth0's express-openid-connect signs alice in and shows her name and email", async (t) => {
    const rp = await expressOpenIdConnectApp(t, EOC);
    const server = await startBoth(t, rp, EOC);
    const page = await newPage(t, browser);
    await page.goto(`${rp.baseUrl}/login`);
    await page.waitForURL(`${server.issuer}/**`);
    await signInAndAllow(page);
    await page.waitForURL(`${rp.baseUrl}/`);
    t.equal(await page.locator('#name').textContent(), ALICE.name);
    t.equal(await page.locator('#email').textContent(), ALICE.email);
  });

  t.test('OIDC Core 5.4: with ID_TOKEN_CLAIMS=minimal, express-openid-connect shows no name: it reads only the ID token', async (t) => {
    const rp = await expressOpenIdConnectApp(t, EOC);
    const server = await startBoth(t, rp, EOC, { ID_TOKEN_CLAIMS: 'minimal' });
    const page = await newPage(t, browser);
    await page.goto(`${rp.baseUrl}/login`);
    await page.waitForURL(`${server.issuer}/**`);
    await signInAndAllow(page);
    await page.waitForURL(`${rp.baseUrl}/`);
    t.equal(await page.locator('#name').textContent(), '', 'signed in, but without a name');
  });
}

await withChromium(t, browserTests);
