// An organization's invitations over HTTP (issue 40): the management API's /organizations/{org}/invitations (list,
// create, revoke, resend; answers as openapi.json says; bad input is a 400 problem, never a 500), and the link's page
// {issuer}/invitations/{token} with app.inject: the same page for an unknown, revoked or superseded link; a person
// signed in with another address is refused; a form without the session's CSRF token accepts nothing; the page is
// counted per network before anything is looked up.
import t from 'tap';
import { PasswordPolicy } from '../../../src/domain/accounts/password-policy.js';
import type { AdminContext } from '../../../src/domain/admin/admin.js';
import { createOrganization } from '../../../src/domain/organizations/organization-admin.js';
import { findMembership } from '../../../src/storage/organizations.js';
import { findUserByUsername } from '../../../src/storage/users.js';
import pino from 'pino';
import { accountSignIn } from '../../helpers/account.js';
import { adminApiApp } from '../../helpers/admin-api.js';
import { ALICE, BOB } from '../../helpers/app.js';
import { Browser, hiddenField } from '../../helpers/flow.js';

const api = await adminApiApp(t, { notifier: null });
const ctx: AdminContext = {
  config: api.config,
  db: api.db,
  clock: () => new Date(),
  log: pino({ level: 'silent' }),
  passwords: undefined as never,
  passwordPolicy: new PasswordPolicy(api.config.passwordPolicy),
};
const acme = await createOrganization(ctx, { slug: 'acme', display_name: 'Acme <Corp>' });
await api.db.updateTable('users').set({ email_verified: true }).execute();

/** The link of the last invitation mail queued for `address` (the outbox; the notifier is off). */
async function linkTo(address: string): Promise<string> {
  const rows = await api.db.selectFrom('outbox').select(['payload', 'id']).where('address', '=', address).orderBy('id', 'desc').execute();
  return String((rows[0]!.payload as Record<string, unknown>).url);
}
const pathOf = (link: string) => new URL(link).pathname;

t.test('the API creates, lists, resends and revokes, and answers as openapi.json says', async (t) => {
  const created = await api.call(t, 'POST', '/organizations/acme/invitations', { body: { email: 'new@example.com', roles: [] } });
  t.equal(created.statusCode, 201);
  const body = created.json() as { id: string; state: string; roles: string[] };
  t.equal(body.state, 'pending');
  t.same(body.roles, ['member']);
  t.match(created.headers.location, `/organizations/acme/invitations/${body.id}`);
  const firstLink = await linkTo('new@example.com');

  const listed = await api.call(t, 'GET', `/organizations/${acme.id}/invitations`, { token: api.reader });
  t.same(
    (listed.json() as { items: Array<{ id: string }> }).items.map((i) => i.id),
    [body.id],
    'by id or slug',
  );

  const resent = await api.call(t, 'POST', `/organizations/acme/invitations/${body.id}/resend`, { body: { expires_in_days: 3 } });
  t.equal(resent.statusCode, 200);
  const secondLink = await linkTo('new@example.com');
  t.not(secondLink, firstLink, 'a new link');
  const old = await api.app.inject({ method: 'GET', url: pathOf(firstLink) });
  t.equal(old.statusCode, 404);
  t.match(old.body, 'This invitation cannot be used', 'the old link is dead');

  const bare = await api.call(t, 'POST', `/organizations/acme/invitations/${body.id}/resend`);
  t.equal(bare.statusCode, 400, 'a POST takes a JSON object, as every POST of the API does');
  t.equal(await linkTo('new@example.com'), secondLink, 'nothing sent');
  const again = await api.call(t, 'POST', `/organizations/acme/invitations/${body.id}/resend`, { body: {} });
  t.equal(again.statusCode, 200, 'an empty object: seven days');
  t.not(await linkTo('new@example.com'), secondLink);
  const revoked = await api.call(t, 'DELETE', `/organizations/acme/invitations/${body.id}`);
  t.equal((revoked.json() as { state: string }).state, 'revoked');
  const dead = await api.app.inject({ method: 'GET', url: pathOf(await linkTo('new@example.com')) });
  t.equal(dead.statusCode, 404);
  t.equal(dead.body, old.body, 'the same page for a superseded and a revoked link');
  const unknown = await api.app.inject({ method: 'GET', url: `/sso/invitations/${'A'.repeat(43)}` });
  t.equal(unknown.body, old.body, 'and for an unknown one');

  t.equal((await api.call(t, 'DELETE', `/organizations/acme/invitations/${body.id}`)).statusCode, 409, 'revoked already');
  t.equal((await api.call(t, 'POST', `/organizations/acme/invitations/${body.id}/resend`, { body: {} })).statusCode, 409);
});

t.test('bad input is a 400 problem, an unknown organization or invitation a 404, a reader cannot write', async (t) => {
  t.equal((await api.call(t, 'POST', '/organizations/acme/invitations', { body: { email: 'nope' } })).statusCode, 400);
  t.equal(
    (await api.call(t, 'POST', '/organizations/acme/invitations', { body: { email: 'a@example.com', roles: ['owner'] } })).statusCode,
    400,
  );
  t.equal(
    (await api.call(t, 'POST', '/organizations/acme/invitations', { body: { email: 'a@example.com', expires_in_days: 0 } })).statusCode,
    400,
  );
  t.equal((await api.call(t, 'POST', '/organizations/nowhere/invitations', { body: { email: 'a@example.com' } })).statusCode, 404);
  t.equal((await api.call(t, 'DELETE', '/organizations/acme/invitations/not-an-id')).statusCode, 404);
  t.equal((await api.call(t, 'DELETE', `/organizations/acme/invitations/${acme.id}`)).statusCode, 404);
  const reader = await api.call(t, 'POST', '/organizations/acme/invitations', { token: api.reader, body: { email: 'a@example.com' } });
  t.equal(reader.statusCode, 403);
});

t.test('the page: sign in first; another address is refused; a form without the CSRF token accepts nothing', async (t) => {
  await api.call(t, 'POST', '/organizations/acme/invitations', { body: { email: BOB.email } });
  const path = pathOf(await linkTo(BOB.email));

  const anonymous = await api.app.inject({ method: 'GET', url: path });
  t.equal(anonymous.statusCode, 200);
  t.match(anonymous.body, 'Acme &lt;Corp&gt;', 'the organization, escaped');
  t.match(anonymous.body, 'href="http://localhost:3000/sso/account/sign-in"');
  t.match(String(anonymous.headers['set-cookie']), /sso_invitation=/, 'the link waits for the sign-in');
  t.equal(anonymous.headers['referrer-policy'], 'no-referrer', 'the link is not sent on as a Referer');

  const alice = await accountSignIn(api.app, new Browser(), ALICE);
  const wrong = await alice.request(api.app, 'GET', path);
  t.equal(wrong.statusCode, 403);
  t.match(wrong.body, 'This invitation is for another address');
  t.notMatch(wrong.body, BOB.email, 'the invited address is not shown');
  const aliceCsrf = hiddenField((await alice.request(api.app, 'GET', '/sso/account')).body, 'csrf');
  const posted = await alice.request(api.app, 'POST', path, { csrf: aliceCsrf });
  t.equal(posted.statusCode, 403, 'accepting as another address is refused');

  const bob = await accountSignIn(api.app, new Browser(), BOB);
  const shown = await bob.request(api.app, 'GET', path);
  t.equal(shown.statusCode, 200);
  const forged = await bob.request(api.app, 'POST', path, { csrf: 'forged' });
  t.equal(forged.statusCode, 403, 'a form from elsewhere');
  const bobUser = (await findUserByUsername(api.db, BOB.username))!;
  t.equal(await findMembership(api.db, acme.id, bobUser.id), undefined, 'nothing accepted');
  const accepted = await bob.request(api.app, 'POST', path, { csrf: hiddenField(shown.body, 'csrf') });
  t.equal(accepted.statusCode, 200);
  t.match(accepted.body, 'You are now a member of Acme &lt;Corp&gt;.');
  t.equal((await findMembership(api.db, acme.id, bobUser.id))?.source, 'invitation');
});

t.test('the page is counted per network before the token is looked up', async (t) => {
  let status = 0;
  for (let i = 0; i < 40 && status !== 429; i++) {
    status = (await api.app.inject({ method: 'GET', url: `/sso/invitations/${'B'.repeat(43)}`, remoteAddress: '203.0.113.9' })).statusCode;
  }
  t.equal(status, 429, 'a flood is refused');
  const other = await api.app.inject({ method: 'GET', url: `/sso/invitations/${'B'.repeat(43)}`, remoteAddress: '198.51.100.7' });
  t.equal(other.statusCode, 404, 'another network is not');
});

t.test('an address with no account signs up from the link and comes back to it to accept', async (t) => {
  const open = await adminApiApp(t, { notifier: null, env: { SIGNUP: 'open' } });
  const openCtx = { ...ctx, config: open.config, db: open.db };
  const org = await createOrganization(openCtx, { slug: 'newco', display_name: 'NewCo' });
  await open.call(t, 'POST', '/organizations/newco/invitations', { body: { email: 'dodo@example.org', roles: ['admin'] } });
  const row = await open.db.selectFrom('outbox').select('payload').where('address', '=', 'dodo@example.org').executeTakeFirstOrThrow();
  const path = pathOf(String((row.payload as Record<string, unknown>).url));

  const browser = new Browser();
  const shown = await browser.request(open.app, 'GET', path);
  t.match(shown.body, 'href="http://localhost:3000/sso/account/signup"', 'sign-up is offered');
  const form = { email: 'dodo@example.org', name: 'The Dodo', password: 'caucus race winners', repeat: 'caucus race winners' };
  const posted = await browser.request(open.app, 'POST', '/sso/account/signup', form);
  t.equal(posted.statusCode, 303);
  const mail = await open.db
    .selectFrom('outbox')
    .select('payload')
    .where('address', '=', 'dodo@example.org')
    .where('kind', '=', 'signup-verification')
    .executeTakeFirstOrThrow();
  const code = String((mail.payload as Record<string, unknown>).code);
  const verified = await browser.request(open.app, 'POST', '/sso/account/signup/code', { code });
  t.equal(verified.statusCode, 303);
  t.equal(verified.headers.location, `http://localhost:3000${path}`, 'the end of the sign-up returns to the link');
  const accept = await browser.request(open.app, 'GET', path);
  t.equal(accept.statusCode, 200);
  const done = await browser.request(open.app, 'POST', path, { csrf: hiddenField(accept.body, 'csrf') });
  t.match(done.body, 'You are now a member of NewCo.');
  const dodo = await open.db.selectFrom('users').select('id').where('email', '=', 'dodo@example.org').executeTakeFirstOrThrow();
  t.same((await findMembership(open.db, org.id, dodo.id))?.roles, ['member', 'admin']);
});
