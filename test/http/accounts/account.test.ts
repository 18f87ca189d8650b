// The account page: its sign-in without a client, its headers and CSRF tokens, the device list, and revoking a
// device (its sessions end, the clients are told, and the tokens issued through it stop working).
import t from 'tap';
import { countQueuedLogouts } from '../../../src/storage/backchannel-logouts.js';
import { purgeExpired } from '../../../src/storage/purge.js';
import { ALICE, BOB, buildTestApp, FIXTURES } from '../../helpers/app.js';
import { accountPage, accountSignIn, KEYS_SECRET } from '../../helpers/account.js';
import { Browser, hiddenField, localPath, obtainCode, secondFactorForm, tokenRequest } from '../../helpers/flow.js';
import { formPost, GRANT_FIXTURES, OFFLINE_SCOPE, REFRESHING, REFRESHING_BASIC, refreshRequest, userId } from '../../helpers/grants.js';

const ACCOUNT = 'http://localhost:3000/sso/account';
const SIGN_IN = `${ACCOUNT}/sign-in`;
/** A client told by back-channel logout when a session it signed in to ends. */
const BACKCHANNEL_RP = { ...REFRESHING, backchannel_logout_uri: 'http://127.0.0.1:9/logout' };
const SEED = {
  clients: [...GRANT_FIXTURES.clients.filter((c) => c.client_id !== REFRESHING.client_id), BACKCHANNEL_RP],
  users: FIXTURES.users,
};

t.test('without a session the account page sends the browser to the account sign-in page', async (t) => {
  const { app } = await buildTestApp(t);
  const res = await app.inject({ method: 'GET', url: '/sso/account' });
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, SIGN_IN);
  t.equal(res.headers['cache-control'], 'no-store');
});

t.test(
  'the account sign-in page is the usual sign-in form, bound to the browser by a cookie and with the device-signals script',
  async (t) => {
    const { app } = await buildTestApp(t);
    const browser = new Browser();
    const res = await browser.request(app, 'GET', '/sso/account/sign-in');
    t.equal(res.statusCode, 200);
    t.match(res.body, /to continue to your account/);
    t.match(res.body, /<form method="post" action="http:\/\/localhost:3000\/sso\/account\/sign-in"/);
    t.equal(hiddenField(res.body, 'csrf'), browser.get('sso_account_sign_in'), 'the form echoes the binding cookie');
    t.ok(browser.get('sso_device'), 'a device cookie is given, as on every sign-in page');
    t.match(res.headers['content-security-policy'], /script-src 'sha256-/);
    const binding = res.cookies.find((c) => c.name === 'sso_account_sign_in');
    t.match(binding, { httpOnly: true, sameSite: 'Lax', path: '/sso/account' });
  },
);

t.test('signing in on the account sign-in page runs the password sign-in and lands on the account page, this device marked', async (t) => {
  const { app } = await buildTestApp(t);
  const browser = await accountSignIn(app);
  t.ok(browser.get('sso_session'), 'signed in: a session cookie');
  t.notOk(browser.get('sso_account_sign_in'), 'the binding cookie is gone once used');
  const { page } = await accountPage(app, browser);
  t.match(page.body, /Signed in as Alice Liddell/);
  t.match(page.body, /<strong>[^<]+<\/strong> <span class="current">\(this device\)<\/span>/);
  t.match(page.body, /1 sign-in<\/p>/);
  t.match(page.body, /First seen <time datetime="\d{4}-\d\d-\d\dT/);
});

t.test('the account page has the page security headers and runs no script', async (t) => {
  const { app } = await buildTestApp(t);
  const browser = await accountSignIn(app);
  const { page } = await accountPage(app, browser);
  t.equal(page.headers['cache-control'], 'no-store');
  t.equal(page.headers['x-frame-options'], 'DENY');
  t.equal(page.headers['referrer-policy'], 'no-referrer');
  t.equal(page.headers['x-content-type-options'], 'nosniff');
  const csp = String(page.headers['content-security-policy']);
  t.match(csp, /default-src 'none'/);
  t.match(csp, /frame-ancestors 'none'/);
  t.notMatch(csp, /script-src/, 'default-src none forbids every script');
  t.notMatch(page.body, /<script/);
  for (const form of page.body.match(/<form method="post"[\s\S]*?<\/form>/g) ?? []) {
    t.match(form, /<input type="hidden" name="csrf" value="[A-Za-z0-9_-]{43}">/, 'every form carries the CSRF token');
  }
});

t.test('a wrong password on the account sign-in page is refused like on any sign-in page', async (t) => {
  const { app } = await buildTestApp(t);
  const browser = new Browser();
  const form = await browser.request(app, 'GET', '/sso/account/sign-in');
  const res = await browser.request(app, 'POST', '/sso/account/sign-in', {
    csrf: hiddenField(form.body, 'csrf'),
    login: ALICE.username,
    password: 'wrong password',
  });
  t.equal(res.statusCode, 401);
  t.match(res.body, /The username or password is not correct\./);
  t.notOk(browser.get('sso_session'));
});

t.test('the account sign-in form is refused without its binding cookie (a post from another site)', async (t) => {
  const { app } = await buildTestApp(t);
  const browser = new Browser();
  const form = await browser.request(app, 'GET', '/sso/account/sign-in');
  const res = await app.inject({
    method: 'POST',
    url: '/sso/account/sign-in',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ csrf: hiddenField(form.body, 'csrf'), login: ALICE.username, password: ALICE.password }).toString(),
  });
  t.equal(res.statusCode, 403);
  t.notOk(
    res.cookies.some((c) => c.name === 'sso_session'),
    'no session is made',
  );
});

t.test('a challenged account sign-in asks for the second factor and then returns to the account page', async (t) => {
  // A new device alone is enough to be challenged here. No notifier: the code is read from the outbox, which a
  // delivery would wipe first.
  const { app, db } = await buildTestApp(t, { env: { RISK_WEIGHTS: 'NEW_DEVICE=30' }, notifier: null });
  await accountSignIn(app); // Alice's first device
  const browser = new Browser();
  const form = await browser.request(app, 'GET', '/sso/account/sign-in');
  const res = await browser.request(app, 'POST', '/sso/account/sign-in', {
    csrf: hiddenField(form.body, 'csrf'),
    login: ALICE.username,
    password: ALICE.password,
  });
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, 'http://localhost:3000/sso/sign-in/verify');
  t.notOk(browser.get('sso_session'), 'no session before the second factor');
  const message = await db.selectFrom('outbox').select('payload').where('kind', '=', 'one-time-code').executeTakeFirstOrThrow();
  const code = (typeof message.payload === 'string' ? JSON.parse(message.payload) : message.payload).code as string;
  const verified = await browser.request(app, 'POST', '/sso/sign-in/verify', secondFactorForm(browser.get('sso_challenge'), code));
  t.equal(verified.statusCode, 303);
  t.equal(verified.headers.location, ACCOUNT, 'back to the account page, signed in');
  t.equal((await browser.request(app, 'GET', '/sso/account')).statusCode, 200);
});

t.test('every account form post without a session goes to the sign-in page and changes nothing', async (t) => {
  const { app, db } = await buildTestApp(t, { env: KEYS_SECRET });
  await accountSignIn(app);
  const device = await db.selectFrom('devices').select('id').executeTakeFirstOrThrow();
  for (const path of [
    `/sso/account/devices/${device.id}/revoke`,
    '/sso/account/totp',
    '/sso/account/totp/confirm',
    '/sso/account/totp/remove',
  ]) {
    const res = await new Browser().request(app, 'POST', path, { csrf: 'x', code: '123456' });
    t.equal(res.statusCode, 303, path);
    t.equal(res.headers.location, SIGN_IN, path);
  }
  t.equal((await db.selectFrom('devices').select('revoked_at').executeTakeFirstOrThrow()).revoked_at, null);
  t.equal((await db.selectFrom('totp_authenticators').selectAll().execute()).length, 0);
  for (const path of ['/sso/account/totp']) {
    const res = await new Browser().request(app, 'GET', path);
    t.equal(res.headers.location, SIGN_IN, `GET ${path}`);
  }
});

t.test('every account form post with a wrong or missing CSRF token is refused with 403 and changes nothing', async (t) => {
  const { app, db } = await buildTestApp(t, { env: KEYS_SECRET });
  const browser = await accountSignIn(app);
  const other = await accountSignIn(app, new Browser(), BOB);
  const { csrf: bobsToken } = await accountPage(app, other);
  const device = await db
    .selectFrom('devices')
    .select('id')
    .where('user_id', '=', await userId(db))
    .executeTakeFirstOrThrow();
  for (const path of [
    `/sso/account/devices/${device.id}/revoke`,
    '/sso/account/totp',
    '/sso/account/totp/confirm',
    '/sso/account/totp/remove',
  ]) {
    for (const form of [{}, { csrf: 'not-the-token' }, { csrf: bobsToken }] as Array<Record<string, string>>) {
      const res = await browser.request(app, 'POST', path, { ...form, code: '123456' });
      t.equal(res.statusCode, 403, `${path} with ${JSON.stringify(form)}`);
      t.match(res.body, /did not come from this page/);
    }
  }
  t.equal((await db.selectFrom('devices').select('revoked_at').where('id', '=', device.id).executeTakeFirstOrThrow()).revoked_at, null);
  t.equal((await db.selectFrom('totp_authenticators').selectAll().execute()).length, 0);
});

t.test("another user's device id is answered like an unknown one (404) and the device stays", async (t) => {
  const { app, db } = await buildTestApp(t);
  const alice = await accountSignIn(app);
  await accountSignIn(app, new Browser(), BOB);
  const bobsDevice = await db
    .selectFrom('devices')
    .select('id')
    .where('user_id', '=', await userId(db, BOB.username))
    .executeTakeFirstOrThrow();
  const { csrf } = await accountPage(app, alice);
  for (const id of [bobsDevice.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
    const res = await alice.request(app, 'POST', `/sso/account/devices/${id}/revoke`, { csrf });
    t.equal(res.statusCode, 404, id);
    t.match(res.body, /That device is not in your list/);
  }
  t.equal((await db.selectFrom('devices').select('revoked_at').where('id', '=', bobsDevice.id).executeTakeFirstOrThrow()).revoked_at, null);
});

t.test('revoking a device ends its sessions and revokes the tokens issued through them', async (t) => {
  const { app, db } = await buildTestApp(t, { seed: SEED });
  // Device A: Alice signs in to the relying party and gets access and refresh tokens.
  const grant = await obtainCode(app, { client_id: REFRESHING.client_id, redirect_uri: REFRESHING.redirect_uris[0], scope: OFFLINE_SCOPE });
  const redeemed = await tokenRequest(
    app,
    {
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: grant.redirectUri!,
      code_verifier: grant.verifier,
    },
    REFRESHING_BASIC,
  );
  const tokens = redeemed.json() as { access_token: string; refresh_token: string };
  const refreshed = (await refreshRequest(app, tokens.refresh_token)).json() as { access_token: string; refresh_token: string };
  // A code issued in A's session but not redeemed yet.
  const pending = await obtainCode(
    app,
    { client_id: REFRESHING.client_id, redirect_uri: REFRESHING.redirect_uris[0], scope: OFFLINE_SCOPE },
    { browser: grant.browser },
  );
  const deviceA = await db.selectFrom('devices').select(['id', 'label']).executeTakeFirstOrThrow();

  // Device B: the account page lists both and revokes A.
  const b = await accountSignIn(app);
  const { page, csrf } = await accountPage(app, b);
  t.equal(page.body.match(/<li data-device=/g)?.length, 2, 'both devices are listed');
  const res = await b.request(app, 'POST', `/sso/account/devices/${deviceA.id}/revoke`, { csrf });
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, `${ACCOUNT}?done=device-revoked`);
  const after = await b.request(app, 'GET', localPath(String(res.headers.location)));
  t.match(after.body, /The device was revoked/);
  t.equal(after.body.match(/<li data-device=/g)?.length, 1, 'A is no longer listed');

  const introspect = async (token: string) => (await formPost(app, '/sso/introspect', { token })).json() as { active: boolean };
  t.same(await introspect(tokens.access_token), { active: false }, 'the access token from the code is revoked');
  t.same(await introspect(refreshed.access_token), { active: false }, 'the access token from the refresh is revoked');
  t.same(await introspect(refreshed.refresh_token), { active: false }, 'the refresh token is revoked');
  const refresh = await refreshRequest(app, refreshed.refresh_token);
  t.equal(refresh.statusCode, 400);
  t.equal(refresh.json().error, 'invalid_grant');
  const late = await tokenRequest(
    app,
    { grant_type: 'authorization_code', code: pending.code, redirect_uri: pending.redirectUri!, code_verifier: pending.verifier },
    REFRESHING_BASIC,
  );
  t.equal(late.json().error, 'invalid_grant', 'a code issued in the session and redeemed later is refused');

  const a = await grant.browser.request(app, 'GET', '/sso/account');
  t.equal(a.headers.location, SIGN_IN, 'device A is signed out');
  t.equal((await b.request(app, 'GET', '/sso/account')).statusCode, 200, 'device B is still signed in');
  t.equal(await countQueuedLogouts(db), 1, 'a back-channel logout is queued for the client of the ended session');
  const event = await db.selectFrom('security_events').selectAll().where('type', '=', 'device_revoked').executeTakeFirstOrThrow();
  t.equal(event.device_id, deviceA.id);
  t.equal(event.user_id, await userId(db));
  t.match(event.details, { device: deviceA.label, sessionsEnded: 1 });

  const again = await b.request(app, 'POST', `/sso/account/devices/${deviceA.id}/revoke`, { csrf });
  t.equal(again.statusCode, 404, 'a revoked device cannot be revoked twice');
});

t.test('revoking the current device signs the user out', async (t) => {
  const { app, db } = await buildTestApp(t);
  const browser = await accountSignIn(app);
  const { csrf } = await accountPage(app, browser);
  const device = await db.selectFrom('devices').select('id').executeTakeFirstOrThrow();
  const res = await browser.request(app, 'POST', `/sso/account/devices/${device.id}/revoke`, { csrf });
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, `${SIGN_IN}?notice=device-revoked`);
  t.notOk(browser.get('sso_session'), 'the session cookie is cleared');
  const signIn = await browser.request(app, 'GET', localPath(String(res.headers.location)));
  t.match(signIn.body, /You revoked this device, so it was signed out\./);
  t.equal((await browser.request(app, 'GET', '/sso/account')).headers.location, SIGN_IN);
});

t.test('a notice parameter the page does not know is not shown', async (t) => {
  const { app } = await buildTestApp(t);
  const browser = await accountSignIn(app);
  const res = await browser.request(app, 'GET', '/sso/account?done=%3Cscript%3E');
  t.equal(res.statusCode, 200);
  t.notMatch(res.body, /class="notice"/);
});

t.test('revoking a device still finds its refresh tokens after its session expired and the purge ran', async (t) => {
  const { app, db, config, advance } = await buildTestApp(t, { seed: SEED });
  const grant = await obtainCode(app, { client_id: REFRESHING.client_id, redirect_uri: REFRESHING.redirect_uris[0], scope: OFFLINE_SCOPE });
  const tokens = (
    await tokenRequest(
      app,
      {
        grant_type: 'authorization_code',
        code: grant.code,
        redirect_uri: grant.redirectUri!,
        code_verifier: grant.verifier,
      },
      REFRESHING_BASIC,
    )
  ).json() as { refresh_token: string };
  const deviceA = await db.selectFrom('devices').select('id').executeTakeFirstOrThrow();
  // A day and an hour later A's session has expired, and the purge has run; the refresh token lives on.
  advance(config.sessionTtlSeconds + config.accessTokenTtlSeconds + 60);
  const now = new Date(Date.now() + (config.sessionTtlSeconds + config.accessTokenTtlSeconds + 60) * 1000);
  await purgeExpired(db, {
    now,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
    signInAttemptRetentionSeconds: 3600,
    oneTimeCodeTtlSeconds: 300,
    passwordResetTtlSeconds: 1800,
    signupTtlSeconds: 3600,
    securityEventRetentionSeconds: 90 * 86_400,
  });
  t.equal((await db.selectFrom('sessions').select('sid').execute()).length, 1, 'the expired session is kept for its refresh token');

  const b = await accountSignIn(app);
  const { csrf } = await accountPage(app, b);
  t.equal((await b.request(app, 'POST', `/sso/account/devices/${deviceA.id}/revoke`, { csrf })).statusCode, 303);
  const refresh = await refreshRequest(app, tokens.refresh_token);
  t.equal(refresh.json().error, 'invalid_grant');
});
