// A CHALLENGE verdict (issue 5): no session until a one-time code, sent through the outbox notifier, comes back on
// the code page; wrong codes limited, expiry, single use, the sent payload wiped, amr in the ID token.
import { randomBytes } from 'node:crypto';
import t, { type Test } from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { DeviceBrowser, idTokenClaims } from '../../helpers/device-browser.js';
import { secondFactorForm } from '../../helpers/flow.js';
import { CapturingNotifier } from '../../helpers/notifier.js';
import { riskEnv } from '../../helpers/risk.js';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { applySeed } from '../../../src/domain/admin/seed.js';
import { findUserByUsername } from '../../../src/storage/users.js';

/** What the page script posts in an automated browser: navigator.webdriver is true (AUTOMATION, 60 points). */
const WEBDRIVER = { ds_webdriver: '1', ds_tz: 'UTC', ds_hc: '4', ds_screen: '1280x720', ds_langs: 'en-US' };
const START_AGAIN = 'This sign-in has expired. Go back to the application and sign in again.';

const notifier = new CapturingNotifier();
const testApp: TestApp = await buildTestApp(t, {
  notifier,
  // Explicit: AUTOMATION (60) challenges (30) without blocking (80); three wrong codes at most; five minutes.
  env: riskEnv({
    SECOND_FACTOR_MAX_ATTEMPTS: '3',
    SECOND_FACTOR_TTL_SECONDS: '300',
    SIGN_IN_ACCOUNT_FREE_ATTEMPTS: '3',
    SIGN_IN_IP_FREE_ATTEMPTS: '0',
  }),
});
const { app, db } = testApp;

async function newUser(name: string) {
  const username = `${name}-${randomBytes(3).toString('hex')}`;
  const user = { username, password: `pw-${randomBytes(6).toString('hex')}` };
  await applySeed(db, new PasswordHasher(testApp.config.argon2), { clients: [], users: [user] });
  return { ...user, id: (await findUserByUsername(db, username))!.id };
}

// Each test on a network of its own, so that no counter of one test reaches into another.
let networks = 0;
const newBrowser = () => {
  networks += 1;
  return new DeviceBrowser({ ip: `10.20.${networks}.1` });
};

function setCookie(res: LightMyRequestResponse, name: string): string | undefined {
  const raw = res.headers['set-cookie'];
  const all = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return all.find((c) => c.startsWith(`${name}=`));
}

/** A browser whose sign-in was challenged; the code the user was sent. */
async function challenged(t: Test, name = 'challenged') {
  const user = await newUser(name);
  const browser = newBrowser();
  const page = await browser.openLogin(app);
  const res = await browser.login(app, page, user, WEBDRIVER);
  t.equal(res.statusCode, 303, 'the password is accepted');
  t.equal(res.headers.location, `${testApp.config.issuer}/sign-in/verify`, 'and the browser is sent to the code page');
  return { user, browser, page, res };
}

async function sessionsOf(userId: string): Promise<number> {
  const row = await db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

t.test('a challenged sign-in makes no session: the browser gets a challenge cookie and the code page', async (t) => {
  const { user, browser, res } = await challenged(t);
  t.notOk(setCookie(res, 'sso_session'), 'no session cookie');
  t.equal(await sessionsOf(user.id), 0, 'no session row');
  const cookie = setCookie(res, 'sso_challenge');
  t.match(cookie, /; HttpOnly/i);
  t.match(cookie, /; SameSite=Lax/i);
  t.match(cookie, /; Path=\/sso\/sign-in(;|$)/);
  t.match(browser.cookie('sso_challenge'), /^[A-Za-z0-9_-]{43}$/, '256 random bits');
  const codePage = await browser.request(app, 'GET', '/sso/sign-in/verify');
  t.equal(codePage.statusCode, 200);
  t.match(codePage.body, /name="code"/);
  t.match(codePage.body, /autocomplete="one-time-code"/);
});

t.test('a challenged sign-in sends a six-digit one-time code through the outbox notifier to that user', async (t) => {
  const { user } = await challenged(t);
  t.match(await notifier.code(user.id), /^\d{6}$/);
});

t.test('a challenged sign-in is stored as a sign_in_challenged security event with its reasons', async (t) => {
  const { user } = await challenged(t);
  const event = await db
    .selectFrom('security_events')
    .selectAll()
    .where('user_id', '=', user.id)
    .where('type', '=', 'sign_in_challenged')
    .executeTakeFirst();
  t.ok(event);
  const details = (typeof event!.details === 'string' ? JSON.parse(event!.details) : event!.details) as {
    action: string;
    reasons: string[];
    score: number;
  };
  t.equal(details.action, 'CHALLENGE');
  t.ok(details.reasons.includes('AUTOMATION'));
  t.equal(details.score, 60);
});

t.test('the right code completes the sign-in: a session, back to the sign-in page, and on to the client', async (t) => {
  const { user, browser, page } = await challenged(t);
  const res = await browser.answer(app, await notifier.code(user.id));
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, `http://localhost:3000${page.path}`, 'back where the sign-in started');
  t.ok(setCookie(res, 'sso_session'), 'the session cookie is set');
  t.match(setCookie(res, 'sso_challenge'), /Max-Age=0|Expires=Thu, 01 Jan 1970/i, 'the challenge cookie is cleared');
  t.equal(await sessionsOf(user.id), 1);
  t.ok(await browser.finish(app, res), 'the client gets its code');
});

t.test("after a challenge the ID token's amr includes pwd and otp (OIDC Core 2, RFC 8176 2)", async (t) => {
  const { user, browser, page } = await challenged(t);
  const code = await browser.finish(app, await browser.answer(app, await notifier.code(user.id)));
  const claims = await idTokenClaims(app, code, page);
  t.equal(claims.sub, user.id);
  t.ok(Array.isArray(claims.amr));
  t.ok((claims.amr as string[]).includes('pwd'), 'pwd');
  t.ok((claims.amr as string[]).includes('otp'), 'otp');
  t.equal(claims.nonce, page.nonce);
});

t.test('after a plain sign-in the ID token\'s amr is exactly ["pwd"] (OIDC Core 2, RFC 8176 2)', async (t) => {
  const user = await newUser('plain');
  const browser = newBrowser();
  const page = await browser.openLogin(app);
  const res = await browser.login(app, page, user);
  t.equal(res.statusCode, 303);
  t.not(res.headers.location, `${testApp.config.issuer}/sign-in/verify`, 'not challenged');
  const claims = await idTokenClaims(app, await browser.finish(app, res), page);
  t.same(claims.amr, ['pwd']);
  const devices = await db.selectFrom('devices').select('trusted').where('user_id', '=', user.id).execute();
  t.same(devices, [{ trusted: false }], 'a password alone does not make a device trusted');
});

t.test('the session and the sign_in_allowed event of a challenged sign-in record how the user signed in', async (t) => {
  const { user, browser } = await challenged(t);
  await browser.answer(app, await notifier.code(user.id));
  const session = await db.selectFrom('sessions').select(['amr', 'device_id']).where('user_id', '=', user.id).executeTakeFirstOrThrow();
  t.ok(session.amr.includes('otp'));
  t.ok(session.device_id, 'the session records its device');
  const device = await db.selectFrom('devices').select('trusted').where('id', '=', session.device_id!).executeTakeFirstOrThrow();
  t.equal(device.trusted, true, 'a second factor passed on a device makes it trusted');
  const allowed = await db
    .selectFrom('security_events')
    .select('details')
    .where('user_id', '=', user.id)
    .where('type', '=', 'sign_in_allowed')
    .executeTakeFirstOrThrow();
  const details = (typeof allowed.details === 'string' ? JSON.parse(allowed.details) : allowed.details) as { amr: string[] };
  t.ok(details.amr.includes('otp'));
});

t.test('a wrong code is refused on the code page with 401 and no session, and the attempt is recorded against the user', async (t) => {
  const { user, browser } = await challenged(t);
  const right = await notifier.code(user.id);
  const wrong = right === '000000' ? '111111' : '000000';
  const res = await browser.answer(app, wrong);
  t.equal(res.statusCode, 401);
  t.match(res.body, /That code is not right/);
  t.notOk(setCookie(res, 'sso_session'));
  t.equal(await sessionsOf(user.id), 0);
  const failed = await db
    .selectFrom('security_events')
    .select('user_id')
    .where('type', '=', 'second_factor_failed')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  t.equal(failed.user_id, user.id, 'the failed code names the user it was for');
});

t.test('wrong codes are limited: after SECOND_FACTOR_MAX_ATTEMPTS (3) wrong codes the right one is refused too', async (t) => {
  const { user, browser } = await challenged(t);
  const right = await notifier.code(user.id);
  const wrong = right === '000000' ? '111111' : '000000';
  t.equal((await browser.answer(app, wrong)).statusCode, 401, 'first wrong code');
  t.equal((await browser.answer(app, wrong)).statusCode, 401, 'second wrong code');
  const third = await browser.answer(app, wrong);
  t.equal(third.statusCode, 401, 'third wrong code');
  t.ok(third.body.includes(START_AGAIN.replace(/\./g, '.')), 'the page says to start again');
  const res = await browser.answer(app, right);
  t.equal(res.statusCode, 400, 'the challenge is dead');
  t.notOk(setCookie(res, 'sso_session'));
  t.equal(await sessionsOf(user.id), 0);
});

t.test('a malformed code counts as a wrong one', async (t) => {
  const { user, browser } = await challenged(t);
  const right = await notifier.code(user.id);
  for (const junk of ['abc', '12345', '1234567']) t.equal((await browser.answer(app, junk)).statusCode, 401, junk);
  t.equal((await browser.answer(app, right)).statusCode, 400, 'three malformed codes used up the attempts');
});

t.test('a code typed with spaces is accepted', async (t) => {
  const { user, browser } = await challenged(t);
  const right = await notifier.code(user.id);
  t.equal((await browser.answer(app, ` ${right.slice(0, 3)} ${right.slice(3)} `)).statusCode, 303);
});

t.test('an expired challenge is dead: after SECOND_FACTOR_TTL_SECONDS the right code signs nobody in', async (t) => {
  const { user, browser } = await challenged(t);
  const right = await notifier.code(user.id);
  testApp.advance(301);
  t.equal((await browser.request(app, 'GET', '/sso/sign-in/verify')).statusCode, 400, 'the code page says to start again');
  const res = await browser.request(app, 'POST', '/sso/sign-in/verify', secondFactorForm(browser.cookie('sso_challenge'), right));
  // The GET above cleared the cookie; a browser that kept it fares no better.
  t.equal(res.statusCode, 400);
  t.equal(await sessionsOf(user.id), 0);
});

t.test('an expired challenge refuses the right code even from a browser that kept its cookie', async (t) => {
  const { user, browser } = await challenged(t);
  const right = await notifier.code(user.id);
  testApp.advance(301);
  const res = await browser.answer(app, right);
  t.equal(res.statusCode, 400);
  t.match(res.body, /This sign-in has expired/);
  t.equal(await sessionsOf(user.id), 0);
});

t.test('a code is single use: replaying the challenge cookie and code signs nobody in again', async (t) => {
  const { user, browser } = await challenged(t);
  const right = await notifier.code(user.id);
  const challengeId = browser.cookie('sso_challenge')!;
  t.equal((await browser.answer(app, right)).statusCode, 303);
  const replay = await app.inject({
    method: 'POST',
    url: '/sso/sign-in/verify',
    headers: { cookie: `sso_challenge=${challengeId}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(secondFactorForm(challengeId, right)).toString(),
  });
  t.equal(replay.statusCode, 400);
  t.notOk(setCookie(replay, 'sso_session'));
  t.equal(await sessionsOf(user.id), 1, 'still the one session');
});

t.test("RFC 6749 10.12: the code page carries a CSRF token, the challenge cookie's value, like the sign-in form", async (t) => {
  const { browser } = await challenged(t);
  const page = await browser.request(app, 'GET', '/sso/sign-in/verify');
  t.equal(page.statusCode, 200);
  const token = /<input type="hidden" name="csrf" value="([^"]*)">/.exec(page.body)?.[1];
  t.ok(token, 'a hidden csrf field');
  t.equal(token, browser.cookie('sso_challenge'));
});

t.test('RFC 6749 10.12: a code posted with the challenge cookie but without or with a wrong CSRF token signs nobody in', async (t) => {
  const { user, browser } = await challenged(t);
  const right = await notifier.code(user.id);
  for (const csrf of [undefined, '', 'x'.repeat(43), `${browser.cookie('sso_challenge')}x`]) {
    const form: Record<string, string> = csrf === undefined ? { code: right } : { csrf, code: right };
    const res = await browser.request(app, 'POST', '/sso/sign-in/verify', form);
    t.equal(res.statusCode, 403, `csrf ${JSON.stringify(csrf)}: refused`);
    t.match(res.body, /did not come from this site/);
    t.notOk(setCookie(res, 'sso_session'), 'no session cookie');
  }
  t.equal(await sessionsOf(user.id), 0);
  t.equal((await browser.answer(app, right)).statusCode, 303, "the forged posts cost no attempt: the page's own form still works");
});

t.test('the code page posted without the challenge cookie (a form on another site) signs nobody in', async (t) => {
  const { user } = await challenged(t);
  const right = await notifier.code(user.id);
  const res = await app.inject({
    method: 'POST',
    url: '/sso/sign-in/verify',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `code=${right}`,
  });
  t.equal(res.statusCode, 400);
  t.equal(await sessionsOf(user.id), 0);
});

t.test('a code sent for one challenge does not complete another challenge of the same user', async (t) => {
  const { user, browser: first } = await challenged(t);
  const second = newBrowser();
  const page = await second.openLogin(app);
  t.equal((await second.login(app, page, user, WEBDRIVER)).statusCode, 303);
  const firstCode = await notifier.code(user.id, 1);
  const secondCode = await notifier.code(user.id, 2);
  if (firstCode === secondCode) t.pass('the two codes happen to be equal (one chance in a million): nothing to tell apart');
  else t.equal((await second.answer(app, firstCode)).statusCode, 401, 'the first code does not open the second challenge');
  t.equal((await first.answer(app, firstCode)).statusCode, 303, 'it opens its own');
});

t.test('a delivered message has its payload wiped from the outbox: no code stays at rest', async (t) => {
  const { user } = await challenged(t);
  await notifier.code(user.id);
  let row;
  for (let i = 0; i < 200; i += 1) {
    row = await db
      .selectFrom('outbox')
      .selectAll()
      .where('user_id', '=', user.id)
      .where('kind', '=', 'one-time-code')
      .executeTakeFirstOrThrow();
    if (row.sent_at) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  t.ok(row?.sent_at, 'marked as sent');
  const payload = typeof row!.payload === 'string' ? JSON.parse(row!.payload) : row!.payload;
  t.same(payload, {}, 'the code is gone');
});

t.test('the one-time code is stored only as a keyed digest in the challenge row', async (t) => {
  const { user } = await challenged(t);
  const code = await notifier.code(user.id);
  const row = await db.selectFrom('second_factor_challenges').selectAll().where('user_id', '=', user.id).executeTakeFirstOrThrow();
  t.notMatch(JSON.stringify(row), new RegExp(code), 'the code appears nowhere in the row');
  t.match(row.code_hash, /^[A-Za-z0-9_-]{43}$/);
});

t.test(
  "a challenge does not reset the account's throttle: repeated challenges left unanswered lock the account (RFC 6749 10.10)",
  async (t) => {
    // Three free attempts (SIGN_IN_ACCOUNT_FREE_ATTEMPTS): someone with the password but not the code cannot start
    // challenges without end, each good for SECOND_FACTOR_MAX_ATTEMPTS guesses at the code.
    const user = await newUser('guesser');
    const browser = newBrowser();
    const page = await browser.openLogin(app);
    for (let i = 1; i <= 3; i += 1) {
      const res = await browser.login(app, page, user, WEBDRIVER);
      t.equal(res.headers.location, `${testApp.config.issuer}/sign-in/verify`, `challenge ${i}`);
    }
    const locked = await browser.login(app, page, user, WEBDRIVER);
    t.equal(locked.statusCode, 429, 'the fourth is throttled');
  },
);

t.test("a challenge answered resets the account's throttle like a plain sign-in (RFC 6749 10.10)", async (t) => {
  const user = await newUser('answered');
  const browser = newBrowser();
  for (let i = 1; i <= 3; i += 1) {
    const page = await browser.openLogin(app, { prompt: 'login' });
    const res = await browser.login(app, page, user, WEBDRIVER);
    t.equal(res.headers.location, `${testApp.config.issuer}/sign-in/verify`, `challenge ${i}`);
    t.equal((await browser.answer(app, await notifier.code(user.id, i))).statusCode, 303, `answered ${i}`);
  }
  const page = await browser.openLogin(app, { prompt: 'login' });
  t.equal((await browser.login(app, page, user, WEBDRIVER)).statusCode, 303, 'not throttled');
});
