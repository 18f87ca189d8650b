// Changing the email address on the account page: the current password first, a link to the new address (a note
// instead when it is another account's), a notice to the current one, and the change only once the link is
// confirmed; links that no longer work.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { ALICE, BOB, buildTestApp, type TestApp } from '../../helpers/app.js';
import { accountSignIn } from '../../helpers/account.js';
import { Browser, hiddenField, localPath } from '../../helpers/flow.js';
import { insertWebhookSubscription } from '../../../src/storage/webhooks.js';

const NEW = 'alice.liddell@example.net';

async function messages(test: TestApp) {
  const rows = await test.db.selectFrom('outbox').select(['id', 'kind', 'address', 'payload', 'user_id']).orderBy('id').execute();
  // The rows of one statement are numbered in no set order: sorted by kind, then by id.
  return rows
    .filter((r) => r.kind.startsWith('email'))
    .sort((a, b) => a.kind.localeCompare(b.kind) || Number(a.id) - Number(b.id))
    .map((r) => ({
      kind: r.kind,
      address: r.address,
      payload: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as Record<string, string>,
    }));
}

const emailOf = async (test: TestApp, username: string) =>
  test.db.selectFrom('users').select(['email', 'email_verified']).where('username', '=', username).executeTakeFirstOrThrow();

async function ask(test: TestApp, browser: Browser, form: Record<string, string>) {
  const page = await browser.request(test.app, 'GET', '/sso/account/email');
  return browser.request(test.app, 'POST', '/sso/account/email', { csrf: hiddenField(page.body, 'csrf'), ...form });
}

t.test('the account page shows the address and links to the change form, which needs the password', async (t) => {
  const test = await buildTestApp(t, { notifier: null });
  const browser = await accountSignIn(test.app);
  const account = await browser.request(test.app, 'GET', '/sso/account');
  t.match(account.body, `${ALICE.email} (confirmed)`);
  t.match(account.body, 'href="http://localhost:3000/sso/account/email"');
  const form = await browser.request(test.app, 'GET', '/sso/account/email');
  t.match(form.body, '<label for="email">New email address</label>');
  t.match(form.body, '<label for="password">Your password</label>');
  const wrong = await ask(test, browser, { email: NEW, password: 'not it' });
  t.equal(wrong.statusCode, 400);
  t.match(wrong.body, 'aria-describedby="password-error"');
  const same = await ask(test, browser, { email: ALICE.email.toUpperCase(), password: ALICE.password });
  t.match(same.body, 'That is your current address.');
  const bad = await ask(test, browser, { email: 'nope', password: ALICE.password });
  t.match(bad.body, 'Type an email address');
  t.same(await messages(test), [], 'nothing was sent');
  const anonymous = await new Browser().request(test.app, 'GET', '/sso/account/email');
  t.equal(anonymous.statusCode, 303);
});

t.test('the change takes effect only once the link sent to the new address is confirmed; the old address is told', async (t) => {
  const test = await buildTestApp(t, { notifier: null });
  // A subscription to user.updated (issue 20): the change queues its event in the change's own transaction.
  await insertWebhookSubscription(test.db, {
    id: randomUUID(),
    url: 'https://hooks.example/users',
    eventTypes: ['user.updated'],
    secretSealed: { v: 0, clear: 'dGVzdA' },
    description: null,
    enabled: true,
    now: new Date(),
  });
  const events = () => test.db.selectFrom('webhook_deliveries').select(['event_type', 'payload']).execute();
  const browser = await accountSignIn(test.app);
  const asked = await ask(test, browser, { email: NEW, password: ALICE.password });
  t.equal(asked.statusCode, 303);
  t.equal(asked.headers.location, 'http://localhost:3000/sso/account?done=email-sent');
  const sent = await messages(test);
  t.same(
    sent.map((m) => [m.kind, m.address]),
    [
      ['email-change-notice', null],
      ['email-verification', NEW],
    ],
    'a link to the new address, a notice to the current one (the user’s address)',
  );
  t.equal(sent[0]!.payload.to, 'a***@example.net', 'the notice names the new address masked');
  t.same(await emailOf(test, 'alice'), { email: ALICE.email, email_verified: true }, 'nothing changed yet');

  const link = sent[1]!.payload.url!;
  const opened = await new Browser().request(test.app, 'GET', localPath(link));
  t.equal(opened.statusCode, 200);
  t.match(opened.body, `Use <strong>${NEW}</strong>`);
  t.same(await emailOf(test, 'alice'), { email: ALICE.email, email_verified: true }, 'opening the link alone changes nothing');
  const confirmed = await new Browser().request(test.app, 'POST', '/sso/account/email/verify', {
    token: hiddenField(opened.body, 'token'),
  });
  t.equal(confirmed.statusCode, 200);
  t.match(confirmed.body, `Your account uses ${NEW} from now on.`);
  t.same(await emailOf(test, 'alice'), { email: NEW, email_verified: true });
  const queued = await events();
  t.equal(queued.length, 1, 'one user.updated event');
  t.match(queued[0], { event_type: 'user.updated', payload: { username: 'alice', email: NEW, changes: ['email'], via: 'account' } });
  const again = await new Browser().request(test.app, 'POST', '/sso/account/email/verify', { token: hiddenField(opened.body, 'token') });
  t.equal(again.statusCode, 400, 'a link works once');
  t.equal((await events()).length, 1, 'and queues nothing more');
});

t.test('an address that is another account’s gets a note instead of a link; a newer link ends an older one; links expire', async (t) => {
  const test = await buildTestApp(t, { notifier: null });
  const browser = await accountSignIn(test.app);
  const taken = await ask(test, browser, { email: BOB.email, password: ALICE.password });
  t.equal(taken.headers.location, 'http://localhost:3000/sso/account?done=email-sent', 'the page says what it says for any address');
  t.same(
    (await messages(test)).map((m) => [m.kind, m.address]),
    [
      ['email-change-notice', null],
      ['email-taken', BOB.email],
    ],
  );
  await ask(test, browser, { email: 'first@example.net', password: ALICE.password });
  await ask(test, browser, { email: 'second@example.net', password: ALICE.password });
  const links = (await messages(test)).filter((m) => m.kind === 'email-verification').map((m) => m.payload.url!);
  const post = (link: string) =>
    new Browser().request(test.app, 'POST', '/sso/account/email/verify', { token: new URL(link).searchParams.get('token')! });
  t.equal((await post(links[0]!)).statusCode, 400, 'the older link ended when a newer one was sent');
  test.advance(3601);
  t.equal((await post(links[1]!)).statusCode, 400, 'SIGNUP_VERIFICATION_TTL_SECONDS later the newer one has expired');
  t.equal((await emailOf(test, 'alice')).email, ALICE.email);
  t.equal((await new Browser().request(test.app, 'POST', '/sso/account/email/verify', { token: 'A'.repeat(43) })).statusCode, 400);
});
