// Self-service sign-up through app.inject: off by default; an open sign-up makes no user until its address is
// verified by code or by link; a registered address gets the same answer and an "account exists" mail instead;
// expiry, reuse and wrong codes; the per-network counter and the risk verdict; invitations.
import pino from 'pino';
import t from 'tap';
import { subscribeToEvents } from '../../helpers/webhook-subscription.js';
import { adminContext } from '../../../src/cli/command.js';
import { inviteUser } from '../../../src/domain/admin/user-admin.js';
import { MAX_SIGNUP_CODE_FAILURES, verifySignupCode } from '../../../src/domain/accounts/signup.js';
import { signupCookie } from '../../../src/http/cookies.js';
import { signInContext } from '../../helpers/sign-in-context.js';
import { ALICE, CONFIDENTIAL, buildTestApp, type TestApp, type TestAppOptions } from '../../helpers/app.js';
import { authorizePath, Browser, hiddenField, localPath, pkcePair } from '../../helpers/flow.js';

const OPEN = { SIGNUP: 'open' };
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';
const build = (t: Parameters<typeof buildTestApp>[0], options: TestAppOptions = {}) => buildTestApp(t, { notifier: null, ...options });

const FORM = { email: 'dodo@example.org', name: 'The Dodo', password: 'caucus race winners', repeat: 'caucus race winners' };

async function post(test: TestApp, browser: Browser, url: string, form: Record<string, string>, ip = '203.0.113.50', ua = CHROME) {
  const cookie = browser.header(url);
  const res = await test.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': ua, ...(cookie ? { cookie } : {}) },
    payload: new URLSearchParams(form).toString(),
    remoteAddress: ip,
  });
  browser.store(res);
  return res;
}

async function mailTo(test: TestApp, address: string): Promise<{ code: string; url: string } | undefined> {
  const row = await test.db
    .selectFrom('outbox')
    .select('payload')
    .where('address', '=', address)
    .where('kind', '=', 'signup-verification')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (!row) return undefined;
  const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as { code: string; url: string };
  return payload;
}

const userOf = (test: TestApp, email: string) => test.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();

t.test('SIGNUP=off (the default): no sign-up page, and no link to one', async (t) => {
  const test = await build(t);
  t.equal((await test.app.inject({ method: 'GET', url: '/sso/account/signup' })).statusCode, 404);
  const signIn = await new Browser().request(test.app, 'GET', '/sso/account/sign-in');
  t.notMatch(signIn.body, 'Create an account');
});

t.test('SIGNUP=open: a form with labelled fields, and field errors tied to their fields', async (t) => {
  const test = await build(t, { env: OPEN });
  const signIn = await new Browser().request(test.app, 'GET', '/sso/account/sign-in');
  t.match(signIn.body, 'href="http://localhost:3000/sso/account/signup"');
  const form = await test.app.inject({ method: 'GET', url: '/sso/account/signup' });
  t.equal(form.statusCode, 200);
  for (const id of ['email', 'name', 'password', 'repeat']) t.match(form.body, `<label for="${id}">`);
  t.notMatch(form.body, 'for="username"', 'SIGNUP_USERNAME=email: the address is the username');
  const bad = await post(test, new Browser(), '/sso/account/signup', {
    email: 'not-an-address',
    name: '',
    password: 'password1',
    repeat: 'x',
  });
  t.equal(bad.statusCode, 400);
  t.match(bad.body, 'id="email-error"');
  t.match(bad.body, 'aria-describedby="email-error" aria-invalid="true"');
  t.match(bad.body, 'id="name-error"');
  t.match(bad.body, 'most common ones found in data breaches', 'NIST SP 800-63B 5.1.1.2 on the sign-up form');
  t.match(bad.body, 'value="not-an-address"', 'what was typed stays');
  t.notMatch(bad.body, 'password1', 'but never the password');
  const rows = await test.db.selectFrom('signups').select('id').execute();
  t.equal(rows.length, 0, 'nothing was stored');
});

t.test('an open sign-up makes no user until the code typed in its browser verifies the address; then it is signed in', async (t) => {
  const test = await build(t, { env: OPEN });
  const browser = new Browser();
  const res = await post(test, browser, '/sso/account/signup', FORM);
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, 'http://localhost:3000/sso/account/signup/code');
  t.notOk(await userOf(test, FORM.email), 'no user before the address is verified');
  const mail = await mailTo(test, FORM.email);
  t.match(mail?.code, /^\d{6}$/, 'the message to the address holds a six-digit code');
  const stored = await test.db.selectFrom('signups').selectAll().executeTakeFirstOrThrow();
  t.not(stored.code_digest, mail!.code, 'the code is stored as a digest');
  t.notMatch(stored.password_hash, FORM.password, 'the password only as its argon2 hash');
  const page = await browser.request(test.app, 'GET', '/sso/account/signup/code');
  t.match(page.body, '<label for="code">');

  const wrong = await post(test, browser, '/sso/account/signup/code', { code: mail!.code === '000000' ? '111111' : '000000' });
  t.equal(wrong.statusCode, 400);
  t.match(wrong.body, 'That code is not right. 4 more tries');
  const other = await post(test, new Browser(), '/sso/account/signup/code', { code: mail!.code });
  t.equal(other.statusCode, 400, 'the code works only in the browser that signed up');
  const right = await post(test, browser, '/sso/account/signup/code', { code: mail!.code });
  t.equal(right.statusCode, 303);
  t.equal(right.headers.location, 'http://localhost:3000/sso/account?done=signed-up');
  const account = await browser.request(test.app, 'GET', '/sso/account?done=signed-up');
  t.equal(account.statusCode, 200, 'signed in, without typing the password again');
  t.match(account.body, 'Welcome!');
  const user = await userOf(test, FORM.email);
  t.equal(user?.username, FORM.email, 'SIGNUP_USERNAME=email');
  t.equal(user?.email_verified, true);
  t.same(user?.claims, { name: 'The Dodo' });
  const again = await post(test, browser, '/sso/account/signup/code', { code: mail!.code });
  t.equal(again.statusCode, 400, 'a code works once');
});

t.test('40 wrong codes at once are checked and counted against the cap together: exactly five are tried', async (t) => {
  const test = await build(t, { env: OPEN });
  const browser = new Browser();
  t.equal((await post(test, browser, '/sso/account/signup', FORM)).statusCode, 303);
  const mail = await mailTo(test, FORM.email);
  const wrong = mail!.code === '000000' ? '111111' : '000000';
  const answers = await Promise.all(Array.from({ length: 40 }, () => post(test, browser, '/sso/account/signup/code', { code: wrong })));
  const tried = answers.filter((a) => /That code is not right/.test(a.body));
  t.equal(tried.length, MAX_SIGNUP_CODE_FAILURES, 'as many wrong codes were tried as the cap allows, no more');
  t.equal(answers.filter((a) => a.statusCode === 400).length, 40, 'every answer is a refusal');
  const row = await test.db.selectFrom('signups').select('code_failures').executeTakeFirstOrThrow();
  t.equal(row.code_failures, MAX_SIGNUP_CODE_FAILURES, 'the count stops at the cap');
  const right = await post(test, browser, '/sso/account/signup/code', { code: mail!.code });
  t.equal(right.statusCode, 400, 'the right code comes too late: the link is the way left');
  t.notOk(await userOf(test, FORM.email));
  const link = new URL(mail!.url);
  const verified = await post(test, new Browser(), '/sso/account/signup/verify', { token: link.searchParams.get('token')! });
  t.equal(verified.statusCode, 303, 'the link still verifies the address');
});

t.test('40 wrong codes checked at once by the domain count exactly the cap, however their reads interleave', async (t) => {
  const test = await build(t, { env: OPEN });
  const browser = new Browser();
  t.equal((await post(test, browser, '/sso/account/signup', FORM)).statusCode, 303);
  const mail = await mailTo(test, FORM.email);
  const wrong = mail!.code === '000000' ? '111111' : '000000';
  const ctx = await signInContext(t, test);
  const signupId = browser.get(signupCookie(test.config).name);
  // All 40 start before any has written: a check that reads the count first would let each of them through.
  const results = await Promise.all(Array.from({ length: 40 }, () => verifySignupCode(ctx, signupId, wrong)));
  t.equal(results.filter((r) => r.kind === 'wrong-code').length, MAX_SIGNUP_CODE_FAILURES, 'as many tries as the cap');
  t.equal(results.filter((r) => r.kind === 'unusable').length, 40 - MAX_SIGNUP_CODE_FAILURES, 'the rest find the code spent');
  t.same(
    results.flatMap((r) => (r.kind === 'wrong-code' ? [r.left] : [])).sort(),
    [0, 1, 2, 3, 4],
    'each try is told how many are left, down to none',
  );
  const row = await test.db.selectFrom('signups').select('code_failures').executeTakeFirstOrThrow();
  t.equal(row.code_failures, MAX_SIGNUP_CODE_FAILURES);
});

t.test('the mailed link asks for a click (a mail scanner confirms nothing), works once, and expires', async (t) => {
  const test = await build(t, { env: OPEN });
  await post(test, new Browser(), '/sso/account/signup', FORM);
  const { url } = (await mailTo(test, FORM.email))!;
  const opened = await new Browser().request(test.app, 'GET', localPath(url));
  t.equal(opened.statusCode, 200);
  t.notOk(await userOf(test, FORM.email), 'opening the link alone creates nothing');
  const token = hiddenField(opened.body, 'token');
  const phone = new Browser();
  const confirmed = await phone.request(test.app, 'POST', '/sso/account/signup/verify', { token });
  t.equal(confirmed.statusCode, 303);
  t.ok(await userOf(test, FORM.email));
  t.equal((await phone.request(test.app, 'GET', '/sso/account')).statusCode, 200, 'the browser that confirmed is signed in');
  const reused = await new Browser().request(test.app, 'POST', '/sso/account/signup/verify', { token });
  t.equal(reused.statusCode, 400);
  t.match(reused.body, 'This confirmation no longer works');

  await post(test, new Browser(), '/sso/account/signup', { ...FORM, email: 'late@example.org' });
  const late = (await mailTo(test, 'late@example.org'))!;
  test.advance(3601);
  const expired = await new Browser().request(test.app, 'POST', '/sso/account/signup/verify', {
    token: new URL(late.url).searchParams.get('token')!,
  });
  t.equal(expired.statusCode, 400, 'SIGNUP_VERIFICATION_TTL_SECONDS later the link has expired');
  t.notOk(await userOf(test, 'late@example.org'));
  const forged = await new Browser().request(test.app, 'POST', '/sso/account/signup/verify', { token: 'A'.repeat(43) });
  t.equal(forged.statusCode, 400);
});

t.test('a registered address gets the same answer; its owner is told, and nothing is created', async (t) => {
  const test = await build(t, { env: OPEN });
  const fresh = await post(test, new Browser(), '/sso/account/signup', FORM);
  const taken = new Browser();
  const existing = await post(test, taken, '/sso/account/signup', { ...FORM, email: ALICE.email.toUpperCase() });
  t.equal(existing.statusCode, fresh.statusCode);
  t.equal(existing.headers.location, fresh.headers.location, 'the same redirect to the same code page');
  t.ok(taken.get('sso_signup'), 'and the same cookie');
  t.notOk(await mailTo(test, ALICE.email.toUpperCase()), 'no verification is sent to it');
  const alice = await test.db.selectFrom('users').select('id').where('username', '=', 'alice').executeTakeFirstOrThrow();
  const told = await test.db.selectFrom('outbox').select('kind').where('user_id', '=', alice.id).execute();
  t.same(
    told.map((m) => m.kind),
    ['account-exists'],
    'Alice is told that someone tried',
  );
  const guess = await post(test, taken, '/sso/account/signup/code', { code: '123456' });
  t.match(guess.body, 'That code is not right. 4 more tries', 'the code page behaves as for a new address');
  t.equal((await test.db.selectFrom('users').select('id').execute()).length, 2, 'no user was added');
});

t.test('SIGNUP_USERNAME=optional: a username may be chosen; a taken one is refused; blank takes the address', async (t) => {
  const test = await build(t, { env: { ...OPEN, SIGNUP_USERNAME: 'optional' } });
  const form = await test.app.inject({ method: 'GET', url: '/sso/account/signup' });
  t.match(form.body, '<label for="username">Username (optional)</label>');
  const taken = await post(test, new Browser(), '/sso/account/signup', { ...FORM, username: 'Alice' });
  t.equal(taken.statusCode, 400);
  t.match(taken.body, 'That username is taken.');
  const browser = new Browser();
  await post(test, browser, '/sso/account/signup', { ...FORM, username: 'dodo' });
  await post(test, browser, '/sso/account/signup/code', { code: (await mailTo(test, FORM.email))!.code });
  t.equal((await userOf(test, FORM.email))?.username, 'dodo');
});

t.test('floods and bots: sign-ups are counted per network (429), and a BLOCK verdict refuses one', async (t) => {
  const test = await build(t, { env: { ...OPEN, RISK_WEIGHTS: 'AUTOMATION=90' } });
  const statuses = [];
  for (let i = 0; i < 11; i++) {
    statuses.push(
      (await post(test, new Browser(), '/sso/account/signup', { ...FORM, email: `n${i}@example.org` }, '198.51.100.77')).statusCode,
    );
  }
  t.same(statuses.slice(0, 10), Array(10).fill(303));
  t.equal(statuses[10], 429, 'the eleventh sign-up from one network waits');
  const headless = await post(
    test,
    new Browser(),
    '/sso/account/signup',
    { ...FORM, email: 'bot@example.org' },
    '192.0.2.99',
    'HeadlessChrome/130.0',
  );
  t.equal(headless.statusCode, 403, 'AUTOMATION weighs 90 here: BLOCK');
  t.match(headless.body, 'This sign-up was refused.');
  t.notOk(await mailTo(test, 'bot@example.org'));
});

t.test('a sign-up started from an application goes back to its authorization request once verified', async (t) => {
  const test = await build(t, { env: OPEN });
  const browser = new Browser();
  const authorize = await browser.request(
    test.app,
    'GET',
    authorizePath({
      response_type: 'code',
      client_id: CONFIDENTIAL.client_id,
      redirect_uri: CONFIDENTIAL.redirect_uris[0],
      scope: 'openid',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    }),
  );
  const interaction = localPath(String(authorize.headers.location));
  const id = interaction.split('/').at(-1)!;
  const signIn = await browser.request(test.app, 'GET', interaction);
  t.match(signIn.body, `/sso/account/signup?interaction=${id}`, 'the sign-in page offers to create an account');
  const created = await post(test, browser, '/sso/account/signup', { ...FORM, interaction: id });
  t.equal(created.statusCode, 303);
  const verified = await post(test, browser, '/sso/account/signup/code', { code: (await mailTo(test, FORM.email))!.code });
  t.equal(verified.headers.location, `http://localhost:3000/sso/interaction/${id}`, 'back to the request, signed in');
});

t.test('SIGNUP=invite: only an invitation opens the form, with its address fixed; it creates a verified account once', async (t) => {
  const test = await build(t, { env: { SIGNUP: 'invite' } });
  // A subscription to user.created (issue 20): the account and its event commit together.
  await subscribeToEvents(test.db, ['user.created']);
  t.equal((await test.app.inject({ method: 'GET', url: '/sso/account/signup' })).statusCode, 403);
  const signIn = await new Browser().request(test.app, 'GET', '/sso/account/sign-in');
  t.notMatch(signIn.body, 'Create an account', 'no link to a form nobody may use');
  const ctx = adminContext(test.config, pino({ level: 'silent' }), test.db);
  await inviteUser(ctx, 'hatter@example.org');
  await t.rejects(inviteUser(ctx, ALICE.email), /exists already/, 'an address that is an account is not invited');
  const row = await test.db.selectFrom('outbox').select(['payload', 'address']).where('kind', '=', 'invitation').executeTakeFirstOrThrow();
  t.equal(row.address, 'hatter@example.org');
  const url = String((typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload).url);
  const browser = new Browser();
  const form = await browser.request(test.app, 'GET', localPath(url));
  t.equal(form.statusCode, 200);
  t.match(form.body, 'Email address: <strong>hatter@example.org</strong>');
  const invite = hiddenField(form.body, 'invite');
  const done = await post(test, browser, '/sso/account/signup', {
    invite,
    email: 'someone-else@example.org',
    name: 'Hatter',
    password: 'tea time forever',
    repeat: 'tea time forever',
  });
  t.equal(done.statusCode, 303);
  t.equal(done.headers.location, 'http://localhost:3000/sso/account?done=signed-up', 'created and signed in at once');
  const user = await userOf(test, 'hatter@example.org');
  t.equal(user?.email_verified, true, 'the invitation reached the address: verified');
  t.notOk(await userOf(test, 'someone-else@example.org'), 'the address is the invitation’s, whatever the form says');
  const queued = await test.db.selectFrom('webhook_deliveries').select(['event_type', 'payload']).execute();
  t.match(queued, [{ event_type: 'user.created', payload: { email: 'hatter@example.org', via: 'invitation' } }], 'one user.created event');
  t.equal(queued.length, 1);
  const reused = await post(test, new Browser(), '/sso/account/signup', {
    invite,
    email: 'x@example.org',
    name: 'X',
    password: 'tea time forever',
    repeat: 'tea time forever',
  });
  t.equal(reused.statusCode, 403, 'an invitation works once');
});
