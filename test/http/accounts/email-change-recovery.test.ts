// A pending email change ends with every recovery (issue 38): a password reset or change, signing out everywhere,
// being disabled, an admin setting the address, and the cancel link of the notice to the current address. An
// unverified address is verified by its owner, signed in, through the same form.
import pino from 'pino';
import t from 'tap';
import { subscribeToEvents } from '../../helpers/webhook-subscription.js';
import { adminContext } from '../../../src/cli/command.js';
import { disableUser, enableUser, revokeSessions, setPassword, updateUserProfile } from '../../../src/domain/admin/user-admin.js';
import { ALICE, BOB, buildTestApp, type TestApp } from '../../helpers/app.js';
import { accountSignIn } from '../../helpers/account.js';
import { Browser, hiddenField, localPath } from '../../helpers/flow.js';

const ATTACKER = 'mallory@attacker.example';
const NEW_PASSWORD = 'a brand new passphrase 9';

async function outbox(test: TestApp, kind: string) {
  const rows = await test.db.selectFrom('outbox').select(['address', 'payload']).where('kind', '=', kind).orderBy('id').execute();
  return rows.map((r) => ({
    address: r.address,
    payload: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as Record<string, string>,
  }));
}

const emailOf = async (test: TestApp, username: string) =>
  test.db.selectFrom('users').select(['email', 'email_verified']).where('username', '=', username).executeTakeFirstOrThrow();

/** Someone with alice's password and a session asks to move her address to theirs; the link mailed to it. */
async function attackerAsks(test: TestApp, browser?: Browser, to = ATTACKER): Promise<string> {
  const b = browser ?? (await accountSignIn(test.app));
  const page = await b.request(test.app, 'GET', '/sso/account/email');
  const asked = await b.request(test.app, 'POST', '/sso/account/email', {
    csrf: hiddenField(page.body, 'csrf'),
    email: to,
    password: ALICE.password,
  });
  if (asked.statusCode !== 303) throw new Error(`the change was not asked: ${asked.statusCode}`);
  return (await outbox(test, 'email-verification')).at(-1)!.payload.url!;
}

/** Follows the verification link as its holder would: the page, then the button. */
async function confirm(test: TestApp, link: string) {
  return new Browser().request(test.app, 'POST', '/sso/account/email/verify', { token: new URL(link).searchParams.get('token')! });
}

const ctxOf = (test: TestApp) => adminContext(test.config, pino({ level: 'silent' }), test.db);

t.test(
  'issue 38: a password reset, as the notice recommends, ends the pending change; the next reset link stays with the owner',
  async (t) => {
    const test = await buildTestApp(t, { notifier: null });
    const link = await attackerAsks(test);
    // The victim follows "choose a new password": a reset link to her (verified) address.
    const forgot = await test.app.inject({
      method: 'POST',
      url: '/sso/account/forgot',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ login: 'alice' }).toString(),
    });
    t.equal(forgot.statusCode, 200);
    const reset = (await outbox(test, 'password-reset')).at(-1)!;
    t.equal(reset.address, ALICE.email);
    const done = await new Browser().request(test.app, 'POST', '/sso/account/reset', {
      token: new URL(reset.payload.url!).searchParams.get('token')!,
      password: NEW_PASSWORD,
      repeat: NEW_PASSWORD,
    });
    t.equal(done.statusCode, 200, 'the password was reset');
    const confirmed = await confirm(test, link);
    t.equal(confirmed.statusCode, 400, 'the attacker’s link no longer works');
    t.same(await emailOf(test, 'alice'), { email: ALICE.email, email_verified: true }, 'the address is hers still');
  },
);

t.test('signing out everywhere, a password change, an admin’s password or address, and disabling each end a pending change', async (t) => {
  const test = await buildTestApp(t, { notifier: null });
  const ctx = ctxOf(test);
  const dead = async (link: string, why: string) => {
    t.equal((await confirm(test, link)).statusCode, 400, why);
    t.not((await emailOf(test, 'alice')).email, ATTACKER, `${why}: the address did not move`);
  };

  await dead(await attackerAsks(test).then(async (link) => (await revokeSessions(ctx, 'alice'), link)), 'signed out everywhere');

  const browser = await accountSignIn(test.app);
  const link = await attackerAsks(test, browser);
  const csrf = hiddenField((await browser.request(test.app, 'GET', '/sso/account/password')).body, 'csrf');
  const changed = await browser.request(test.app, 'POST', '/sso/account/password', {
    csrf,
    current: ALICE.password,
    password: NEW_PASSWORD,
    repeat: NEW_PASSWORD,
  });
  t.equal(changed.statusCode, 303, 'the password was changed on the account page');
  await dead(link, 'the password changed');
  await setPassword(ctx, 'alice', ALICE.password);

  const before = await attackerAsks(test);
  await setPassword(ctx, 'alice', NEW_PASSWORD);
  await dead(before, 'an admin set the password');
  await setPassword(ctx, 'alice', ALICE.password);

  const byAdmin = await attackerAsks(test);
  await updateUserProfile(ctx, 'alice', { email: 'alice@corp.example' });
  t.equal((await confirm(test, byAdmin)).statusCode, 400, 'an admin set the address');
  t.equal((await emailOf(test, 'alice')).email, 'alice@corp.example');

  const beforeDisable = await attackerAsks(test, undefined, 'mallory2@attacker.example');
  await disableUser(ctx, 'alice');
  await enableUser(ctx, 'alice');
  t.equal((await confirm(test, beforeDisable)).statusCode, 400, 'disabling ended it, and enabling again does not revive it');
  t.equal((await emailOf(test, 'alice')).email, 'alice@corp.example');
});

t.test(
  'the notice to the current address says a recovery cancels the change and carries a cancel link, confirmed with a button',
  async (t) => {
    const test = await buildTestApp(t, { notifier: null });
    const link = await attackerAsks(test);
    const notice = (await outbox(test, 'email-change-notice')).at(-1)!;
    const cancel = notice.payload.cancel!;
    t.match(cancel, /^http:\/\/localhost:3000\/sso\/account\/email\/cancel\?token=[A-Za-z0-9_-]{43}$/);
    t.not(new URL(cancel).searchParams.get('token'), new URL(link).searchParams.get('token'), 'a token of its own');
    const page = await new Browser().request(test.app, 'GET', localPath(cancel));
    t.equal(page.statusCode, 200);
    t.match(page.body, 'Cancel the change');
    t.equal((await confirm(test, link)).statusCode, 200, 'opening the cancel page alone ends nothing');
  },
);

t.test('the cancel link ends every pending change of the user, once', async (t) => {
  const test = await buildTestApp(t, { notifier: null });
  const first = await attackerAsks(test);
  const cancel = (await outbox(test, 'email-change-notice')).at(-1)!.payload.cancel!;
  const token = new URL(cancel).searchParams.get('token')!;
  const post = () => new Browser().request(test.app, 'POST', '/sso/account/email/cancel', { token });
  const done = await post();
  t.equal(done.statusCode, 200);
  t.match(done.body, 'Your email address stays as it is.');
  t.equal((await confirm(test, first)).statusCode, 400, 'the verification link no longer works');
  t.same(await emailOf(test, 'alice'), { email: ALICE.email, email_verified: true });
  t.equal((await post()).statusCode, 400, 'a cancel link works once');
  t.equal((await new Browser().request(test.app, 'GET', localPath(cancel))).statusCode, 400, 'and shows nothing to cancel');
  t.equal(
    (await new Browser().request(test.app, 'POST', '/sso/account/email/cancel', { token: 'A'.repeat(43) })).statusCode,
    400,
    'an unknown token is refused',
  );
});

t.test('the notice mail says a recovery cancels the change and shows the cancel link as its button', async (t) => {
  const { messageContent } = await import('../../../src/domain/notifications/messages.js');
  const setting = {
    serviceName: 'Example',
    accountUrl: 'https://id.example/account',
    codeMinutes: 10,
    resetMinutes: 30,
    forgotUrl: 'https://id.example/account/forgot',
    signupMinutes: 60,
  };
  const cancel = 'https://id.example/account/email/cancel?token=abc';
  for (const locale of ['en', 'de', 'fr'] as const) {
    const mail = messageContent({ kind: 'email-change-notice', payload: { to: 'm***@attacker.example', cancel } }, setting, locale);
    t.equal(mail.action?.url, cancel, `${locale}: the button cancels the change`);
    t.ok(mail.outro.length >= 2, `${locale}: the recovery sentence is there`);
  }
  const en = messageContent({ kind: 'email-change-notice', payload: { to: 'm***@attacker.example', cancel } }, setting, 'en');
  t.match(en.outro[0], 'a password reset, or signing out everywhere, cancels it as well');
  const old = messageContent({ kind: 'email-change-notice', payload: { to: 'm***@attacker.example' } }, setting, 'en');
  t.equal(old.action?.url, setting.forgotUrl, 'a notice queued before cancel links sends to a password reset');
});

t.test(
  'an unverified address is verified by its owner, signed in, through the change form; it is sent as user.email_changed',
  async (t) => {
    const test = await buildTestApp(t, { notifier: null });
    await subscribeToEvents(test.db, ['user.email_changed']);
    const browser = await accountSignIn(test.app, new Browser(), BOB);
    const page = await browser.request(test.app, 'GET', '/sso/account/email');
    t.match(page.body, 'Your address is not confirmed yet');
    const asked = await browser.request(test.app, 'POST', '/sso/account/email', {
      csrf: hiddenField(page.body, 'csrf'),
      email: BOB.email,
      password: BOB.password,
    });
    t.equal(asked.statusCode, 303);
    const sent = await outbox(test, 'email-verification');
    t.equal(sent.at(-1)!.address, BOB.email, 'the link goes to the address itself');
    t.equal((await outbox(test, 'email-change-notice')).length, 0, 'no notice of a change: nothing changes');
    t.equal((await confirm(test, sent.at(-1)!.payload.url!)).statusCode, 200);
    t.same(await emailOf(test, 'bob'), { email: BOB.email, email_verified: true });
    const events = await test.db.selectFrom('webhook_deliveries').select(['event_type', 'payload']).execute();
    t.match(events, [{ event_type: 'user.email_changed', payload: { email: BOB.email, email_verified: true, via: 'account' } }]);
    const again = await browser.request(test.app, 'POST', '/sso/account/email', {
      csrf: hiddenField(page.body, 'csrf'),
      email: BOB.email,
      password: BOB.password,
    });
    t.match(again.body, 'That is your current address.', 'once verified, the same address is refused again');
  },
);
