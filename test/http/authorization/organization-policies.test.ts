// An organization's policies at its sign-ins (issue 40): requireSecondFactor asks for the second factor after the
// password whatever the risk verdict; join 'domain' admits a person whose verified address is at one of its verified
// domains (a member from then on, source 'domain'); settings this version cannot read refuse the sign-in. And the
// client setting organization_usage as the seed file, command line and API take it; discovery's org_roles.
import pino from 'pino';
import t from 'tap';
import { PasswordPolicy } from '../../../src/domain/accounts/password-policy.js';
import type { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import type { AdminContext } from '../../../src/domain/admin/admin.js';
import { clientEntryProblems } from '../../../src/domain/client-entry.js';
import { addOrganizationDomain, addOrganizationMember, createOrganization } from '../../../src/domain/organizations/organization-admin.js';
import { findMembership } from '../../../src/storage/organizations.js';
import { findUserByUsername } from '../../../src/storage/users.js';
import { ALICE, BOB, buildTestApp } from '../../helpers/app.js';
import { authorizePath, Browser, formAction, hiddenField, localPath, pkcePair } from '../../helpers/flow.js';
import { CapturingNotifier } from '../../helpers/notifier.js';

const PORTAL = {
  client_id: 'portal',
  client_secret: 'portal-secret-0123456789',
  client_name: 'Partner Portal',
  redirect_uris: ['https://portal.example/cb'],
  organization_usage: 'allow' as const,
};
const testApp = await buildTestApp(t, { notifier: new CapturingNotifier(), seed: { clients: [PORTAL], users: [ALICE, BOB] } });
const { app, db } = testApp;
const admin: AdminContext = {
  config: testApp.config,
  db,
  clock: () => new Date(),
  log: pino({ level: 'silent' }),
  passwords: {} as PasswordHasher,
  passwordPolicy: new PasswordPolicy(testApp.config.passwordPolicy),
};
await createOrganization(admin, { slug: 'secure', display_name: 'Secure', policies: { require_second_factor: true } });
await addOrganizationMember(admin, 'secure', ALICE.username);
const open = await createOrganization(admin, { slug: 'open', display_name: 'Open', policies: { join: 'domain' } });
await addOrganizationDomain(admin, 'open', 'example.com');
await db.updateTable('organization_domains').set({ verified_at: new Date() }).where('domain', '=', 'example.com').execute();
await createOrganization(admin, { slug: 'future', display_name: 'Future' });
await addOrganizationMember(admin, 'future', ALICE.username);
// Written by a newer version: a shape this one does not read.
await db
  .updateTable('organizations')
  .set({ policies: JSON.stringify({ v: 99, anything: true }) as never })
  .where('slug', '=', 'future')
  .execute();

/** GET /authorize for the organization, then the sign-in form with `user`'s password; the response after that post. */
async function passwordFor(organization: string, user: { username: string; password: string }) {
  const browser = new Browser();
  const path = authorizePath({
    response_type: 'code',
    client_id: PORTAL.client_id,
    redirect_uri: PORTAL.redirect_uris[0],
    scope: 'openid',
    state: 'st',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    organization,
  });
  let res = await browser.request(app, 'GET', path);
  while (res.statusCode === 303 && String(res.headers.location).startsWith('http://localhost:3000/sso/'))
    res = await browser.request(app, 'GET', localPath(String(res.headers.location)));
  t.match(res.body, /type="password"/, 'the sign-in page');
  res = await browser.request(app, 'POST', formAction(res.body), {
    csrf: hiddenField(res.body, 'csrf'),
    login: user.username,
    password: user.password,
  });
  return { browser, res };
}

/** Follows the provider's own redirects to the first page or the client. */
async function follow(browser: Browser, res: Awaited<ReturnType<Browser['request']>>) {
  while (res.statusCode === 303 && String(res.headers.location).startsWith('http://localhost:3000/sso/'))
    res = await browser.request(app, 'GET', localPath(String(res.headers.location)));
  return res;
}

t.test('requireSecondFactor: the password alone goes on to the second factor, whatever the risk verdict', async (t) => {
  const { res } = await passwordFor('secure', ALICE);
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, 'http://localhost:3000/sso/sign-in/verify', 'the code page, not the client');
});

t.test("join 'domain': a verified address at a verified domain makes a member (source domain); anybody else is refused", async (t) => {
  const { browser, res } = await passwordFor('open', ALICE);
  const page = await follow(browser, res);
  t.match(page.body, /name="decision"/, 'signed in for it: on to consent');
  const aliceId = (await findUserByUsername(db, ALICE.username))!.id;
  const membership = await findMembership(db, open.id, aliceId);
  t.equal(membership?.source, 'domain');
  t.same(membership?.roles, ['member']);

  // Bob's address is at the same domain but not verified.
  const bob = await passwordFor('open', BOB);
  const refused = await follow(bob.browser, bob.res);
  t.equal(refused.statusCode, 403);
  t.match(refused.body, 'You are not a member of this organization.');
  t.notOk(await findMembership(db, open.id, (await findUserByUsername(db, BOB.username))!.id), 'and no membership');
});

t.test('an organization whose settings this version cannot read refuses its sign-ins', async (t) => {
  const { browser, res } = await passwordFor('future', ALICE);
  const page = await follow(browser, res);
  t.equal(page.statusCode, 403);
  t.match(page.body, 'Signing in for this organization is not possible at the moment.');
});

t.test('organization_usage is none, allow or require in a client entry (seed file, command line, API)', async (t) => {
  const entry = { client_id: 'c', client_secret: 'c-secret-0123456789', redirect_uris: ['https://c.example/cb'] };
  t.same(clientEntryProblems({ ...entry, organization_usage: 'require' }), []);
  t.same(clientEntryProblems({ ...entry, organization_usage: 'sometimes' }), ['organization_usage must be none, allow or require']);
  const row = await db.selectFrom('clients').select('organization_usage').where('client_id', '=', PORTAL.client_id).executeTakeFirst();
  t.equal(row?.organization_usage, 'allow', 'the seed file set the column');
});

t.test('discovery advertises the org_roles scope and the organization claims (OIDC Discovery 3)', async (t) => {
  const doc = (await app.inject({ method: 'GET', url: '/sso/.well-known/openid-configuration' })).json();
  t.ok(doc.scopes_supported.includes('org_roles'));
  for (const claim of ['org_id', 'org_name', 'org_roles']) t.ok(doc.claims_supported.includes(claim), claim);
  t.notOk('organization_usage' in doc, 'client metadata of its own, not a discovery field');
});
