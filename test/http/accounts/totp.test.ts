// Authenticator apps (TOTP) on the account page: enrolment confirmed by a valid current code, removal by one,
// replayed and wrong codes refused, the secret encrypted at rest and never logged; and a challenged sign-in
// answered with the app's code instead of a code sent through the outbox.
import { decodeJwt } from 'jose';
import pino from 'pino';
import t from 'tap';
import { base32Encode } from '../../../src/domain/accounts/base32.js';
import { totp } from '../../../src/domain/accounts/totp.js';
import { buildApp } from '../../../src/app.js';
import { ALICE, buildTestApp, CONFIDENTIAL, testConfig } from '../../helpers/app.js';
import { accountPage, accountSignIn, enrol, KEYS_SECRET, startEnrolment, TestClock } from '../../helpers/account.js';
import { Browser, authorizePath, hiddenField, localPath, pkcePair, secondFactorForm, tokenRequest } from '../../helpers/flow.js';

const ACCOUNT = 'http://localhost:3000/sso/account';

/** Posts a code on the second-factor page, with the CSRF token the page echoes from the challenge cookie. */
function answerCode(app: Parameters<typeof accountSignIn>[0], browser: Browser, code: string) {
  return browser.request(app, 'POST', '/sso/sign-in/verify', secondFactorForm(browser.get('sso_challenge'), code));
}
/** Any new device is challenged: the second factor is the subject here. */
const CHALLENGE_NEW_DEVICES = { ...KEYS_SECRET, RISK_WEIGHTS: 'NEW_DEVICE=30' };

t.test('enrolment shows a QR code of the otpauth URI and the manual key, and waits for a code', async (t) => {
  const clock = new TestClock();
  const { app, db } = await buildTestApp(t, { env: KEYS_SECRET, clock: clock.now });
  const browser = await accountSignIn(app);
  const { secret, page } = await startEnrolment(app, browser);
  t.equal(page.statusCode, 200);
  t.equal(page.headers['cache-control'], 'no-store', 'the page holding the secret is never cached');
  t.notMatch(String(page.headers['content-security-policy']), /script-src/);
  t.notMatch(page.body, /<script/);
  t.equal(secret.length, 20, 'a 160-bit secret (RFC 4226 4)');
  const qr = /<img class="qr" src="data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)"/.exec(page.body);
  t.ok(qr, 'the QR code is an inline SVG image (img-src data:)');
  t.match(Buffer.from(qr![1]!, 'base64').toString(), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  t.match(page.body, new RegExp(`<code class="key" id="manual-key">${base32Encode(secret).replace(/(.{4})(?=.)/g, '$1 ')}</code>`));
  const row = await db.selectFrom('totp_authenticators').selectAll().executeTakeFirstOrThrow();
  t.equal(row.confirmed_at, null, 'pending until a code confirms it');
  const account = await accountPage(app, browser);
  t.match(account.page.body, /Finish setting up the app/);
});

t.test('enrolment is confirmed only by a valid current code', async (t) => {
  const clock = new TestClock();
  const { app, db } = await buildTestApp(t, { env: KEYS_SECRET, clock: clock.now });
  const browser = await accountSignIn(app);
  const { secret, csrf } = await startEnrolment(app, browser);
  const stale = totp(secret, new Date(clock.now().getTime() - 90_000));
  for (const code of ['000000', 'abcdef', '', stale]) {
    if (code === totp(secret, clock.now())) continue;
    const res = await browser.request(app, 'POST', '/sso/account/totp/confirm', { csrf, code });
    t.equal(res.statusCode, 400, `refused: ${JSON.stringify(code)}`);
    t.match(res.body, /That code is not right, or it was already used/);
    t.match(res.body, /id="manual-key"/, 'the enrolment page again');
  }
  t.equal((await db.selectFrom('totp_authenticators').select('confirmed_at').executeTakeFirstOrThrow()).confirmed_at, null);
  const res = await browser.request(app, 'POST', '/sso/account/totp/confirm', {
    csrf,
    code: totp(secret, clock.now()).replace(/^(...)/, '$1 '),
  });
  t.equal(res.statusCode, 303, 'the code as the app shows it, "123 456"');
  t.equal(res.headers.location, `${ACCOUNT}?done=totp-enrolled`);
  const page = await browser.request(app, 'GET', localPath(String(res.headers.location)));
  t.match(page.body, /Your authenticator app is set up\./);
  t.match(page.body, /An authenticator app is set up/);
  t.ok((await db.selectFrom('totp_authenticators').select('confirmed_at').executeTakeFirstOrThrow()).confirmed_at);
  t.equal((await db.selectFrom('security_events').select('type').where('type', '=', 'totp_enrolled').execute()).length, 1);
  t.equal((await browser.request(app, 'GET', '/sso/account/totp')).headers.location, ACCOUNT, 'no enrolment page once confirmed');
});

t.test('a code one time step away either way is accepted at enrolment (clock drift)', async (t) => {
  for (const offset of [-30, 30]) {
    const clock = new TestClock();
    const { app } = await buildTestApp(t, { env: KEYS_SECRET, clock: clock.now });
    const browser = await accountSignIn(app);
    const { secret, csrf } = await startEnrolment(app, browser);
    const res = await browser.request(app, 'POST', '/sso/account/totp/confirm', {
      csrf,
      code: totp(secret, new Date(clock.now().getTime() + offset * 1000)),
    });
    t.equal(res.statusCode, 303, `a phone ${offset} s off`);
  }
});

t.test('RFC 4226 7.3: each run of wrong codes locks the authenticator twice as long as the last, and the page says how long', async (t) => {
  const clock = new TestClock(new Date());
  const { app, config } = await buildTestApp(t, { env: KEYS_SECRET, clock: clock.now });
  const browser = await accountSignIn(app);
  const secret = await enrol(app, browser, clock.now());
  const { csrf } = await accountPage(app, browser);
  const remove = (code: string) => browser.request(app, 'POST', '/sso/account/totp/remove', { csrf, code });
  const wrongNow = () => (totp(secret, clock.now()) === '000000' ? '111111' : '000000');
  t.equal(config.secondFactorTtlSeconds, 300, 'the first lock lasts SECOND_FACTOR_TTL_SECONDS');
  for (const [run, wait] of [
    [1, '5 minutes'],
    [2, '10 minutes'],
    [3, '20 minutes'],
  ] as const) {
    clock.advance(30);
    for (let i = 1; i <= config.secondFactorMaxAttempts; i += 1) {
      t.equal((await remove(wrongNow())).statusCode, 400, `run ${run}, wrong code ${i}`);
    }
    const locked = await remove(totp(secret, clock.now()));
    t.equal(locked.statusCode, 429, `run ${run}: locked, even against the right code`);
    t.match(locked.body, `Too many wrong codes. Wait ${wait}, then try again.`);
    clock.advance(300 * 2 ** (run - 1) - 1);
    t.equal((await remove(totp(secret, clock.now()))).statusCode, 429, `run ${run}: still locked a second before its end`);
    clock.advance(1);
  }
  clock.advance(30);
  t.equal((await remove(totp(secret, clock.now()))).statusCode, 303, 'once the third lock ends, the right code removes the app');
});

t.test('a second enrolment is refused while an authenticator is set up', async (t) => {
  const clock = new TestClock();
  const { app } = await buildTestApp(t, { env: KEYS_SECRET, clock: clock.now });
  const browser = await accountSignIn(app);
  await enrol(app, browser, clock.now());
  const { csrf } = await accountPage(app, browser);
  const res = await browser.request(app, 'POST', '/sso/account/totp', { csrf });
  t.equal(res.statusCode, 409);
  t.match(res.body, /An authenticator app is already set up/);
});

t.test('starting an enrolment more than 5 minutes after signing in asks for the password again (max auth age)', async (t) => {
  const clock = new TestClock();
  const { app, db } = await buildTestApp(t, { env: KEYS_SECRET, clock: clock.now });
  const browser = await accountSignIn(app);
  clock.advance(301);
  const { csrf } = await accountPage(app, browser);
  const late = await browser.request(app, 'POST', '/sso/account/totp', { csrf });
  t.equal(late.statusCode, 303);
  t.equal(late.headers.location, 'http://localhost:3000/sso/account/sign-in?notice=reauth');
  t.equal(await db.selectFrom('totp_authenticators').select('user_id').executeTakeFirst(), undefined, 'nothing was started');

  // The sign-in page shows its form although the browser is signed in, with the user's login filled in.
  const form = await browser.request(app, 'GET', localPath(String(late.headers.location)));
  t.equal(form.statusCode, 200);
  t.match(form.body, /confirm that it is you: enter your password again/);
  t.match(form.body, new RegExp(`name="login" value="${ALICE.username}"`));
  // Without the notice, a signed-in browser still goes straight to its account page.
  t.equal((await browser.request(app, 'GET', '/sso/account/sign-in')).statusCode, 303);

  const signedIn = await browser.request(app, 'POST', '/sso/account/sign-in', {
    csrf: hiddenField(form.body, 'csrf'),
    login: ALICE.username,
    password: ALICE.password,
  });
  t.equal(signedIn.headers.location, ACCOUNT);
  const fresh = await accountPage(app, browser);
  const started = await browser.request(app, 'POST', '/sso/account/totp', { csrf: fresh.csrf });
  t.equal(started.headers.location, `${ACCOUNT}/totp`, 'a fresh sign-in may start it');
});

t.test('a started enrolment is shown and confirmed within 15 minutes of signing in, not later', async (t) => {
  const clock = new TestClock();
  const { app, db } = await buildTestApp(t, { env: KEYS_SECRET, clock: clock.now });
  const browser = await accountSignIn(app);
  clock.advance(290);
  const { secret, csrf } = await startEnrolment(app, browser);
  clock.advance(600);
  t.equal((await browser.request(app, 'GET', '/sso/account/totp')).statusCode, 200, '14 min 50 s after signing in: still shown');
  clock.advance(30);
  const shown = await browser.request(app, 'GET', '/sso/account/totp');
  t.equal(shown.statusCode, 303);
  t.equal(shown.headers.location, 'http://localhost:3000/sso/account/sign-in?notice=reauth');
  t.notMatch(shown.body, /manual-key/);
  const confirm = await browser.request(app, 'POST', '/sso/account/totp/confirm', { csrf, code: totp(secret, clock.now()) });
  t.equal(confirm.headers.location, 'http://localhost:3000/sso/account/sign-in?notice=reauth');
  t.equal(
    (await db.selectFrom('totp_authenticators').select('confirmed_at').executeTakeFirstOrThrow()).confirmed_at,
    null,
    'not confirmed',
  );
});

t.test('removing the authenticator asks for a current code, and refuses the code already used (replay)', async (t) => {
  const clock = new TestClock();
  const { app, db } = await buildTestApp(t, { env: KEYS_SECRET, clock: clock.now });
  const browser = await accountSignIn(app);
  // The clock runs: a code computed again after the enrolment could fall in the next 30-second step, a new code.
  const enrolledAt = clock.now();
  const secret = await enrol(app, browser, enrolledAt);
  const { csrf } = await accountPage(app, browser);
  const used = totp(secret, enrolledAt);
  const replay = await browser.request(app, 'POST', '/sso/account/totp/remove', { csrf, code: used });
  t.equal(replay.statusCode, 400, 'the code that confirmed the enrolment cannot serve again');
  t.match(replay.body, /That code is not right, or it was already used/);
  const wrong = await browser.request(app, 'POST', '/sso/account/totp/remove', { csrf, code: used === '123456' ? '654321' : '123456' });
  t.equal(wrong.statusCode, 400);
  t.ok(await db.selectFrom('totp_authenticators').select('user_id').executeTakeFirst(), 'still there');

  clock.advance(30);
  const res = await browser.request(app, 'POST', '/sso/account/totp/remove', { csrf, code: totp(secret, clock.now()) });
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, `${ACCOUNT}?done=totp-removed`);
  t.equal(await db.selectFrom('totp_authenticators').select('user_id').executeTakeFirst(), undefined);
  t.equal((await db.selectFrom('security_events').select('type').where('type', '=', 'totp_removed').execute()).length, 1);
  t.match((await browser.request(app, 'GET', '/sso/account')).body, /Set up an authenticator app/);
});

t.test('too many wrong codes in a row lock the authenticator for a while, even against the right code', async (t) => {
  const clock = new TestClock();
  const { app, config } = await buildTestApp(t, { env: KEYS_SECRET, clock: clock.now });
  const browser = await accountSignIn(app);
  const secret = await enrol(app, browser, clock.now());
  const { csrf } = await accountPage(app, browser);
  clock.advance(30);
  const right = totp(secret, clock.now());
  const wrong = right === '000000' ? '111111' : '000000';
  for (let i = 0; i < config.secondFactorMaxAttempts; i += 1) {
    t.equal((await browser.request(app, 'POST', '/sso/account/totp/remove', { csrf, code: wrong })).statusCode, 400);
  }
  const locked = await browser.request(app, 'POST', '/sso/account/totp/remove', { csrf, code: right });
  t.equal(locked.statusCode, 429);
  t.match(locked.body, /Too many wrong codes/);
  clock.advance(config.secondFactorTtlSeconds + 1);
  const later = await browser.request(app, 'POST', '/sso/account/totp/remove', { csrf, code: totp(secret, clock.now()) });
  t.equal(later.statusCode, 303, 'the lock ends');
});

t.test('the secret is stored encrypted, and neither the secret nor its key appears in the log', async (t) => {
  const clock = new TestClock();
  const lines: string[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => lines.push(line) });
  const { app, db } = await buildTestApp(t, { env: { ...KEYS_SECRET, LOG_LEVEL: 'trace' }, clock: clock.now, logger });
  const browser = await accountSignIn(app);
  const secret = await enrol(app, browser, clock.now());
  const row = await db.selectFrom('totp_authenticators').select('secret').executeTakeFirstOrThrow();
  const stored = JSON.stringify(row.secret);
  t.match(row.secret, { v: 1, iv: String, tag: String, ciphertext: String }, 'an AES-GCM envelope');
  for (const form of [secret.toString('base64url'), secret.toString('base64'), secret.toString('hex'), base32Encode(secret)]) {
    t.notOk(stored.includes(form), 'the row does not hold the secret in the clear');
    t.notOk(
      lines.some((l) => l.includes(form)),
      'no log line holds the secret',
    );
  }
  t.notOk(
    lines.some((l) => l.includes(KEYS_SECRET.KEYS_ENCRYPTION_SECRET)),
    'nor the encryption secret',
  );
  t.ok(lines.length > 0, 'the log did record the requests');
});

t.test('an envelope moved to another user does not open (the user id is authenticated data)', async (t) => {
  const clock = new TestClock();
  const { app, db } = await buildTestApp(t, { env: CHALLENGE_NEW_DEVICES, clock: clock.now });
  await enrol(app, await accountSignIn(app), clock.now());
  const alice = await db.selectFrom('totp_authenticators').selectAll().executeTakeFirstOrThrow();
  const bob = await db.selectFrom('users').select('id').where('username', '=', 'bob').executeTakeFirstOrThrow();
  await db
    .insertInto('totp_authenticators')
    .values({ user_id: bob.id, secret: JSON.stringify(alice.secret), created_at: alice.created_at, confirmed_at: alice.confirmed_at })
    .execute();
  await accountSignIn(app, new Browser(), { username: 'bob', password: 'bob-password-123' }); // Bob's first device
  // On a new device Bob is challenged: the envelope does not open for him, so a code is sent instead.
  const other = new Browser();
  const form = await other.request(app, 'GET', '/sso/account/sign-in');
  await other.request(app, 'POST', '/sso/account/sign-in', {
    csrf: hiddenField(form.body, 'csrf'),
    login: 'bob',
    password: 'bob-password-123',
  });
  const page = await other.request(app, 'GET', '/sso/sign-in/verify');
  t.match(page.body, /We have sent you a six-digit code/);
});

t.test('without KEYS_ENCRYPTION_SECRET an authenticator app works, its secret kept in the clear like the signing keys', async (t) => {
  const clock = new TestClock();
  const { app, db } = await buildTestApp(t, { clock: clock.now });
  const browser = await accountSignIn(app);
  const secret = await enrol(app, browser, clock.now());
  const row = await db.selectFrom('totp_authenticators').select(['secret', 'confirmed_at']).executeTakeFirstOrThrow();
  t.ok(row.confirmed_at, 'enrolled');
  t.same(row.secret, { v: 0, clear: secret.toString('base64url') }, 'stored in the clear, marked as such');
  clock.advance(30);
  const { csrf } = await accountPage(app, browser);
  const removed = await browser.request(app, 'POST', '/sso/account/totp/remove', { csrf, code: totp(secret, clock.now()) });
  t.equal(removed.statusCode, 303, 'a current code removes it: the clear secret opens');
});

t.test('a secret kept in the clear still opens once KEYS_ENCRYPTION_SECRET is set, and a new enrolment is then encrypted', async (t) => {
  const clock = new TestClock();
  const first = await buildTestApp(t, { clock: clock.now });
  const secret = await enrol(first.app, await accountSignIn(first.app), clock.now());
  // The same database, restarted with the secret set.
  const second = await buildApp(testConfig(KEYS_SECRET), {
    db: first.db,
    logger: pino({ level: 'silent' }),
    clock: clock.now,
    notifier: null,
  });
  t.teardown(() => second.close());
  await second.ready();
  clock.advance(30);
  const browser = await accountSignIn(second);
  const { csrf } = await accountPage(second, browser);
  const removed = await browser.request(second, 'POST', '/sso/account/totp/remove', { csrf, code: totp(secret, clock.now()) });
  t.equal(removed.statusCode, 303, 'the clear secret opens under the encrypting configuration');
  await startEnrolment(second, browser);
  const row = await first.db.selectFrom('totp_authenticators').select('secret').executeTakeFirstOrThrow();
  t.equal((row.secret as Record<string, unknown>).v, 1, 'the new secret is an encrypted envelope');
  t.notOk('clear' in (row.secret as Record<string, unknown>));
});

/** Starts an authorization request in a new browser and posts Alice's password: the browser is at the second factor. */
async function challengedSignIn(app: Parameters<typeof accountSignIn>[0]) {
  const browser = new Browser();
  const { verifier, challenge } = pkcePair();
  const start = await browser.request(
    app,
    'GET',
    authorizePath({
      response_type: 'code',
      client_id: CONFIDENTIAL.client_id,
      redirect_uri: CONFIDENTIAL.redirect_uris[0],
      scope: 'openid',
      state: 's',
      nonce: 'n',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }),
  );
  const login = await browser.request(app, 'GET', localPath(String(start.headers.location)));
  const posted = await browser.request(app, 'POST', localPath(/action="([^"]+)"/.exec(login.body)![1]!), {
    csrf: hiddenField(login.body, 'csrf'),
    login: ALICE.username,
    password: ALICE.password,
  });
  if (posted.headers.location !== 'http://localhost:3000/sso/sign-in/verify') throw new Error(`not challenged: ${posted.statusCode}`);
  return { browser, verifier };
}

t.test('a challenged sign-in of a user with an authenticator asks for its code and sends nothing', async (t) => {
  const clock = new TestClock();
  const { app, db } = await buildTestApp(t, { env: CHALLENGE_NEW_DEVICES, clock: clock.now });
  const enrolledAt = clock.now();
  const secret = await enrol(app, await accountSignIn(app), enrolledAt);
  const { browser, verifier } = await challengedSignIn(app);
  const page = await browser.request(app, 'GET', '/sso/sign-in/verify');
  t.equal(page.statusCode, 200);
  t.match(page.body, /Enter the six-digit code your authenticator app shows now\./);
  t.equal(
    (await db.selectFrom('outbox').select('id').where('kind', '=', 'one-time-code').execute()).length,
    0,
    'no code went through the outbox',
  );

  // The enrolment's own code: TestClock follows the wall clock, so a step may have begun since (RFC 6238 5.2 still
  // accepts the previous step's code, and refuses it only as a replay).
  const replayed = await answerCode(app, browser, totp(secret, enrolledAt));
  t.equal(replayed.statusCode, 401, 'the code used at enrolment is a replay');
  t.match(replayed.body, /authenticator app/);
  clock.advance(30);
  const answered = await answerCode(app, browser, totp(secret, clock.now()));
  t.equal(answered.statusCode, 303);
  const consent = await browser.request(app, 'GET', localPath(String(answered.headers.location)));
  const allowed = await browser.request(app, 'POST', localPath(/action="([^"]+)"/.exec(consent.body)![1]!), {
    csrf: hiddenField(consent.body, 'csrf'),
    decision: 'allow',
  });
  const code = new URL(String(allowed.headers.location)).searchParams.get('code')!;
  const tokens = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: CONFIDENTIAL.redirect_uris[0],
    code_verifier: verifier,
  });
  t.same(
    decodeJwt((tokens.json() as { id_token: string }).id_token).amr,
    ['pwd', 'otp', 'mfa'],
    'RFC 8176: password, one-time password, multiple factors',
  );

  const again = await answerCode(app, browser, totp(secret, clock.now()));
  t.equal(again.statusCode, 400, 'the challenge is used up');
});

t.test('RFC 6585 4: a challenge answered while the authenticator is locked says how long to wait, with Retry-After', async (t) => {
  const clock = new TestClock();
  const { app, config } = await buildTestApp(t, { env: CHALLENGE_NEW_DEVICES, clock: clock.now });
  const account = await accountSignIn(app);
  const secret = await enrol(app, account, clock.now());
  const { csrf } = await accountPage(app, account);
  clock.advance(30);
  const wrong = totp(secret, clock.now()) === '000000' ? '111111' : '000000';
  for (let i = 0; i < config.secondFactorMaxAttempts; i += 1) {
    await account.request(app, 'POST', '/sso/account/totp/remove', { csrf, code: wrong });
  }
  clock.advance(60);
  const { browser } = await challengedSignIn(app);
  const res = await answerCode(app, browser, totp(secret, clock.now()));
  t.equal(res.statusCode, 429);
  t.equal(res.headers['retry-after'], '240', 'the lock of 300 s began a minute ago');
  t.match(res.body, 'Too many wrong codes. Wait 4 minutes, then try again with a new code.');
});

t.test('wrong authenticator codes at a challenge are limited like one-time codes', async (t) => {
  const clock = new TestClock();
  const { app, db, config } = await buildTestApp(t, { env: CHALLENGE_NEW_DEVICES, clock: clock.now });
  const secret = await enrol(app, await accountSignIn(app), clock.now());
  const { browser } = await challengedSignIn(app);
  clock.advance(30);
  const right = totp(secret, clock.now());
  const wrong = right === '000000' ? '111111' : '000000';
  for (let i = 1; i < config.secondFactorMaxAttempts; i += 1) {
    const res = await answerCode(app, browser, wrong);
    t.equal(res.statusCode, 401, `wrong code ${i}`);
    t.match(res.body, /That code is not right/);
  }
  const last = await answerCode(app, browser, wrong);
  t.match(last.body, /This sign-in has expired/, 'the last attempt ends the challenge');
  const late = await answerCode(app, browser, right);
  t.equal(late.statusCode, 400, 'even the right code is too late');
  t.notOk(browser.get('sso_session'));
  const failures = await db.selectFrom('security_events').select('details').where('type', '=', 'second_factor_failed').execute();
  t.equal(failures.length, config.secondFactorMaxAttempts);
  t.match(failures[0]!.details, { method: 'totp' });
});

t.test('one code cannot answer two challenges, even sent at the same moment', async (t) => {
  const clock = new TestClock();
  const { app } = await buildTestApp(t, { env: CHALLENGE_NEW_DEVICES, clock: clock.now });
  const secret = await enrol(app, await accountSignIn(app), clock.now());
  const first = await challengedSignIn(app);
  const second = await challengedSignIn(app);
  clock.advance(30);
  const code = totp(secret, clock.now());
  const answers = await Promise.all([first, second].map(({ browser }) => answerCode(app, browser, code)));
  t.same(answers.map((a) => a.statusCode).sort(), [303, 401], 'one signs in, the other is refused as a replay');
});
