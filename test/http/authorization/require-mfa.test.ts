// A client that requires a second factor (`require_mfa`, src/domain/accounts/second-factor-policy.ts): a password
// sign-in for it goes on to the code page whatever the risk verdict, only a session whose amr says `mfa` (RFC 8176 2)
// answers for it, and a user with no second factor is told so and gets no session.
import t, { type Test } from 'tap';
import { decodeJwt } from 'jose';
import type { LightMyRequestResponse } from 'fastify';
import { ALICE, BOB, buildTestApp, CONFIDENTIAL, type TestApp } from '../../helpers/app.js';
import {
  authorizePath,
  basicAuth,
  Browser,
  formAction,
  hiddenField,
  localPath,
  pkcePair,
  signIn,
  tokenRequest,
} from '../../helpers/flow.js';
import { CapturingNotifier } from '../../helpers/notifier.js';
import { DEVICE_CODE_GRANT, enterCode, pageRequest, poll, startDevice } from '../../helpers/device.js';
import { clientEntryProblems } from '../../../src/domain/client-entry.js';
import { findUserByUsername } from '../../../src/storage/users.js';

const STRICT = {
  client_id: 'strict',
  client_secret: 'strict-secret-0123456789',
  client_name: 'Strict App',
  redirect_uris: ['https://strict.example/cb'],
  require_mfa: true,
};
/** A device client (RFC 8628) that requires a second factor too. */
const STRICT_TV = { client_id: 'strict-tv', client_secret: 'strict-tv-secret-0123', grant_types: [DEVICE_CODE_GRANT], require_mfa: true };
const STRICT_TV_BASIC = basicAuth(STRICT_TV.client_id, STRICT_TV.client_secret);
const notifier = new CapturingNotifier();
const testApp: TestApp = await buildTestApp(t, {
  notifier,
  // Alice's address is verified (a code can be sent to it); Bob has none verified, no app and no passkey.
  seed: { clients: [CONFIDENTIAL, STRICT, STRICT_TV], users: [ALICE, BOB] },
});
const { app, db } = testApp;
const aliceId = (await findUserByUsername(db, ALICE.username))!.id;
const bobId = (await findUserByUsername(db, BOB.username))!.id;

/** The strict client's authorization request (PKCE S256 with `challenge`). */
function strictAuthorize(extra: Record<string, string> = {}, challenge = pkcePair().challenge): string {
  return authorizePath({
    response_type: 'code',
    client_id: STRICT.client_id,
    redirect_uri: STRICT.redirect_uris[0],
    scope: 'openid profile',
    state: 'st',
    nonce: 'n-0123',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  });
}

/** RFC 6749 4.1.3 with RFC 7636 4.5: the strict client redeems a code. */
function redeem(code: string, verifier: string) {
  return tokenRequest(
    app,
    { grant_type: 'authorization_code', code, redirect_uri: STRICT.redirect_uris[0], code_verifier: verifier },
    basicAuth(STRICT.client_id, STRICT.client_secret),
  );
}

/** Alice signs in with her password alone, for the client that asks nothing more; her browser then holds that session. */
function passwordSignIn() {
  return signIn(app, {
    response_type: 'code',
    client_id: CONFIDENTIAL.client_id,
    redirect_uri: CONFIDENTIAL.redirect_uris[0],
    scope: 'openid',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
  });
}

/** Follows the provider's own redirects; stops at a page (any status) or at a redirect elsewhere. */
async function follow(browser: Browser, res: LightMyRequestResponse): Promise<LightMyRequestResponse> {
  while ((res.statusCode === 302 || res.statusCode === 303) && String(res.headers.location).startsWith('http://localhost:3000/sso/')) {
    res = await browser.request(app, 'GET', localPath(String(res.headers.location)));
  }
  return res;
}

async function sessions(userId: string): Promise<number> {
  const row = await db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Signs Alice in to the strict client: password, then the `nth` code she was sent, then consent. The code, redeemed. */
async function signInWithSecondFactor(t: Test, browser: Browser, nth: number): Promise<LightMyRequestResponse> {
  const { verifier, challenge } = pkcePair();
  const sessionBefore = browser.get('sso_session');
  let res = await follow(browser, await browser.request(app, 'GET', strictAuthorize({}, challenge)));
  t.equal(res.statusCode, 200);
  t.match(res.body, /type="password"/, 'the sign-in page');
  res = await browser.request(app, 'POST', formAction(res.body), {
    csrf: hiddenField(res.body, 'csrf'),
    login: ALICE.username,
    password: ALICE.password,
  });
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, 'http://localhost:3000/sso/sign-in/verify', 'a right password goes on to the code page');
  t.equal(browser.get('sso_session'), sessionBefore, 'and makes no session yet');
  res = await follow(browser, res);
  t.match(res.body, /name="code"/);
  res = await browser.request(app, 'POST', formAction(res.body), {
    csrf: hiddenField(res.body, 'csrf'),
    code: await notifier.code(aliceId, nth),
  });
  res = await follow(browser, res);
  if (res.statusCode === 200 && res.body.includes('name="decision"')) {
    res = await browser.request(app, 'POST', formAction(res.body), { csrf: hiddenField(res.body, 'csrf'), decision: 'allow' });
  }
  const location = new URL(String(res.headers.location));
  t.equal(location.origin + location.pathname, STRICT.redirect_uris[0], 'back at the client');
  const token = await redeem(location.searchParams.get('code')!, verifier);
  t.equal(token.statusCode, 200);
  // OIDC Core 2 amr, RFC 8176 2: the password and a one-time code, which together are more than one factor.
  t.same(decodeJwt(token.json().id_token).amr, ['pwd', 'otp', 'mfa']);
  return token;
}

t.test('a password sign-in for a client that requires a second factor asks for one, and its ID token says mfa (RFC 8176 2)', async (t) => {
  const browser = new Browser();
  await signInWithSecondFactor(t, browser, 1);
  t.equal(await sessions(aliceId), 1, 'one session');

  // The authorize statement issues the next code at once for a session with mfa (prompt=none: no page at all).
  const { verifier, challenge } = pkcePair();
  const again = await browser.request(app, 'GET', strictAuthorize({ prompt: 'none' }, challenge));
  const location = new URL(String(again.headers.location));
  t.equal(location.origin + location.pathname, STRICT.redirect_uris[0]);
  const token = await redeem(location.searchParams.get('code')!, verifier);
  t.equal(token.statusCode, 200, 'the session with a second factor answers at once');
  t.same(decodeJwt(token.json().id_token).amr, ['pwd', 'otp', 'mfa']);
});

t.test(
  'a session without a second factor does not answer for it: the sign-in page again, and prompt=none gets login_required',
  async (t) => {
    const { browser } = await passwordSignIn();
    t.ok(browser.get('sso_session'), 'signed in with a password');

    // OIDC Core 3.1.2.6: login_required, "The Authorization Server requires End-User authentication".
    const none = await browser.request(app, 'GET', strictAuthorize({ prompt: 'none' }));
    const refused = new URL(String(none.headers.location));
    t.equal(refused.origin + refused.pathname, STRICT.redirect_uris[0]);
    t.equal(refused.searchParams.get('error'), 'login_required');
    t.notOk(refused.searchParams.get('code'));

    const page = await follow(browser, await browser.request(app, 'GET', strictAuthorize()));
    t.equal(page.statusCode, 200);
    t.match(page.body, /type="password"/, 'the sign-in page, not a code');

    // Signing in again there goes on to the second factor.
    await signInWithSecondFactor(t, browser, 2);
  },
);

t.test('the device verification page (RFC 8628 3.3) asks a password-only session to sign in again before approving', async (t) => {
  const { browser } = await passwordSignIn();
  const device = await startDevice(app, { scope: 'openid' }, { auth: STRICT_TV_BASIC });
  const entered = await enterCode(app, browser, device.user_code);
  t.equal(entered.statusCode, 303);
  const confirm = await pageRequest(app, browser, 'GET', localPath(String(entered.headers.location)));
  t.equal(confirm.statusCode, 200);
  t.match(confirm.body, /type="password"/, 'the sign-in page, not the confirmation');
  t.notMatch(confirm.body, /name="decision"/);
  // An approval posted anyway (the confirmation form's fields, forged) approves nothing.
  const forged = await pageRequest(app, browser, 'POST', '/sso/device/confirm', {
    csrf: hiddenField(confirm.body, 'csrf'),
    decision: 'approve',
  });
  t.equal(forged.statusCode, 303, 'sent back to sign in');
  const pending = await poll(app, device.device_code, STRICT_TV_BASIC);
  t.equal(pending.json().error, 'authorization_pending', 'RFC 8628 3.5: still pending');
});

t.test('a user with no second factor is told so, and gets no session', async (t) => {
  const browser = new Browser();
  const page = await follow(browser, await browser.request(app, 'GET', strictAuthorize()));
  const res = await browser.request(app, 'POST', formAction(page.body), {
    csrf: hiddenField(page.body, 'csrf'),
    login: BOB.username,
    password: BOB.password,
  });
  t.equal(res.statusCode, 403);
  t.match(res.body, /asks for a second factor, and your account has none yet/);
  t.match(res.body, /type="password"/, 'the sign-in page again');
  t.notOk(browser.get('sso_session'));
  t.equal(await sessions(bobId), 0, 'no session row');
  t.same(notifier.to(bobId, 'one-time-code'), [], 'no code sent');

  // A wrong password says what it always says: the rule is only told to whoever proved the password.
  const wrong = await browser.request(app, 'POST', formAction(page.body), {
    csrf: hiddenField(page.body, 'csrf'),
    login: BOB.username,
    password: 'not-his-password',
  });
  t.equal(wrong.statusCode, 401);
  t.notMatch(wrong.body, /second factor/);
});

t.test('the client that does not require one still signs in with a password alone', async (t) => {
  const { location } = await passwordSignIn();
  t.ok(location.searchParams.get('code'));
});

t.test('require_mfa is a boolean in the seed file, the command line and the API alike', async (t) => {
  const problems = clientEntryProblems({ ...STRICT, require_mfa: 'yes' });
  t.ok(
    problems.some((p) => /require_mfa must be true or false/.test(p)),
    problems.join('; '),
  );
  t.same(clientEntryProblems(STRICT), []);
});
