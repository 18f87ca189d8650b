// The device verification page (RFC 8628 3.3) through app.inject: the user code (its normalisation, wrong codes,
// CSRF, throttled entries), the sign-in through the login page's own password form, risk evaluation and second
// factor, the confirmation screen, Approve and Deny.
import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import t, { type Test } from 'tap';
import { DEVICE_SIGNALS_SCRIPT } from '../../../src/http/views/device-signals-script.js';
import { ALICE, buildTestApp, CONFIDENTIAL } from '../../helpers/app.js';
import { DEVICE_FIXTURES, enterCode, pageRequest, poll, startDevice, TV, verify } from '../../helpers/device.js';
import { Browser, formAction, hiddenField, localPath, obtainCode, secondFactorForm } from '../../helpers/flow.js';

const { app, db, config, advance } = await buildTestApp(t, { seed: DEVICE_FIXTURES });

const WRONG_CODE = /That code is not valid\. Check the code shown on your device: it may have expired\./;
const START_AGAIN = /This code has expired or was already used\. Start again on your device\./;

function assertPageHeaders(t: Test, res: LightMyRequestResponse, signInPage = false): void {
  t.equal(res.headers['content-type'], 'text/html; charset=utf-8');
  t.equal(res.headers['cache-control'], 'no-store');
  t.equal(res.headers['x-frame-options'], 'DENY');
  t.equal(res.headers['referrer-policy'], 'no-referrer');
  const policy = String(res.headers['content-security-policy']);
  t.match(policy, /default-src 'none'/);
  t.match(policy, /frame-ancestors 'none'/);
  if (signInPage) {
    const hash = createHash('sha256').update(DEVICE_SIGNALS_SCRIPT).digest('base64');
    t.match(policy, `script-src 'sha256-${hash}'`, 'the sign-in page runs its device-signals script and nothing else');
  } else {
    t.notMatch(policy, /script-src/, 'no script at all');
    t.notMatch(res.body, /<script/i);
  }
}

/** The browser's flow cookie (http issuer: unprefixed, Path=/sso/device). */
function flowCookie(res: LightMyRequestResponse) {
  return res.cookies.find((c) => c.name === 'sso_device_flow');
}

async function signedInBrowser(): Promise<Browser> {
  const { browser } = await obtainCode(app);
  return browser;
}

t.test(
  'the verification page asks for the code, with a CSRF token bound to a new HttpOnly, SameSite=Lax cookie, and no script',
  async (t) => {
    const res = await app.inject({ method: 'GET', url: '/sso/device' });
    t.equal(res.statusCode, 200);
    assertPageHeaders(t, res);
    t.match(res.body, /Enter the code shown on your device\./);
    t.match(res.body, /name="user_code"/);
    const cookie = flowCookie(res);
    t.ok(cookie, 'a flow cookie is set');
    t.equal(hiddenField(res.body, 'csrf'), cookie!.value, 'the CSRF field is the cookie');
    t.equal(cookie!.httpOnly, true);
    t.equal(cookie!.sameSite, 'Lax');
    t.equal(cookie!.path, '/sso/device');
    t.equal(formAction(res.body), '/sso/device');
  },
);

t.test(
  'verification_uri_complete fills in the code, normalised, and asks the user to compare it with the device (RFC 8628 3.3.1)',
  async (t) => {
    const res = await app.inject({ method: 'GET', url: '/sso/device?user_code=bcdf%20ghjk' });
    t.equal(res.statusCode, 200);
    t.match(res.body, /value="BCDF-GHJK"/);
    t.match(res.body, /Check that this is the code shown on your device/);
  },
);

t.test('opening the link looks nothing up and binds nothing', async (t) => {
  const device = await startDevice(app);
  const res = await app.inject({ method: 'GET', url: `/sso/device?user_code=${device.user_code}` });
  t.equal(res.statusCode, 200);
  const hash = createHash('sha256').update(device.device_code).digest('base64url');
  const row = await db
    .selectFrom('device_authorizations')
    .select('binding_hash')
    .where('device_code_hash', '=', hash)
    .executeTakeFirstOrThrow();
  t.equal(row.binding_hash, null);
});

t.test('the code is accepted in lower case, with spaces or without its dash', async (t) => {
  for (const variant of [
    (c: string) => c.toLowerCase(),
    (c: string) => c.replace('-', ' '),
    (c: string) => c.replace('-', ''),
    (c: string) => ` ${c} `,
  ]) {
    const device = await startDevice(app);
    const res = await enterCode(app, new Browser(), variant(device.user_code));
    t.equal(res.statusCode, 303, `${variant(device.user_code)}: ${res.body.slice(0, 200)}`);
    t.equal(res.headers.location, `${config.issuer}/device/confirm`);
  }
});

t.test('a wrong code is refused with the same message as an expired one, and the form is shown again', async (t) => {
  const res = await enterCode(app, new Browser(), 'BCDF-GHJK');
  t.equal(res.statusCode, 400);
  assertPageHeaders(t, res);
  t.match(res.body, WRONG_CODE);
  t.match(res.body, /value="BCDF-GHJK"/, 'what was typed is shown again');
  t.match(res.body, /name="csrf"/);
});

t.test('a malformed code (vowels, digits, too short) is a wrong code', async (t) => {
  for (const typed of ['AEIO-UAEI', '1234-5678', 'BCDF', '']) {
    const res = await enterCode(app, new Browser(), typed);
    t.equal(res.statusCode, 400, typed);
    t.match(res.body, WRONG_CODE);
  }
});

t.test('an expired code is refused like a wrong one', async (t) => {
  const device = await startDevice(app);
  advance(config.deviceFlow.codeTtlSeconds + 1);
  const res = await enterCode(app, new Browser(), device.user_code);
  t.equal(res.statusCode, 400);
  t.match(res.body, WRONG_CODE);
});

t.test('a code already decided is refused like a wrong one', async (t) => {
  const device = await startDevice(app);
  await verify(app, device.user_code);
  const res = await enterCode(app, new Browser(), device.user_code);
  t.equal(res.statusCode, 400);
  t.match(res.body, WRONG_CODE);
});

t.test('a code posted without the flow cookie (another site, or no visit first) is refused and binds nothing', async (t) => {
  const device = await startDevice(app);
  const res = await app.inject({
    method: 'POST',
    url: '/sso/device',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ csrf: 'A'.repeat(43), user_code: device.user_code }).toString(),
  });
  t.equal(res.statusCode, 400);
  t.match(res.body, /The form has expired or did not come from this site/);
  const hash = createHash('sha256').update(device.device_code).digest('base64url');
  const row = await db
    .selectFrom('device_authorizations')
    .select('binding_hash')
    .where('device_code_hash', '=', hash)
    .executeTakeFirstOrThrow();
  t.equal(row.binding_hash, null);
});

t.test('a code posted with a CSRF field that is not the cookie is refused', async (t) => {
  const device = await startDevice(app);
  const browser = new Browser();
  await pageRequest(app, browser, 'GET', '/sso/device');
  const res = await pageRequest(app, browser, 'POST', '/sso/device', { csrf: 'B'.repeat(43), user_code: device.user_code });
  t.equal(res.statusCode, 400);
  t.match(res.body, /The form has expired or did not come from this site/);
});

t.test('a right code binds the request to a new flow cookie, and without a session the sign-in page comes next', async (t) => {
  const device = await startDevice(app);
  const browser = new Browser();
  const entry = await pageRequest(app, browser, 'GET', '/sso/device');
  const before = flowCookie(entry)!.value;
  const res = await pageRequest(app, browser, 'POST', '/sso/device', { csrf: before, user_code: device.user_code });
  t.equal(res.statusCode, 303);
  const after = flowCookie(res)?.value;
  t.ok(after && after !== before, 'a new flow secret is issued with the binding');
  const login = await pageRequest(app, browser, 'GET', localPath(String(res.headers.location)));
  t.equal(login.statusCode, 200);
  assertPageHeaders(t, login, true);
  t.match(login.body, /type="password"/);
  t.match(login.body, `to continue to ${TV.client_name}`);
  t.equal(hiddenField(login.body, 'csrf'), after, 'the sign-in form carries the new secret');
  t.equal(formAction(login.body), '/sso/device/login');
});

t.test('a wrong password on the device sign-in gets the generic message and the form again', async (t) => {
  const device = await startDevice(app);
  const browser = new Browser();
  const entered = await enterCode(app, browser, device.user_code);
  const login = await pageRequest(app, browser, 'GET', localPath(String(entered.headers.location)));
  const res = await pageRequest(app, browser, 'POST', formAction(login.body), {
    csrf: hiddenField(login.body, 'csrf'),
    login: ALICE.username,
    password: 'wrong password',
  });
  t.equal(res.statusCode, 401);
  assertPageHeaders(t, res, true);
  t.match(res.body, /The username or password is not correct\./);
  t.match(res.body, /value="alice"/);
});

t.test('after signing in the confirmation shows the client, the device, when it asked, the account and the scopes', async (t) => {
  const device = await startDevice(app, { scope: 'openid email offline_access' });
  advance(120);
  const browser = new Browser();
  const entered = await enterCode(app, browser, device.user_code);
  const login = await pageRequest(app, browser, 'GET', localPath(String(entered.headers.location)));
  const signedIn = await pageRequest(app, browser, 'POST', formAction(login.body), {
    csrf: hiddenField(login.body, 'csrf'),
    login: ALICE.username,
    password: ALICE.password,
  });
  t.equal(signedIn.statusCode, 303, signedIn.body.slice(0, 300));
  t.equal(signedIn.headers.location, `${config.issuer}/device/confirm`);
  const confirm = await pageRequest(app, browser, 'GET', '/sso/device/confirm');
  t.equal(confirm.statusCode, 200);
  assertPageHeaders(t, confirm);
  t.match(confirm.body, `<dd id="client">${TV.client_name}</dd>`);
  t.match(confirm.body, '<dd id="device">Chrome on Android</dd>');
  t.match(confirm.body, /<dd id="asked"><time datetime="[^"]+">2 minutes ago<\/time> \(\d\d:\d\d UTC\)<\/dd>/);
  t.match(confirm.body, '<dd id="account">alice</dd>');
  t.match(confirm.body, 'Your email address');
  t.match(confirm.body, 'Keep access while you are not using the app');
  t.match(confirm.body, /If someone gave you this code, deny\./);
  t.match(confirm.body, /value="approve"/);
  t.match(confirm.body, /value="deny"/);
});

t.test('a browser already signed in goes straight to the confirmation', async (t) => {
  const device = await startDevice(app);
  const browser = await signedInBrowser();
  const entered = await enterCode(app, browser, device.user_code);
  const confirm = await pageRequest(app, browser, 'GET', localPath(String(entered.headers.location)));
  t.equal(confirm.statusCode, 200);
  t.match(confirm.body, /Connect this device\?/);
  t.notMatch(confirm.body, /type="password"/);
});

t.test('Approve says the device is connected, forgets the flow cookie, and the device gets its tokens', async (t) => {
  const device = await startDevice(app);
  const { res } = await verify(app, device.user_code, { browser: await signedInBrowser() });
  t.equal(res.statusCode, 200);
  assertPageHeaders(t, res);
  t.match(res.body, /Device connected/);
  const cleared = flowCookie(res);
  t.ok(
    cleared && (cleared.value === '' || cleared.maxAge === 0 || (cleared.expires !== undefined && cleared.expires.getTime() <= Date.now())),
    'the flow cookie is cleared',
  );
  t.equal((await poll(app, device.device_code)).statusCode, 200);
});

t.test('Deny says so, and the device gets access_denied', async (t) => {
  const device = await startDevice(app);
  const { res } = await verify(app, device.user_code, { decision: 'deny' });
  t.equal(res.statusCode, 200);
  t.match(res.body, /Request denied/);
  t.equal((await poll(app, device.device_code)).json().error, 'access_denied');
});

t.test('a decision posted twice counts once: the second answer is that the code was used', async (t) => {
  const device = await startDevice(app);
  const browser = await signedInBrowser();
  const entered = await enterCode(app, browser, device.user_code);
  const confirm = await pageRequest(app, browser, 'GET', localPath(String(entered.headers.location)));
  const form = { csrf: hiddenField(confirm.body, 'csrf'), decision: 'approve' };
  const cookie = browser.header('/sso/device/confirm');
  const post = () =>
    app.inject({
      method: 'POST',
      url: '/sso/device/confirm',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(form).toString(),
    });
  t.equal((await post()).statusCode, 200);
  const again = await post();
  t.equal(again.statusCode, 400);
  t.match(again.body, START_AGAIN);
});

t.test('a decision for a request that expired meanwhile is refused, and the device gets expired_token', async (t) => {
  const device = await startDevice(app);
  const browser = await signedInBrowser();
  const entered = await enterCode(app, browser, device.user_code);
  const confirm = await pageRequest(app, browser, 'GET', localPath(String(entered.headers.location)));
  advance(config.deviceFlow.codeTtlSeconds + 1);
  const res = await pageRequest(app, browser, 'POST', '/sso/device/confirm', {
    csrf: hiddenField(confirm.body, 'csrf'),
    decision: 'approve',
  });
  t.equal(res.statusCode, 400);
  t.match(res.body, START_AGAIN);
  t.equal((await poll(app, device.device_code)).json().error, 'expired_token');
});

t.test('a decision posted without the CSRF field is refused and decides nothing', async (t) => {
  const device = await startDevice(app);
  const browser = await signedInBrowser();
  await enterCode(app, browser, device.user_code);
  const res = await pageRequest(app, browser, 'POST', '/sso/device/confirm', { decision: 'approve' });
  t.equal(res.statusCode, 400);
  t.equal((await poll(app, device.device_code)).json().error, 'authorization_pending');
});

t.test('the confirmation without a bound request (no code typed in this browser) says to start again', async (t) => {
  const res = await app.inject({ method: 'GET', url: '/sso/device/confirm' });
  t.equal(res.statusCode, 400);
  assertPageHeaders(t, res);
  t.match(res.body, START_AGAIN);
});

t.test('the browser that typed the code last is the one that decides', async (t) => {
  const device = await startDevice(app);
  const first = await signedInBrowser();
  const entered = await enterCode(app, first, device.user_code);
  const confirm = await pageRequest(app, first, 'GET', localPath(String(entered.headers.location)));
  await enterCode(app, await signedInBrowser(), device.user_code);
  const res = await pageRequest(app, first, 'POST', '/sso/device/confirm', {
    csrf: hiddenField(confirm.body, 'csrf'),
    decision: 'approve',
  });
  t.equal(res.statusCode, 400);
  t.match(res.body, START_AGAIN);
});

t.test('user-code entries are throttled per address: a brute force is stopped, in the database', async (t) => {
  const throttled = await buildTestApp(t, {
    seed: DEVICE_FIXTURES,
    env: { USER_CODE_IP_FREE_ATTEMPTS: '3', SIGN_IN_LOCK_BASE_SECONDS: '2', SIGN_IN_LOCK_MAX_SECONDS: '8' },
  });
  const device = await startDevice(throttled.app);
  const attacker = '203.0.113.7';
  for (let i = 0; i < 3; i += 1) {
    const res = await enterCode(throttled.app, new Browser(), 'BCDF-GHJK', attacker);
    t.equal(res.statusCode, 400, `wrong guess ${i + 1} is answered`);
  }
  const locked = await enterCode(throttled.app, new Browser(), device.user_code, attacker);
  t.equal(locked.statusCode, 429, 'even the right code is refused while the address is locked, before any lookup');
  t.equal(locked.headers['retry-after'], '2');
  t.match(locked.body, /Too many attempts\. Try again in 2 seconds\./);
  const counters = await throttled.db
    .selectFrom('sign_in_throttle')
    .select(['key', 'failures'])
    .where('key', 'like', 'user-code-ip:%')
    .execute();
  t.equal(counters.length, 1, 'one counter, in the database');
  t.equal(counters[0]!.failures, 3);
  t.notOk(counters[0]!.key.includes(attacker), 'the counter is keyed by a digest of the address');

  t.equal(
    (await enterCode(throttled.app, new Browser(), device.user_code, '198.51.100.9')).statusCode,
    303,
    'another address is not locked',
  );

  throttled.advance(2);
  t.equal((await enterCode(throttled.app, new Browser(), 'BCDF-GHJK', attacker)).statusCode, 400, 'after the lock, one more guess');
  const longer = await enterCode(throttled.app, new Browser(), 'BCDF-GHJK', attacker);
  t.equal(longer.statusCode, 429);
  t.equal(longer.headers['retry-after'], '4', 'the lock doubles');
});

t.test('a right code gives its attempt back: people typing right codes from one address are never locked', async (t) => {
  const throttled = await buildTestApp(t, { seed: DEVICE_FIXTURES, env: { USER_CODE_IP_FREE_ATTEMPTS: '2' } });
  for (let i = 0; i < 4; i += 1) {
    const device = await startDevice(throttled.app);
    t.equal((await enterCode(throttled.app, new Browser(), device.user_code)).statusCode, 303);
  }
});

t.test('the device sign-in goes through the risk evaluation and its second factor, and the ID token says so', async (t) => {
  // The page's device-signals fields say the browser is automated (AUTOMATION): a second factor is asked for; the
  // one-time code is read from the outbox.
  // No notifier: the code is read from the outbox, which a delivery (the log notifier) would wipe first.
  const risky = await buildTestApp(t, { seed: DEVICE_FIXTURES, notifier: null });
  const device = await startDevice(risky.app);
  const browser = new Browser();
  const entered = await enterCode(risky.app, browser, device.user_code);
  const login = await pageRequest(risky.app, browser, 'GET', localPath(String(entered.headers.location)));
  const posted = await pageRequest(risky.app, browser, 'POST', formAction(login.body), {
    csrf: hiddenField(login.body, 'csrf'),
    login: ALICE.username,
    password: ALICE.password,
    ds_webdriver: '1',
  });
  t.equal(posted.statusCode, 303);
  t.equal(posted.headers.location, `${risky.config.issuer}/sign-in/verify`, 'a second factor is asked for');
  const challenge = await pageRequest(risky.app, browser, 'GET', '/sso/sign-in/verify');
  t.equal(challenge.statusCode, 200);
  const message = await risky.db
    .selectFrom('outbox')
    .select('payload')
    .where('kind', '=', 'one-time-code')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  const form = secondFactorForm(browser.get('sso_challenge'), String(message.payload.code));
  const verified = await pageRequest(risky.app, browser, 'POST', '/sso/sign-in/verify', form);
  t.equal(verified.statusCode, 303);
  t.equal(verified.headers.location, `${risky.config.issuer}/device/confirm`, 'the code page returns to the confirmation');
  const confirm = await pageRequest(risky.app, browser, 'GET', '/sso/device/confirm');
  t.equal(confirm.statusCode, 200);
  const done = await pageRequest(risky.app, browser, 'POST', '/sso/device/confirm', {
    csrf: hiddenField(confirm.body, 'csrf'),
    decision: 'approve',
  });
  t.match(done.body, /Device connected/);
  const tokens = (await poll(risky.app, device.device_code)).json() as { id_token: string };
  const claims = JSON.parse(Buffer.from(tokens.id_token.split('.')[1]!, 'base64url').toString()) as { amr: string[] };
  t.same(claims.amr, ['pwd', 'otp', 'mfa']);
  const events = await risky.db.selectFrom('security_events').select(['type', 'client_id']).execute();
  t.ok(
    events.some((e) => e.type === 'sign_in_challenged'),
    'the challenge is a security event',
  );
  t.ok(
    events.some((e) => e.type === 'sign_in_allowed' && e.client_id === TV.client_id),
    'the sign-in is a security event naming the device client',
  );
});

t.test('the code flow still signs in as before (the password form is shared)', async (t) => {
  const { code } = await obtainCode(app, { client_id: CONFIDENTIAL.client_id });
  t.type(code, 'string');
});
