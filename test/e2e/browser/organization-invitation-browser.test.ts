// An organization's invitation end to end (issue 40): an admin invites bob through the management API, the mail
// arrives at a real SMTP server on 127.0.0.1, Chromium opens its link, is sent to sign in and comes back, accepts,
// and bob is a member with the invited roles. The link is in no log line; used, it shows the one clear page. Each
// page passes axe (WCAG 2.1 AA).
import pino from 'pino';
import t from 'tap';
import { PasswordPolicy } from '../../../src/domain/accounts/password-policy.js';
import type { AdminContext } from '../../../src/domain/admin/admin.js';
import { createOrganization, createOrganizationRole } from '../../../src/domain/organizations/organization-admin.js';
import { findMembership } from '../../../src/storage/organizations.js';
import { findUserByUsername } from '../../../src/storage/users.js';
import { ADMIN_FIXTURES, ADMIN_WRITER, API, clientToken } from '../../helpers/admin-api.js';
import { BOB } from '../../helpers/app.js';
import { checkPage } from '../../helpers/axe.js';
import { HEADLESS_IS_FINE, withChromium } from '../../helpers/chromium.js';
import { listenTestApp } from '../../helpers/listening.js';
import { startMailServer } from '../../helpers/mail-server.js';

await withChromium(t, async (browser) => {
  t.test('bob is invited by mail, signs in from the link, accepts, and is a member with the invited roles', async (t) => {
    const mail = await startMailServer(t);
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
    const server = await listenTestApp(t, {
      seed: ADMIN_FIXTURES,
      logger,
      env: {
        ...HEADLESS_IS_FINE,
        NOTIFIER: 'smtp',
        SMTP_URL: mail.url(),
        MAIL_FROM: 'Example SSO <sso@example.com>',
        OUTBOX_POLL_SECONDS: '1',
      },
    });
    // Bob's address is his, verified: the invitation goes to it.
    await server.db.updateTable('users').set({ email_verified: true }).where('username', '=', BOB.username).execute();
    const bob = (await findUserByUsername(server.db, BOB.username))!;
    const ctx: AdminContext = {
      config: server.config,
      db: server.db,
      clock: () => new Date(),
      log: pino({ level: 'silent' }),
      passwords: undefined as never,
      passwordPolicy: new PasswordPolicy(server.config.passwordPolicy),
    };
    const org = await createOrganization(ctx, { slug: 'acme', display_name: 'Acme Corp' });
    await createOrganizationRole(ctx, 'acme', 'billing');

    const token = await clientToken(server.app, ADMIN_WRITER);
    const created = await server.app.inject({
      method: 'POST',
      url: `${API}/organizations/acme/invitations`,
      headers: { authorization: `Bearer ${token}` },
      payload: { email: BOB.email, roles: ['billing'] },
    });
    t.equal(created.statusCode, 201, created.body);
    t.notMatch(created.body, '/invitations/', 'the answer never holds the link');

    const message = await mail.next(BOB.email, 1, 10_000);
    t.match(message.subject, 'Join Acme Corp on');
    const link = /(http:\/\/\S+\/sso\/invitations\/[A-Za-z0-9_-]{43})/.exec(message.text ?? '')?.[1];
    t.ok(link, 'the text part holds the link');
    t.match(message.html as string, link!, 'and so does the HTML part');

    const context = await browser.newContext({ serviceWorkers: 'block', locale: 'en-US' });
    t.teardown(() => context.close());
    const page = await context.newPage();
    await page.goto(link!);
    await page.getByRole('heading', { name: 'Join Acme Corp' }).waitFor();
    await checkPage(t, page, 'the invitation, not signed in');
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Username or email').fill(BOB.username);
    await page.getByLabel('Password').fill(BOB.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Accept the invitation' }).waitFor();
    t.equal(page.url(), link, 'the sign-in came back to the link');
    t.match(await page.locator('main').textContent(), 'Your roles: member, billing.');
    await page.getByRole('button', { name: 'Accept the invitation' }).click();
    await page.getByRole('heading', { name: 'Welcome to Acme Corp' }).waitFor();
    await checkPage(t, page, 'the invitation accepted');

    const member = await findMembership(server.db, org.id, bob.id);
    t.same(member?.roles, ['member', 'billing'], 'bob holds the invited roles');
    t.equal(member?.source, 'invitation');

    await page.goto(link!);
    await page.getByRole('heading', { name: 'This invitation cannot be used' }).waitFor();
    await checkPage(t, page, 'the used link');

    const secret = link!.slice(link!.lastIndexOf('/') + 1);
    t.ok(
      lines.some((l) => l.includes('/invitations/:token')),
      'the request lines name the route',
    );
    t.notOk(
      lines.some((l) => l.includes(secret)),
      'the link is in no log line',
    );
  });
});
