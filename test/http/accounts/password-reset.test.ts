// "Forgot your password?" through app.inject: the same answer for every login, a link stored only as a digest that
// works once, expires, yields to a newer one and to any password change; the policy on the new password; the
// authenticator app's code first when the user has one; everything a new password ends; the throttles.
import pino from 'pino';
import t from 'tap';
import { sha256 } from '../../../src/domain/secrets.js';
import { totp } from '../../../src/domain/accounts/totp.js';
import { adminContext } from '../../../src/cli/command.js';
import { disableUser, resetLink, setPassword } from '../../../src/domain/admin/user-admin.js';
import { ALICE, BOB, buildTestApp, FIXTURES, type TestApp, type TestAppOptions } from '../../helpers/app.js';
import { accountSignIn, enrol, KEYS_SECRET, TestClock } from '../../helpers/account.js';
import { Browser, tokenRequest } from '../../helpers/flow.js';
import { offlineTokens, GRANT_FIXTURES, REFRESHING_BASIC } from '../../helpers/grants.js';

const FORGOT = '/sso/account/forgot';
/** No notifier: messages stay in the outbox, where the tests read the links (the log notifier would write them out). */
const build = (t: Parameters<typeof buildTestApp>[0], options: TestAppOptions = {}) =>
  buildTestApp(t, { notifier: null, seed: VERIFIED, ...options });
/** Bob's address verified too: a reset link is mailed only to a verified address (issue 38; the last tests here). */
const VERIFIED = { clients: FIXTURES.clients, users: [ALICE, { ...BOB, email_verified: true }] };
const RESET = '/sso/account/reset';

async function outboxLinks(test: TestApp, userId?: string): Promise<string[]> {
  let query = test.db.selectFrom('outbox').select(['payload', 'user_id']).where('kind', '=', 'password-reset').orderBy('id');
  if (userId) query = query.where('user_id', '=', userId);
  const rows = await query.execute();
  return rows.map((r) => String((typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload).url));
}

const userId = async (test: TestApp, username: string) =>
  (await test.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow()).id;

/** Asks for a link for `login` and returns the link queued for it (the newest), if any. */
async function askLink(test: TestApp, login: string, ip = '203.0.113.9') {
  const before = await outboxLinks(test);
  const res = await test.app.inject({
    method: 'POST',
    url: FORGOT,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ login }).toString(),
    remoteAddress: ip,
  });
  const after = await outboxLinks(test);
  return { res, link: after.length > before.length ? after.at(-1) : undefined };
}

const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;
const resetForm = (test: TestApp, token: string, password: string, repeat = password, extra: Record<string, string> = {}) =>
  new Browser().request(test.app, 'POST', RESET, { token, password, repeat, ...extra });

t.test('the sign-in pages link to "Forgot your password?", which keeps the authorization request to go back to', async (t) => {
  const test = await build(t);
  const account = new Browser();
  const start = await account.request(test.app, 'GET', '/sso/account/sign-in');
  t.match(start.body, 'href="http://localhost:3000/sso/account/forgot"');
  const page = await test.app.inject({ method: 'GET', url: `${FORGOT}?interaction=abcdefghijklmnop1234` });
  t.equal(page.statusCode, 200);
  t.match(page.body, 'name="interaction" value="abcdefghijklmnop1234"');
  t.match(page.body, '<label for="login">');
  const bad = await test.app.inject({ method: 'GET', url: `${FORGOT}?interaction=%3Cscript%3E` });
  t.equal(bad.statusCode, 400, 'a malformed interaction id is refused, not echoed');
});

t.test('OWASP Forgot Password: the answer is the same whether or not the account exists; the link is stored as a digest', async (t) => {
  const lines: string[] = [];
  const test = await build(t, { logger: pino({ level: 'trace' }, { write: (line: string) => lines.push(line) }) });
  const known = await askLink(test, 'Alice');
  const byEmail = await askLink(test, 'bob@example.com');
  const unknown = await askLink(test, 'nobody-here');
  const noEmail = await askLink(test, '');
  for (const r of [known, byEmail, unknown, noEmail]) t.equal(r.res.statusCode, 200);
  t.equal(known.res.body, unknown.res.body, 'a known and an unknown login get the very same page');
  t.equal(byEmail.res.body, unknown.res.body);
  t.ok(known.link, 'a link was queued for alice (by username, in any case)');
  t.ok(byEmail.link, 'and for bob, by email');
  t.notOk(unknown.link, 'none for an unknown login');
  const token = tokenOf(known.link!);
  t.match(token, /^[A-Za-z0-9_-]{43}$/, '256 bits in base64url');
  const stored = await test.db.selectFrom('password_resets').select('token_digest').execute();
  t.ok(
    stored.some((r) => r.token_digest === sha256(token)),
    'the digest is stored',
  );
  t.notOk(
    stored.some((r) => r.token_digest === token),
    'the token is not',
  );
  const page = await test.app.inject({ method: 'GET', url: `${RESET}?token=${token}` });
  t.same(
    lines.filter((l) => l.includes(token)),
    [],
    'no log line holds the token, not even the request log of the link',
  );
  t.equal(page.statusCode, 200);
  t.equal(page.headers['referrer-policy'], 'no-referrer', 'the page never sends the link on as a referrer');
  t.match(page.body, 'for <strong>alice</strong>');
  t.notMatch(page.body, 'authenticator app', 'no code is asked of a user without an app');
  t.equal((await resetForm(test, tokenOf(byEmail.link!), 'a new long passphrase')).statusCode, 200);
});

t.test('issue 38: a reset link is mailed only to a verified address, the one the user has when it is asked for', async (t) => {
  // The fixtures as they are: bob's address is not verified (an admin set it, and bob never confirmed it).
  const test = await build(t, { seed: FIXTURES });
  const verified = await askLink(test, 'alice');
  const unverified = await askLink(test, 'bob');
  t.equal(unverified.res.body, verified.res.body, 'the page says the same either way');
  t.ok(verified.link, 'a link for alice, whose address is verified');
  t.notOk(unverified.link, 'none for bob, whose address is not');
  const queued = await test.db.selectFrom('outbox').select('address').where('kind', '=', 'password-reset').execute();
  t.same(queued, [{ address: ALICE.email }], 'the message keeps the verified address it is for');
  // A link an admin prints for bob proves no address: setting the password through it leaves the address unverified.
  const printed = await resetLink(adminContext(test.config, pino({ level: 'silent' }), test.db), 'bob', false);
  t.equal((await resetForm(test, tokenOf(printed.url!), 'a new long passphrase')).statusCode, 200);
  const bob = await test.db.selectFrom('users').select('email_verified').where('username', '=', 'bob').executeTakeFirstOrThrow();
  t.equal(bob.email_verified, false, 'a reset does not verify an address');
});

t.test('a new password: the policy applies, both entries must match, then the link is spent and sessions and tokens end', async (t) => {
  const test = await build(t, { seed: GRANT_FIXTURES });
  const alice = await userId(test, 'alice');
  const signedIn = await accountSignIn(test.app);
  const tokens = await offlineTokens(test.app);
  // A device request alice approved on a TV that has not collected its tokens yet (RFC 8628 3.5).
  const now = new Date();
  await test.db
    .insertInto('device_authorizations')
    .values({
      device_code_hash: 'approved-device',
      user_code_hash: 'approved-user-code',
      client_id: 'app',
      scope: 'openid',
      device_label: 'TV',
      requested_at: now,
      expires_at: new Date(now.getTime() + 600_000),
      interval_seconds: 5,
    })
    .execute();
  await test.db.updateTable('device_authorizations').set({ status: 'approved', user_id: alice }).execute();
  const { link } = await askLink(test, 'alice');
  const token = tokenOf(link!);

  const mismatch = await resetForm(test, token, 'a new long passphrase', 'a new long passphrase!');
  t.equal(mismatch.statusCode, 400);
  t.match(mismatch.body, 'The two passwords are not the same.');
  t.match(mismatch.body, 'aria-describedby="repeat-error"', 'the error is tied to its field');
  const common = await resetForm(test, token, 'Password123');
  t.equal(common.statusCode, 400);
  t.match(common.body, 'most common ones found in data breaches', 'NIST SP 800-63B 5.1.1.2: a breached password is refused');
  const short = await resetForm(test, token, 'short1');
  t.match(short.body, 'at least 8 characters');
  const own = await resetForm(test, token, 'alice@example.com');
  t.match(own.body, 'must not be your username or email');

  const done = await resetForm(test, token, 'a new long passphrase');
  t.equal(done.statusCode, 200);
  t.match(done.body, 'Password changed');
  const row = await test.db.selectFrom('users').selectAll().where('id', '=', alice).executeTakeFirstOrThrow();
  const ctx = adminContext(test.config, pino({ level: 'silent' }), test.db);
  t.ok(await ctx.passwords.verify(row.password_hash, 'a new long passphrase'), 'the new password is set');
  t.notOk(await ctx.passwords.verify(row.password_hash, ALICE.password), 'the old one is gone');

  const account = await signedIn.request(test.app, 'GET', '/sso/account');
  t.equal(account.statusCode, 303, 'the browser session signed in before is over');
  const refresh = await tokenRequest(test.app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, REFRESHING_BASIC);
  t.equal(refresh.json().error, 'invalid_grant', 'the refresh token is revoked');
  const introspected = await test.app.inject({
    method: 'POST',
    url: '/sso/introspect',
    headers: { authorization: REFRESHING_BASIC, 'content-type': 'application/x-www-form-urlencoded' },
    payload: `token=${tokens.access_token}`,
  });
  t.equal(introspected.json().active, false, 'and so is the access token (RFC 7662 2.2)');
  const device = await test.db.selectFrom('device_authorizations').select('status').executeTakeFirstOrThrow();
  t.equal(device.status, 'denied', 'a device request approved before the reset gets no tokens (RFC 8628 3.5 access_denied)');

  const notices = await test.db
    .selectFrom('outbox')
    .select('kind')
    .where('user_id', '=', alice)
    .where('kind', '=', 'password-changed')
    .execute();
  t.equal(notices.length, 1, 'a "password changed" notice is queued');
  const again = await resetForm(test, token, 'yet another passphrase');
  t.equal(again.statusCode, 400, 'the link works once');
  t.match(again.body, 'This link no longer works');
  const reopened = await test.app.inject({ method: 'GET', url: `${RESET}?token=${token}` });
  t.equal(reopened.statusCode, 400);
});

t.test('a link ends when it expires, when a newer one is sent, when the password changes, and when the user is disabled', async (t) => {
  const test = await build(t);
  const open = async (link: string) => (await test.app.inject({ method: 'GET', url: `${RESET}?token=${tokenOf(link)}` })).statusCode;
  const first = (await askLink(test, 'alice')).link!;
  const second = (await askLink(test, 'alice')).link!;
  t.equal(await open(first), 400, 'a newer link ends the older one');
  t.equal(await open(second), 200);
  test.advance(1801);
  t.equal(await open(second), 400, 'PASSWORD_RESET_TTL_SECONDS (1800) later it has expired');
  const third = (await askLink(test, 'bob')).link!;
  t.equal(await open(third), 200);
  const ctx = adminContext(test.config, pino({ level: 'silent' }), test.db);
  await setPassword(ctx, 'bob', 'set by an admin meanwhile');
  t.equal(await open(third), 400, 'a password set another way ends the link');
  const fourth = (await askLink(test, 'bob')).link!;
  await disableUser(ctx, 'bob');
  t.equal(await open(fourth), 400, 'a disabled user cannot use one');
  const fifth = await askLink(test, 'bob');
  t.notOk(fifth.link, 'nor is one sent to them');
  const forged = await resetForm(test, 'A'.repeat(43), 'a new long passphrase');
  t.equal(forged.statusCode, 400, 'a forged token is refused');
  const malformed = await test.app.inject({ method: 'GET', url: `${RESET}?token=not-a-token` });
  t.equal(malformed.statusCode, 400);
  const none = await test.app.inject({ method: 'GET', url: RESET });
  t.equal(none.statusCode, 400);
  t.match(none.body, 'Ask for a new link');
});

t.test('a user with an authenticator app types its code before the new password is set', async (t) => {
  const clock = new TestClock();
  const test = await build(t, { clock: clock.now, env: KEYS_SECRET });
  const secret = await enrol(test.app, await accountSignIn(test.app), clock.now());
  clock.advance(60);
  const token = tokenOf((await askLink(test, 'alice')).link!);
  const page = await test.app.inject({ method: 'GET', url: `${RESET}?token=${token}` });
  t.match(page.body, 'Code from your authenticator app');
  const wrong = await resetForm(test, token, 'a new long passphrase', undefined, { code: '000000' });
  t.equal(wrong.statusCode, 400);
  t.match(wrong.body, 'That code is not right');
  const missing = await resetForm(test, token, 'a new long passphrase');
  t.equal(missing.statusCode, 400, 'no code, no new password');
  const ctx = adminContext(test.config, pino({ level: 'silent' }), test.db);
  const row = await test.db.selectFrom('users').select('password_hash').where('username', '=', 'alice').executeTakeFirstOrThrow();
  t.ok(await ctx.passwords.verify(row.password_hash, ALICE.password), 'the password is unchanged so far');
  const right = await resetForm(test, token, 'a new long passphrase', undefined, { code: totp(secret, clock.now()) });
  t.equal(right.statusCode, 200);
  t.match(right.body, 'Password changed');
});

t.test('requests are counted per login and per network: a flood gets 429, the same for any login, and sends nothing more', async (t) => {
  const test = await build(t);
  const alice = await userId(test, 'alice');
  const answers = [];
  for (let i = 0; i < 4; i++) answers.push(await askLink(test, 'alice', '198.51.100.1'));
  t.same(
    answers.map((a) => a.res.statusCode),
    [200, 200, 200, 429],
    'three requests per login, then a wait',
  );
  t.ok(answers[3]!.res.headers['retry-after'], 'RFC 6585 4: Retry-After');
  t.match(answers[3]!.res.body, 'Too many links were asked for.');
  t.equal((await outboxLinks(test, alice)).length, 3, 'the fourth sent nothing');
  const unknown = [];
  for (let i = 0; i < 4; i++) unknown.push((await askLink(test, 'ghost', '198.51.100.2')).res.statusCode);
  t.same(unknown, [200, 200, 200, 429], 'an unknown login is counted the same: the wait tells nothing');
  const network = [];
  for (let i = 0; i < 21; i++) network.push((await askLink(test, `someone-${i}`, '192.0.2.7')).res.statusCode);
  t.same(network.slice(0, 20), Array(20).fill(200));
  t.equal(network[20], 429, 'twenty requests per network, then a wait');
  t.equal((await askLink(test, BOB.username, '192.0.2.8')).res.statusCode, 200, 'another network is not affected');
});
