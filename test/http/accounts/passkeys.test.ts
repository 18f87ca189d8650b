// Passkeys over app.inject (WebAuthn Level 3, through a software authenticator): registering one on the account page
// after a recent sign-in, signing in with it alone at an authorization request and on the account page, answering a
// risk CHALLENGE with it, and every refusal: malformed JSON, a forged or replayed assertion, an unknown credential,
// the wrong origin or RP ID, a sign-count regression, CSRF, an old sign-in. Renaming and deleting, and the last way
// to sign in kept.
import { randomBytes } from 'node:crypto';
import t, { type Test } from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { DeviceBrowser, idTokenClaims } from '../../helpers/device-browser.js';
import { hiddenField, localPath } from '../../helpers/flow.js';
import { SoftAuthenticator } from '../../helpers/passkey.js';
import { riskEnv } from '../../helpers/risk.js';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { applySeed } from '../../../src/domain/admin/seed.js';
import { findUserByUsername } from '../../../src/storage/users.js';

const testApp: TestApp = await buildTestApp(t, { env: riskEnv({ SIGN_IN_IP_FREE_ATTEMPTS: '0' }) });
const { app, db } = testApp;
const issuer = testApp.config.issuer;

async function newUser(name: string) {
  const username = `${name}-${randomBytes(3).toString('hex')}`;
  const user = { username, password: `pw-${randomBytes(6).toString('hex')}` };
  await applySeed(db, new PasswordHasher(testApp.config.argon2), { clients: [], users: [user] });
  return { ...user, id: (await findUserByUsername(db, username))!.id };
}

let networks = 0;
const newBrowser = () => {
  networks += 1;
  return new DeviceBrowser({ ip: `10.30.${networks}.1` });
};

/** Signs in on the account page with the password; returns the account page's CSRF token. */
async function accountSignIn(browser: DeviceBrowser, user: { username: string; password: string }): Promise<string> {
  const form = await browser.request(app, 'GET', '/sso/account/sign-in');
  const posted = await browser.request(app, 'POST', '/sso/account/sign-in', {
    csrf: hiddenField(form.body, 'csrf'),
    login: user.username,
    password: user.password,
  });
  if (posted.statusCode !== 303) throw new Error(`account sign-in: ${posted.statusCode} ${posted.body.slice(0, 200)}`);
  return hiddenField((await browser.request(app, 'GET', '/sso/account')).body, 'csrf');
}

/** The JSON options of an options endpoint. */
async function options(browser: DeviceBrowser, path: string, csrf: string) {
  const res = await browser.request(app, 'POST', path, { csrf });
  if (res.statusCode !== 200) throw new Error(`options: ${res.statusCode} ${res.body}`);
  return res.json() as { challenge: string; user?: { id: string }; rpId?: string; rp?: { id: string }; allowCredentials?: unknown[] };
}

/** A user signed in on the account page with a registered passkey. */
async function withPasskey(t: Test, name: string, authenticator = new SoftAuthenticator()) {
  const user = await newUser(name);
  const browser = newBrowser();
  const csrf = await accountSignIn(browser, user);
  const started = await browser.request(app, 'POST', '/sso/account/passkeys/new', { csrf });
  t.equal(started.headers.location, `${issuer}/account/passkeys/new`, 'a recent sign-in goes on to the passkey page');
  const created = authenticator.register(await options(browser, '/sso/account/passkeys/options', csrf));
  const res = await browser.request(app, 'POST', '/sso/account/passkeys', { csrf, name: 'My laptop', credential: JSON.stringify(created) });
  t.equal(
    res.headers.location,
    `${issuer}/account?done=passkey-added`,
    `the passkey is added: ${res.statusCode} ${/role="alert">([^<]*)/.exec(res.body)?.[1]}`,
  );
  return { user, browser, csrf, authenticator };
}

/** An authorization request's sign-in page in a new browser, and its passkey options. */
async function passkeyLogin(browser = newBrowser()) {
  const page = await browser.openLogin(app);
  const id = page.path.split('/')[3]!;
  const opts = await options(browser, `/sso/interaction/${id}/passkey/options`, page.csrf);
  return {
    browser,
    page,
    id,
    opts,
    post: (credential: string) => browser.request(app, 'POST', `/sso/interaction/${id}/passkey`, { csrf: page.csrf, credential }),
  };
}

const passkeysOf = (userId: string) => db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).execute();

t.test('WebAuthn L3 §7.1: a passkey registered on the account page is stored with its key, counter, flags and name', async (t) => {
  const { user, browser } = await withPasskey(t, 'register');
  const [row] = await passkeysOf(user.id);
  t.equal(row!.name, 'My laptop');
  t.equal(Number(row!.sign_count), 0);
  t.same(row!.transports, ['internal']);
  t.equal(row!.device_type, 'singleDevice');
  t.equal(row!.backed_up, false);
  t.equal(row!.aaguid, '00000000-0000-0000-0000-000000000000');
  t.equal(row!.last_used_at, null);
  const page = await browser.request(app, 'GET', '/sso/account');
  t.match(page.body, /<li data-passkey="[0-9a-f-]{36}">\s*<strong>My laptop<\/strong>/, 'the account page lists it');
  t.match(page.body, 'never used');
});

t.test(
  'WebAuthn L3 §5.4.6: registration options ask for a discoverable credential, user verification preferred, RP ID the issuer host',
  async (t) => {
    const user = await newUser('opts');
    const browser = newBrowser();
    const csrf = await accountSignIn(browser, user);
    const res = await browser.request(app, 'POST', '/sso/account/passkeys/options', { csrf });
    const body = res.json() as { rp: { id: string }; authenticatorSelection: Record<string, unknown>; attestation: string };
    t.equal(body.rp.id, 'localhost');
    t.equal(body.authenticatorSelection.residentKey, 'required');
    t.equal(body.authenticatorSelection.userVerification, 'preferred');
    t.equal(body.attestation, 'none');
    t.equal(res.headers['cache-control'], 'no-store');
  },
);

t.test('adding a passkey asks for a recent sign-in, as the authenticator app does', async (t) => {
  const user = await newUser('reauth');
  const browser = newBrowser();
  const csrf = await accountSignIn(browser, user);
  testApp.advance(901);
  const started = await browser.request(app, 'POST', '/sso/account/passkeys/new', { csrf });
  t.equal(started.statusCode, 303);
  t.equal(started.headers.location, `${issuer}/account/sign-in?notice=passkey-reauth`, 'sent to sign in again');
  const opts = await browser.request(app, 'POST', '/sso/account/passkeys/options', { csrf });
  t.equal(opts.statusCode, 401, 'no options for an old sign-in');
  t.equal((opts.json() as { error: string }).error, 'login_required');
  const posted = await browser.request(app, 'POST', '/sso/account/passkeys', { csrf, credential: '{}' });
  t.equal(posted.headers.location, `${issuer}/account/sign-in?notice=passkey-reauth`);
  t.equal((await passkeysOf(user.id)).length, 0);
});

t.test('removing a passkey asks for a recent sign-in, as removing the authenticator app asks for one of its codes', async (t) => {
  const { user, browser, csrf } = await withPasskey(t, 'remover');
  const [row] = await passkeysOf(user.id);
  testApp.advance(301);
  const stale = await browser.request(app, 'POST', `/sso/account/passkeys/${row!.id}/delete`, { csrf });
  t.equal(stale.statusCode, 303);
  t.equal(stale.headers.location, `${issuer}/account/sign-in?notice=passkey-remove-reauth`, 'sent to sign in again');
  t.equal((await passkeysOf(user.id)).length, 1, 'the passkey stays');
  const notice = await browser.request(app, 'GET', '/sso/account/sign-in?notice=passkey-remove-reauth');
  t.match(notice.body, 'To remove a passkey, confirm that it is you');
  const again = await browser.request(app, 'POST', '/sso/account/sign-in', {
    csrf: hiddenField(notice.body, 'csrf'),
    login: user.username,
    password: user.password,
  });
  t.equal(again.statusCode, 303, 'the person signs in again from that page');
  const fresh = hiddenField((await browser.request(app, 'GET', '/sso/account')).body, 'csrf');
  const deleted = await browser.request(app, 'POST', `/sso/account/passkeys/${row!.id}/delete`, { csrf: fresh });
  t.equal(deleted.headers.location, `${issuer}/account?done=passkey-deleted`, 'a fresh sign-in removes it');
  t.equal((await passkeysOf(user.id)).length, 0);
});

t.test('RFC 6749 10.12 (CSRF): the passkey forms and options refuse a post without the page token', async (t) => {
  const { browser, authenticator } = await withPasskey(t, 'csrf');
  const opts = await browser.request(app, 'POST', '/sso/account/passkeys/options', { csrf: 'forged' });
  t.equal(opts.statusCode, 403);
  const posted = await browser.request(app, 'POST', '/sso/account/passkeys', { csrf: 'forged', credential: '{}' });
  t.equal(posted.statusCode, 403);
  const login = await passkeyLogin();
  const foreignOptions = await login.browser.request(app, 'POST', `/sso/interaction/${login.id}/passkey/options`, { csrf: 'forged' });
  t.equal(foreignOptions.statusCode, 403);
  const foreign = await login.browser.request(app, 'POST', `/sso/interaction/${login.id}/passkey`, {
    csrf: 'forged',
    credential: JSON.stringify(authenticator.assert(login.opts)),
  });
  t.equal(foreign.statusCode, 400, 'the interaction refuses the form');
  t.notOk(login.browser.cookie('sso_session'), 'and nobody is signed in');
  const account = newBrowser();
  const signIn = await account.request(app, 'POST', '/sso/account/sign-in/passkey/options', { csrf: 'forged' });
  t.equal(signIn.statusCode, 403);
});

t.test(
  'a passkey alone signs in at an authorization request: the ID token says amr hwk, user, mfa (RFC 8176 2; WebAuthn L3 §7.2)',
  async (t) => {
    const { user, authenticator } = await withPasskey(t, 'alone');
    const login = await passkeyLogin();
    t.match(login.page.response.body, 'autocomplete="username webauthn"', 'the username field offers passkeys (conditional mediation)');
    t.match(login.page.response.body, 'Sign in with a passkey');
    t.equal(login.opts.rpId, 'localhost');
    t.same(login.opts.allowCredentials, [], 'a discoverable credential: none named');
    const res = await login.post(JSON.stringify(authenticator.assert(login.opts)));
    t.equal(res.statusCode, 303, res.body.slice(0, 200));
    const code = await login.browser.finish(app, res);
    const claims = await idTokenClaims(app, code, login.page);
    t.equal(claims.sub, user.id);
    t.same(claims.amr, ['hwk', 'user', 'mfa']);
    const [row] = await passkeysOf(user.id);
    t.equal(Number(row!.sign_count), 1, 'the new counter is stored');
    t.ok(row!.last_used_at, 'and the time of use');
    const allowed = await db
      .selectFrom('security_events')
      .select('details')
      .where('type', '=', 'sign_in_allowed')
      .where('user_id', '=', user.id)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    t.same((allowed.details as { amr: string[] }).amr, ['hwk', 'user', 'mfa'], 'the sign-in completed like any other');
  },
);

t.test('RFC 8176 2: a backed-up (synced) passkey signs in with amr swk', async (t) => {
  const { authenticator } = await withPasskey(t, 'synced', new SoftAuthenticator(undefined, undefined, { backedUp: true }));
  const login = await passkeyLogin();
  const res = await login.post(JSON.stringify(authenticator.assert(login.opts)));
  const claims = await idTokenClaims(app, await login.browser.finish(app, res), login.page);
  t.same(claims.amr, ['swk', 'user', 'mfa']);
});

t.test('a risk CHALLENGE does not stop a passkey sign-in: the passkey is the second factor it asks for', async (t) => {
  const { user, authenticator } = await withPasskey(t, 'challenged');
  // A new device on a new network: NEW_DEVICE (20) and NEW_NETWORK (15) make 35, a CHALLENGE (30) short of a BLOCK (80).
  const browser = new DeviceBrowser({ ip: '10.99.0.1' });
  const login = await passkeyLogin(browser);
  const res = await login.post(JSON.stringify(authenticator.assert(login.opts)));
  t.equal(res.statusCode, 303);
  t.not(res.headers.location, `${issuer}/sign-in/verify`, 'no code page');
  const allowed = await db
    .selectFrom('security_events')
    .select('details')
    .where('type', '=', 'sign_in_allowed')
    .where('user_id', '=', user.id)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  const details = allowed.details as { action: string; reasons: string[]; amr: string[] };
  t.equal(details.action, 'CHALLENGE', 'the verdict was a challenge');
  t.ok(details.reasons.includes('NEW_DEVICE'));
  t.ok(details.amr.includes('mfa'), 'answered by the passkey');
});

t.test('a password sign-in challenged by the risk engine is answered with the passkey, offered ahead of the code', async (t) => {
  const { user, authenticator } = await withPasskey(t, 'second');
  // A new device on a new network (35 points): a CHALLENGE.
  const browser = new DeviceBrowser({ ip: '10.98.0.1' });
  const page = await browser.openLogin(app);
  const res = await browser.login(app, page, user);
  t.equal(res.headers.location, `${issuer}/sign-in/verify`);
  const verify = await browser.request(app, 'GET', '/sso/sign-in/verify');
  t.ok(verify.body.indexOf('Use your passkey') < verify.body.indexOf('name="code"'), 'the passkey comes first');
  t.match(String(verify.headers['content-security-policy']), "connect-src 'self'");
  const challenge = browser.cookie('sso_challenge')!;
  const opts = await options(browser, '/sso/sign-in/verify/passkey/options', challenge);
  t.equal(opts.allowCredentials?.length, 1, "the user's own passkey is named");
  const answered = await browser.request(app, 'POST', '/sso/sign-in/verify/passkey', {
    csrf: challenge,
    credential: JSON.stringify(authenticator.assert(opts)),
  });
  t.equal(answered.statusCode, 303);
  t.equal(localPath(String(answered.headers.location)), page.path, 'back to the sign-in, signed in');
  const claims = await idTokenClaims(app, await browser.finish(app, answered), page);
  t.same(claims.amr, ['pwd', 'hwk', 'user', 'mfa']);
});

t.test('a wrong code leaves the passkey on offer', async (t) => {
  const { user } = await withPasskey(t, 'wrong-code');
  const browser = new DeviceBrowser({ ip: '10.96.0.1' });
  const page = await browser.openLogin(app);
  await browser.login(app, page, user);
  const res = await browser.request(app, 'POST', '/sso/sign-in/verify', { csrf: browser.cookie('sso_challenge')!, code: '000000' });
  t.equal(res.statusCode, 401);
  t.match(res.body, 'Use your passkey');
});

t.test("another user's passkey does not answer a challenge", async (t) => {
  const { authenticator } = await withPasskey(t, 'other');
  const { user } = await withPasskey(t, 'victim');
  const browser = new DeviceBrowser({ ip: '10.97.0.1' });
  const page = await browser.openLogin(app);
  await browser.login(app, page, user);
  const challenge = browser.cookie('sso_challenge')!;
  const opts = await options(browser, '/sso/sign-in/verify/passkey/options', challenge);
  const answered = await browser.request(app, 'POST', '/sso/sign-in/verify/passkey', {
    csrf: challenge,
    credential: JSON.stringify(authenticator.assert(opts)),
  });
  t.equal(answered.statusCode, 401);
  t.notOk(browser.cookie('sso_session'));
});

t.test('a passkey signs in on the account page itself', async (t) => {
  const { authenticator } = await withPasskey(t, 'account');
  const browser = newBrowser();
  const form = await browser.request(app, 'GET', '/sso/account/sign-in');
  const csrf = hiddenField(form.body, 'csrf');
  const opts = await options(browser, '/sso/account/sign-in/passkey/options', csrf);
  const res = await browser.request(app, 'POST', '/sso/account/sign-in/passkey', {
    csrf,
    credential: JSON.stringify(authenticator.assert(opts)),
  });
  t.equal(res.headers.location, `${issuer}/account`);
  t.equal((await browser.request(app, 'GET', '/sso/account')).statusCode, 200, 'signed in');
});

/** Posts `credential` at a fresh sign-in page; the refusal the page answers with. */
async function refused(
  t: Test,
  credential: string,
  status: number,
  login?: Awaited<ReturnType<typeof passkeyLogin>>,
): Promise<LightMyRequestResponse> {
  const attempt = login ?? (await passkeyLogin());
  const res = await attempt.post(credential);
  t.equal(res.statusCode, status);
  t.notOk(attempt.browser.cookie('sso_session'), 'nobody is signed in');
  t.match(res.body, /<h1>(Sign in|Something went wrong)<\/h1>/, 'a page saying why');
  return res;
}

t.test('malformed JSON, or JSON that is no credential, is a 400 page, never a 500', async (t) => {
  await refused(t, '{"id": ', 400);
  await refused(t, '[]', 400);
  await refused(t, JSON.stringify({ id: 'x', rawId: 'x', type: 'public-key', response: { clientDataJSON: 1 } }), 400);
  await refused(t, 'x'.repeat(20_000), 400);
});

t.test('a malformed JSON body at a passkey endpoint is a clear 400, never a 500', async (t) => {
  const login = await passkeyLogin();
  for (const url of [
    `/sso/interaction/${login.id}/passkey/options`,
    `/sso/interaction/${login.id}/passkey`,
    '/sso/account/sign-in/passkey/options',
  ]) {
    const res = await app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: '{"csrf": ' });
    t.equal(res.statusCode, 400, `${url}: 400`);
    t.notMatch(res.body, 'csrf', 'the body is not echoed');
  }
});

t.test('an unknown credential is refused (WebAuthn L3 §7.2: the credential must be registered)', async (t) => {
  const stranger = new SoftAuthenticator();
  const login = await passkeyLogin();
  const res = await refused(t, JSON.stringify(stranger.assert(login.opts)), 401, login);
  t.match(res.body, 'could not be used');
});

t.test('a forged assertion (signed by another key) is refused (WebAuthn L3 §7.2: the signature step)', async (t) => {
  const { authenticator } = await withPasskey(t, 'forged');
  const forger = new SoftAuthenticator();
  const login = await passkeyLogin();
  const forged = { ...forger.assert(login.opts), id: authenticator.credentialId, rawId: authenticator.credentialId };
  await refused(t, JSON.stringify(forged), 401, login);
});

t.test('a replayed assertion is refused: its challenge was used up (WebAuthn L3 §13.4.3)', async (t) => {
  const { authenticator } = await withPasskey(t, 'replay');
  const login = await passkeyLogin();
  const assertion = JSON.stringify(authenticator.assert(login.opts));
  t.equal((await login.post(assertion)).statusCode, 303, 'the first use signs in');
  const other = await passkeyLogin();
  await refused(t, assertion, 401, other);
});

t.test("a challenge issued to one browser is not answered from another's (WebAuthn L3 §13.4.3)", async (t) => {
  const { authenticator } = await withPasskey(t, 'binding');
  const victim = await passkeyLogin();
  const attacker = await passkeyLogin();
  await refused(t, JSON.stringify(authenticator.assert(victim.opts)), 401, attacker);
});

t.test('the wrong origin is refused (WebAuthn L3 §7.2: C.origin)', async (t) => {
  const { authenticator } = await withPasskey(t, 'origin');
  const login = await passkeyLogin();
  await refused(t, JSON.stringify(authenticator.assert(login.opts, { origin: 'https://evil.example' })), 401, login);
});

t.test('the wrong RP ID is refused (WebAuthn L3 §7.2: rpIdHash)', async (t) => {
  const { authenticator } = await withPasskey(t, 'rpid');
  const login = await passkeyLogin();
  await refused(t, JSON.stringify(authenticator.assert(login.opts, { rpId: 'evil.example' })), 401, login);
});

t.test('a sign-count regression is refused (WebAuthn L3 §6.1.1: the counter must grow once either is non-zero)', async (t) => {
  const { user, authenticator } = await withPasskey(t, 'counter');
  const first = await passkeyLogin();
  t.equal((await first.post(JSON.stringify(authenticator.assert(first.opts, { signCount: 5 })))).statusCode, 303);
  const same = await passkeyLogin();
  await refused(t, JSON.stringify(authenticator.assert(same.opts, { signCount: 5 })), 401, same);
  const lower = await passkeyLogin();
  await refused(t, JSON.stringify(authenticator.assert(lower.opts, { signCount: 3 })), 401, lower);
  t.equal(Number((await passkeysOf(user.id))[0]!.sign_count), 5, 'the stored counter stays');
});

t.test('an authenticator that counts nothing (always 0) keeps signing in (WebAuthn L3 §6.1.1)', async (t) => {
  const { authenticator } = await withPasskey(t, 'zero', new SoftAuthenticator(undefined, undefined, { countsSignatures: false }));
  for (let i = 0; i < 2; i += 1) {
    const login = await passkeyLogin();
    t.equal((await login.post(JSON.stringify(authenticator.assert(login.opts)))).statusCode, 303);
  }
});

t.test('a passkey alone needs user verification: presence only is refused (one factor is not a sign-in)', async (t) => {
  const { authenticator } = await withPasskey(t, 'presence', new SoftAuthenticator(undefined, undefined, { userVerified: false }));
  const login = await passkeyLogin();
  await refused(t, JSON.stringify(authenticator.assert(login.opts)), 401, login);
});

t.test('a passkey is renamed and deleted; the last way to sign in is kept', async (t) => {
  const { user, browser, csrf } = await withPasskey(t, 'manage');
  const [row] = await passkeysOf(user.id);
  const renamed = await browser.request(app, 'POST', `/sso/account/passkeys/${row!.id}/rename`, { csrf, name: '  Work phone ' });
  t.equal(renamed.headers.location, `${issuer}/account?done=passkey-renamed`);
  t.equal((await passkeysOf(user.id))[0]!.name, 'Work phone');
  const blank = await browser.request(app, 'POST', `/sso/account/passkeys/${row!.id}/rename`, { csrf, name: ' ' });
  t.equal(blank.statusCode, 400);

  // An account without a password: its only passkey stays.
  await db.updateTable('users').set({ password_hash: '' }).where('id', '=', user.id).execute();
  const kept = await browser.request(app, 'POST', `/sso/account/passkeys/${row!.id}/delete`, { csrf });
  t.equal(kept.statusCode, 409);
  t.match(kept.body, 'only way to sign in');
  t.equal((await passkeysOf(user.id)).length, 1);

  await db.updateTable('users').set({ password_hash: 'restored' }).where('id', '=', user.id).execute();
  const deleted = await browser.request(app, 'POST', `/sso/account/passkeys/${row!.id}/delete`, { csrf });
  t.equal(deleted.headers.location, `${issuer}/account?done=passkey-deleted`);
  t.equal((await passkeysOf(user.id)).length, 0);
  const types = await db.selectFrom('security_events').select('type').where('user_id', '=', user.id).execute();
  t.ok(types.some((e) => e.type === 'passkey_added') && types.some((e) => e.type === 'passkey_removed'), 'both are security events');
});

t.test("another user's passkey is not found to rename or delete", async (t) => {
  const { user } = await withPasskey(t, 'owner');
  const { browser, csrf } = await withPasskey(t, 'intruder');
  const [row] = await passkeysOf(user.id);
  t.equal((await browser.request(app, 'POST', `/sso/account/passkeys/${row!.id}/delete`, { csrf })).statusCode, 404);
  t.equal((await browser.request(app, 'POST', `/sso/account/passkeys/${row!.id}/rename`, { csrf, name: 'mine' })).statusCode, 404);
  t.equal((await browser.request(app, 'POST', '/sso/account/passkeys/not-a-uuid/delete', { csrf })).statusCode, 400);
});

t.test('WebAuthn L3 §5.1.2 (an RP ID is a domain): an issuer named by an IP address offers no passkey', async (t) => {
  const byAddress = await buildTestApp(t, { env: { BASE_URL: 'http://127.0.0.1:3000' } });
  const browser = new DeviceBrowser({ ip: '10.95.0.1' });
  const started = await browser.request(byAddress.app, 'GET', '/sso/account/sign-in');
  t.equal(started.statusCode, 200);
  t.notMatch(started.body, 'data-passkey', 'no passkey form');
  t.match(started.body, 'autocomplete="username"', 'and no passkey autofill');
});
