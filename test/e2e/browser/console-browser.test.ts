// The web console in Chromium (issue 20): an admin signs in through the provider's own pages with a password and a
// second factor, which the console's client requires whatever the risk verdict (`require_mfa`): the one-time code
// sent to her verified address, read from the notifier as she reads her message. She creates a client, disables a
// user, makes a SCIM token (shown once); axe-core (WCAG 2.1 AA) finds no violation on any console page, in the light
// colour scheme and in the dark one (prefers-color-scheme), each page loaded once and checked in both: the groups and
// webhooks pages, the seeded connection, SAML service provider, directory and resource server, and the 412 page of a stale form included;
// then every list and edit page again in German, in the light scheme, and in French, in the dark one: a translation
// changes the words, not the colours, so each page is still checked in both schemes, with longer words in each.
import t from 'tap';
import type { Page } from 'playwright-core';
import type { Test } from 'tap';
import { checkPage as checkSchemes, type ColorScheme } from '../../helpers/axe.js';
import { withChromium } from '../../helpers/chromium.js';
import { listenTestApp } from '../../helpers/listening.js';
import { CapturingNotifier } from '../../helpers/notifier.js';
import { riskEnv, weightsEnv } from '../../helpers/risk.js';
import { findUserByUsername } from '../../../src/storage/users.js';
import { pauseWebhookSubscription } from '../../../src/storage/webhooks.js';
import { SP_ENTITY_ID, spMetadata } from '../../helpers/saml-idp/sp-metadata.js';

/**
 * axe in the light colour scheme and in the dark one (the console's CSS follows prefers-color-scheme), once each, or
 * in `schemes` only, and in each the page is drawn in that scheme.
 */
async function checkPage(t: Test, page: Page, name: string, schemes?: readonly ColorScheme[]): Promise<void> {
  const drawnIn = async (colorScheme: ColorScheme) => {
    const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    t.equal(background, colorScheme === 'dark' ? 'rgb(17, 24, 39)' : 'rgb(243, 244, 246)', `${name}: drawn in the ${colorScheme} scheme`);
  };
  await checkSchemes(t, page, name, drawnIn, schemes);
}

const ADMIN = { username: 'ada', password: 'ada-password-0123', email: 'ada@example.com', email_verified: true, role: 'admin' as const };
const TARGET = { username: 'tom', password: 'tom-password-0123', email: 'tom@example.com' };

await withChromium(t, async (browser) => {
  t.test('an admin signs in with a second factor, creates a client and disables a user; no page has an axe violation', async (t) => {
    const notifier = new CapturingNotifier();
    // Headless Chromium says it is automated, on a new device and network: those weigh nothing here, so that the risk
    // engine lets the sign-in in and only the console client's rule asks for the second factor.
    const server = await listenTestApp(t, {
      env: riskEnv({ RISK_WEIGHTS: weightsEnv({ AUTOMATION: 0, NEW_DEVICE: 0, NEW_NETWORK: 0 }) }),
      notifier,
      seed: {
        clients: [],
        users: [ADMIN, TARGET],
        groups: [{ name: 'finance', description: 'The finance team', members: [TARGET.username] }],
        webhooks: [{ id: 'siem', url: 'https://siem.example/in', events: ['sign_in.failed'], secret: 's'.repeat(32) }],
        resource_servers: [{ identifier: 'https://orders.example/api', name: 'Orders', scopes: { 'orders:read': 'Read your orders' } }],
        connections: [{ id: 'gitlab', preset: 'gitlab', client_id: 'gitlab-client', client_secret: 'gitlab-secret-0123456789' }],
        saml_service_providers: [{ metadata_xml: await spMetadata(), idp_initiated: true }],
        directories: [
          {
            id: 'corp',
            display_name: 'Corporate directory',
            url: 'ldaps://127.0.0.1:1',
            start_tls: false,
            allow_plain_ldap: false,
            bind_dn: 'cn=sso,dc=example,dc=com',
            bind_password: 'bind-password-0123456789',
            user_base: 'ou=people,dc=example,dc=com',
            user_filter: '(uid={login})',
            attributes: { username: 'uid', id_attribute: 'entryUUID', email_verified: false },
            connect_timeout_ms: 3000,
            operation_timeout_ms: 5000,
            enabled: true,
            order: 0,
          },
        ],
      },
    });
    const adminId = (await findUserByUsername(server.db, ADMIN.username))!.id;
    const targetId = (await findUserByUsername(server.db, TARGET.username))!.id;
    const context = await browser.newContext({ serviceWorkers: 'block' });
    t.teardown(() => context.close());
    const page = await context.newPage();
    const console = `${server.baseUrl}/admin`;

    await page.goto(console);
    await page.getByLabel('Username or email').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    await page.getByLabel('Code').fill(await notifier.code(adminId));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Allow access?' }).waitFor();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(console);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    t.ok(await page.getByText('ada (admin)').isVisible(), 'signed in as the admin');
    await checkPage(t, page, 'dashboard');

    await page.getByRole('link', { name: 'Clients' }).click();
    await page.waitForURL(`${console}/clients`);
    await checkPage(t, page, 'clients');
    await page.getByRole('link', { name: 'New client' }).click();
    await checkPage(t, page, 'new client');
    await page.getByLabel('Client id').fill('billing');
    await page.getByLabel('Name', { exact: true }).fill('Billing');
    await page.getByLabel('Redirect URIs (one per line)', { exact: true }).fill('https://billing.example/cb');
    await page.getByRole('button', { name: 'Create client' }).click();
    await page.getByRole('heading', { name: 'Client created' }).waitFor();
    t.match(await page.locator('code.secret').textContent(), /^[A-Za-z0-9_-]{40,}$/, 'the secret is shown once');
    await checkPage(t, page, 'client created');
    await page.getByRole('link', { name: 'Back to billing' }).click();
    await page.getByRole('heading', { name: 'Client billing' }).waitFor();
    await checkPage(t, page, 'client');
    await page.getByRole('link', { name: 'Delete this client' }).click();
    await checkPage(t, page, 'delete client');

    await page.getByRole('link', { name: 'Users' }).click();
    await checkPage(t, page, 'users');
    await page.getByRole('link', { name: TARGET.username }).click();
    await page.waitForURL(`${console}/users/${targetId}`);
    await checkPage(t, page, 'user');
    await page.getByRole('button', { name: 'Disable user' }).click();
    await page.waitForURL(`${console}/users/${targetId}?done=disabled`);
    t.ok(await page.getByText('User disabled').isVisible());
    t.ok((await findUserByUsername(server.db, TARGET.username))!.disabled_at, 'the user is disabled');
    await page.goto(`${console}/users/new`);
    await checkPage(t, page, 'new user');

    await page.getByRole('link', { name: 'SCIM tokens' }).click();
    await checkPage(t, page, 'scim tokens');
    await page.getByRole('link', { name: 'New SCIM token' }).click();
    await checkPage(t, page, 'new scim token');
    await page.getByLabel(/^Name/).fill('entra');
    await page.getByRole('button', { name: 'Create SCIM token' }).click();
    await page.getByRole('heading', { name: 'SCIM token created' }).waitFor();
    t.match(await page.locator('code.secret').textContent(), /^scim_[A-Za-z0-9_-]{43}$/, 'the token is shown once');
    await checkPage(t, page, 'scim token created');
    await page.getByRole('link', { name: 'Back to entra' }).click();
    await page.getByRole('heading', { name: 'SCIM token entra' }).waitFor();
    await checkPage(t, page, 'scim token');

    // A form sent after someone else changed the group: the 412 page, with the group as it is now.
    const groupId = (await server.db.selectFrom('groups').select('id').executeTakeFirstOrThrow()).id;
    await page.goto(`${console}/groups/${groupId}`);
    await server.db.updateTable('groups').set({ description: 'Changed meanwhile' }).where('id', '=', groupId).execute();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('changed by someone else').waitFor();
    t.equal(await page.getByLabel('Description (optional)').inputValue(), 'Changed meanwhile', 'the form shows the group as it is now');
    await checkPage(t, page, 'changed meanwhile (412)');

    await pauseWebhookSubscription(server.db, 'siem', 'failed 8 times in a row', new Date());
    for (const [name, path] of [
      ['risk rules', '/risk-rules'],
      ['security events', '/security-events'],
      ['signing keys', '/signing-keys'],
      ['groups', '/groups'],
      ['new group', '/groups/new'],
      ['group', `/groups/${groupId}`],
      ['webhooks', '/webhooks'],
      ['new webhook', '/webhooks/new'],
      ['webhook', '/webhooks/siem'],
      ['connections', '/connections'],
      ['connection', '/connections/gitlab'],
      ['new connection', '/connections/new'],
      ['SAML service providers', '/saml-service-providers'],
      ['SAML service provider', `/saml-service-providers/${encodeURIComponent(SP_ENTITY_ID)}`],
      ['new SAML service provider', '/saml-service-providers/new'],
      ['delete SAML service provider', `/saml-service-providers/${encodeURIComponent(SP_ENTITY_ID)}/delete`],
      ['directories', '/directories'],
      ['directory', '/directories/corp'],
      ['resource servers', '/resource-servers'],
      ['resource server', `/resource-servers/${encodeURIComponent('https://orders.example/api')}`],
      ['delete resource server', `/resource-servers/${encodeURIComponent('https://orders.example/api')}/delete`],
      ['audit log', '/audit'],
    ] as const) {
      t.equal((await page.goto(`${console}${path}`))?.status(), 200, `${name}: found`);
      await checkPage(t, page, name);
    }
    t.match(await page.locator('table').textContent(), /admin\.user\.disabled/, 'the audit log shows the change');

    // The same pages in German and French (issue 38): longer words, other quotes, the same WCAG 2.1 AA. Each language
    // in one scheme, so that every page is checked once more in each scheme: German in the light one, French in dark.
    const RS = encodeURIComponent('https://orders.example/api');
    for (const [locale, scheme] of [
      ['de', 'light'],
      ['fr', 'dark'],
    ] as const) {
      await page.setExtraHTTPHeaders({ 'accept-language': locale });
      for (const path of [
        '',
        '/clients',
        '/clients/billing',
        '/clients/new',
        '/clients/billing/delete',
        '/users',
        `/users/${targetId}`,
        '/users/new',
        '/groups',
        `/groups/${groupId}`,
        `/groups/${groupId}/delete`,
        '/webhooks',
        '/webhooks/siem',
        '/webhooks/siem/delete',
        '/connections',
        '/connections/gitlab',
        '/saml-service-providers',
        `/saml-service-providers/${encodeURIComponent(SP_ENTITY_ID)}`,
        '/directories',
        '/directories/corp',
        '/resource-servers',
        `/resource-servers/${RS}`,
        '/scim-tokens',
        '/scim-tokens/entra',
        '/scim-tokens/entra/revoke',
        '/risk-rules',
        '/security-events',
        '/signing-keys',
        '/audit',
      ]) {
        t.equal((await page.goto(`${console}${path}`))?.status(), 200, `${locale} ${path || '/'}: found`);
        t.equal(await page.getAttribute('html', 'lang'), locale, `${locale} ${path || '/'}: in ${locale}`);
        await checkPage(t, page, `${locale} ${path || '/'}`, [scheme]);
      }
    }
  });
});
