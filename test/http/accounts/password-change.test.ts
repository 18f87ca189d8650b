// Changing the password on the account page: the current password first (counted like a sign-in attempt), the
// policy on the new one, then every other device signed out while this browser stays, and a notice queued.
import pino from 'pino';
import t from 'tap';
import { adminContext } from '../../../src/cli/command.js';
import { ALICE, buildTestApp } from '../../helpers/app.js';
import { accountPage, accountSignIn } from '../../helpers/account.js';
import { Browser, hiddenField, tokenRequest } from '../../helpers/flow.js';
import { GRANT_FIXTURES, offlineTokens, REFRESHING_BASIC } from '../../helpers/grants.js';

const NEW_PASSWORD = 'a brand new passphrase';

t.test('the account page links to the change form, which needs a session', async (t) => {
  const test = await buildTestApp(t, { notifier: null });
  const anonymous = await new Browser().request(test.app, 'GET', '/sso/account/password');
  t.equal(anonymous.statusCode, 303);
  t.equal(anonymous.headers.location, 'http://localhost:3000/sso/account/sign-in');
  const browser = await accountSignIn(test.app);
  const { page } = await accountPage(test.app, browser);
  t.match(page.body, 'href="http://localhost:3000/sso/account/password"');
  const form = await browser.request(test.app, 'GET', '/sso/account/password');
  t.equal(form.statusCode, 200);
  for (const id of ['current', 'password', 'repeat']) t.match(form.body, `<label for="${id}">`, `the ${id} field has a label`);
});

t.test('a change needs the current password and a new one the policy accepts; then only this browser stays signed in', async (t) => {
  const test = await buildTestApp(t, { seed: GRANT_FIXTURES, notifier: null });
  const here = await accountSignIn(test.app);
  const elsewhere = await accountSignIn(test.app);
  const tokens = await offlineTokens(test.app);
  const csrf = hiddenField((await here.request(test.app, 'GET', '/sso/account/password')).body, 'csrf');
  const post = (form: Record<string, string>, browser = here) => browser.request(test.app, 'POST', '/sso/account/password', form);

  const forged = await post({ csrf: 'not-the-token', current: ALICE.password, password: NEW_PASSWORD, repeat: NEW_PASSWORD });
  t.equal(forged.statusCode, 403, 'a form without this session token is refused');
  const wrong = await post({ csrf, current: 'not my password', password: NEW_PASSWORD, repeat: NEW_PASSWORD });
  t.equal(wrong.statusCode, 400);
  t.match(wrong.body, 'The current password is not correct.');
  t.match(wrong.body, 'aria-describedby="current-error"');
  const mismatch = await post({ csrf, current: ALICE.password, password: NEW_PASSWORD, repeat: 'something else' });
  t.match(mismatch.body, 'The two new passwords are not the same.');
  const weak = await post({ csrf, current: ALICE.password, password: 'qwerty123', repeat: 'qwerty123' });
  t.equal(weak.statusCode, 400);
  t.match(weak.body, 'most common ones found in data breaches', 'NIST SP 800-63B 5.1.1.2');

  const done = await post({ csrf, current: ALICE.password, password: NEW_PASSWORD, repeat: NEW_PASSWORD });
  t.equal(done.statusCode, 303);
  t.equal(done.headers.location, 'http://localhost:3000/sso/account?done=password-changed');
  const mine = await here.request(test.app, 'GET', '/sso/account?done=password-changed');
  t.equal(mine.statusCode, 200, 'this browser is still signed in');
  t.match(mine.body, 'Your password was changed.');
  t.equal((await elsewhere.request(test.app, 'GET', '/sso/account')).statusCode, 303, 'the other browser is signed out');
  const refresh = await tokenRequest(test.app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, REFRESHING_BASIC);
  t.equal(refresh.json().error, 'invalid_grant', 'a refresh token from another sign-in is revoked');
  const row = await test.db.selectFrom('users').select(['id', 'password_hash']).where('username', '=', 'alice').executeTakeFirstOrThrow();
  const ctx = adminContext(test.config, pino({ level: 'silent' }), test.db);
  t.ok(await ctx.passwords.verify(row.password_hash, NEW_PASSWORD));
  const notices = await test.db
    .selectFrom('outbox')
    .select('kind')
    .where('user_id', '=', row.id)
    .where('kind', '=', 'password-changed')
    .execute();
  t.equal(notices.length, 1, 'a "password changed" notice is queued');
  const stale = await post({ csrf, current: ALICE.password, password: 'another passphrase', repeat: 'another passphrase' });
  t.match(stale.body, 'The current password is not correct.', 'the old password is no longer the current one');
});

t.test('wrong current passwords are counted like sign-in attempts: after SIGN_IN_ACCOUNT_FREE_ATTEMPTS a wait (429)', async (t) => {
  const test = await buildTestApp(t, { notifier: null });
  const here = await accountSignIn(test.app);
  const csrf = hiddenField((await here.request(test.app, 'GET', '/sso/account/password')).body, 'csrf');
  const statuses = [];
  for (let i = 0; i < 6; i++) {
    const res = await here.request(test.app, 'POST', '/sso/account/password', {
      csrf,
      current: `wrong guess ${i}`,
      password: NEW_PASSWORD,
      repeat: NEW_PASSWORD,
    });
    statuses.push(res.statusCode);
    if (res.statusCode === 429) t.ok(res.headers['retry-after'], 'RFC 6585 4: Retry-After');
  }
  t.same(statuses, [400, 400, 400, 400, 400, 429]);
});
