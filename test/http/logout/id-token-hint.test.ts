// id_token_hint (OIDC Core 3.1.2.1): an ID token we issued to this client names the user the client expects.
import { randomBytes } from 'node:crypto';
import { storedKey } from '../../../src/domain/secrets.js';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { CompactSign, decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import pino from 'pino';
import t, { type Test } from 'tap';
import { buildApp } from '../../../src/app.js';
import { loadKeyStore } from '../../../src/domain/keys/keys.js';
import { signLogoutToken } from '../../../src/domain/logout/logout-token.js';
import { ALICE, BOB, buildTestApp, CONFIDENTIAL, SINGLE_REDIRECT, testConfig } from '../../helpers/app.js';
import { authorizeToClient } from '../../helpers/form-post.js';
import { authorizePath, basicAuth, Browser, localPath, pkcePair, tokenRequest } from '../../helpers/flow.js';

const ISSUER = 'http://localhost:3000/sso';

/** One clock for this app and the second instance of the foreign-issuer test. */
let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);
const advance = (seconds: number) => {
  offsetMs += seconds * 1000;
};
const { app, db, config } = await buildTestApp(t, { clock });

function request(overrides: Record<string, string | undefined> = {}) {
  return {
    response_type: 'code',
    client_id: CONFIDENTIAL.client_id,
    redirect_uri: CONFIDENTIAL.redirect_uris[0],
    scope: 'openid profile email',
    state: 'st-hint',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    ...overrides,
  };
}

interface Client {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

/**
 * Signs `user` in on `target` (consenting) for `client`, in `browser` or a new one, and redeems the code:
 * returns the browser and the ID token.
 */
async function signedIn(
  user: { username: string; password: string },
  { client = CONFIDENTIAL as Client, target = app, issuer = ISSUER, browser = undefined as Browser | undefined } = {},
) {
  const { verifier, challenge } = pkcePair();
  const params = request({
    client_id: client.client_id,
    redirect_uri: client.redirect_uris[0],
    code_challenge: challenge,
    nonce: 'n-hint',
  });
  const result = await authorizeToClient(target, params, { user, issuer, browser });
  if (result.mode !== 'query') throw new Error('expected a redirect to the client');
  const code = result.location.searchParams.get('code');
  if (!code) throw new Error(`no code in ${result.location.href}`);
  const res = await tokenRequest(
    target,
    { grant_type: 'authorization_code', code, redirect_uri: client.redirect_uris[0], code_verifier: verifier },
    basicAuth(client.client_id, client.client_secret),
  );
  if (res.statusCode !== 200) throw new Error(res.body);
  return { browser: result.browser, idToken: res.json().id_token as string };
}

function clientRedirect(t: Test, res: LightMyRequestResponse): URL {
  t.equal(res.statusCode, 303, res.body.slice(0, 300));
  const location = new URL(String(res.headers.location));
  t.equal(`${location.origin}${location.pathname}`, CONFIDENTIAL.redirect_uris[0], 'back at the client');
  t.equal(location.searchParams.get('iss'), ISSUER);
  t.equal(location.searchParams.get('state'), 'st-hint');
  return location;
}

function assertError(t: Test, res: LightMyRequestResponse, error: string, description?: string): void {
  const location = clientRedirect(t, res);
  t.equal(location.searchParams.get('error'), error);
  if (description) t.equal(location.searchParams.get('error_description'), description);
  t.equal(location.searchParams.get('code'), null);
}

const alice = await signedIn(ALICE);
const bob = await signedIn(BOB);
const aliceSub = decodeJwt(alice.idToken).sub!;
const bobSub = decodeJwt(bob.idToken).sub!;

t.test('OIDC Core 3.1.2.1: prompt=none with a hint for the signed-in user answers with a code at once', async (t) => {
  const res = await alice.browser.request(app, 'GET', authorizePath(request({ prompt: 'none', id_token_hint: alice.idToken })));
  t.ok(clientRedirect(t, res).searchParams.get('code'));
});

t.test('OIDC Core 3.1.2.1: prompt=none with a hint for another user than the signed-in one is login_required', async (t) => {
  const res = await alice.browser.request(app, 'GET', authorizePath(request({ prompt: 'none', id_token_hint: bob.idToken })));
  assertError(t, res, 'login_required', 'the signed-in user is not the user of id_token_hint');
});

t.test('OIDC Core 3.1.2.1: prompt=none with a hint and no session is login_required', async (t) => {
  const res = await app.inject({ method: 'GET', url: authorizePath(request({ prompt: 'none', id_token_hint: alice.idToken })) });
  assertError(t, res, 'login_required');
});

t.test('OIDC Core 3.1.2.6: prompt=none with a hint for the signed-in user without consent is consent_required', async (t) => {
  const res = await alice.browser.request(
    app,
    'GET',
    authorizePath(request({ prompt: 'none', id_token_hint: alice.idToken, scope: 'openid phone' })),
  );
  assertError(t, res, 'consent_required');
});

t.test('OIDC Core 3.1.2.1: an expired ID token is still a good hint', async (t) => {
  const exp = decodeJwt(alice.idToken).exp!;
  advance(exp - Math.floor(Date.now() / 1000) + 3600);
  t.ok(Date.now() / 1000 < exp, 'the real clock has not moved; the app clock is past exp');
  const res = await alice.browser.request(app, 'GET', authorizePath(request({ prompt: 'none', id_token_hint: alice.idToken })));
  t.ok(clientRedirect(t, res).searchParams.get('code'), 'a code although the hint expired an hour ago');
});

t.test('OIDC Core 3.1.2.1: without prompt=none, a hint for another user than the signed-in one asks for a fresh sign-in', async (t) => {
  const { browser } = await signedIn(ALICE);
  const res = await browser.request(app, 'GET', authorizePath(request({ id_token_hint: bob.idToken })));
  t.equal(res.statusCode, 303);
  const location = String(res.headers.location);
  t.match(location, /^http:\/\/localhost:3000\/sso\/interaction\/[A-Za-z0-9_-]+$/, "to the sign-in page, not back with alice's code");
  const page = await browser.request(app, 'GET', localPath(location));
  t.equal(page.statusCode, 200);
  t.match(page.body, /type="password"/, 'the sign-in form, although alice has a session and consent');

  // Signing in as bob there answers with bob's code.
  const result = await authorizeToClient(app, request({ id_token_hint: bob.idToken }), { browser, user: BOB });
  if (result.mode !== 'query') throw new Error('expected a redirect');
  const code = result.location.searchParams.get('code');
  t.ok(code);
  const row = await db
    .selectFrom('authorization_codes')
    .select('user_id')
    .where('code_hash', '=', storedKey(code!))
    .executeTakeFirstOrThrow();
  t.equal(row.user_id, bobSub, 'the code is for the user who signed in');
});

t.test('OIDC Core 3.1.2.1: without prompt=none, a hint for the signed-in user answers with a code at once', async (t) => {
  const res = await bob.browser.request(app, 'GET', authorizePath(request({ id_token_hint: bob.idToken })));
  t.ok(clientRedirect(t, res).searchParams.get('code'));
});

t.test('OIDC Core 3.1.2.1: the interaction started for a hinted request keeps no copy of the ID token', async (t) => {
  const res = await new Browser().request(app, 'GET', authorizePath(request({ id_token_hint: alice.idToken })));
  const id = /\/interaction\/([A-Za-z0-9_-]+)$/.exec(String(res.headers.location))?.[1];
  t.ok(id, 'an interaction was started');
  const row = await db.selectFrom('interactions').select('request').where('id', '=', id!).executeTakeFirstOrThrow();
  const stored = JSON.stringify(row.request);
  t.notOk(stored.includes(alice.idToken.split('.')[2]!), 'no signature of the hint in the stored request');
  t.match(stored, /"idTokenHint":null/);
});

t.test('OIDC Core 3.1.2.1: an ID token issued to another client is not a hint for this one (invalid_request)', async (t) => {
  const other = await signedIn(ALICE, { client: SINGLE_REDIRECT });
  t.equal(decodeJwt(other.idToken).aud, SINGLE_REDIRECT.client_id);
  const res = await alice.browser.request(app, 'GET', authorizePath(request({ prompt: 'none', id_token_hint: other.idToken })));
  assertError(t, res, 'invalid_request', 'id_token_hint is not an ID token issued by this server to this client');
});

t.test('OIDC Core 3.1.2.1: an ID token from another issuer, even signed with our key, is invalid_request', async (t) => {
  // A second instance on the same database signs with the same keys, under another issuer.
  const config = testConfig({ BASE_URL: 'http://localhost:4000' });
  const elsewhere: FastifyInstance = await buildApp(config, { db, logger: pino({ level: 'silent' }), clock });
  t.teardown(() => elsewhere.close());
  const { idToken: foreign } = await signedIn(ALICE, { target: elsewhere, issuer: config.issuer });
  t.equal(decodeJwt(foreign).iss, 'http://localhost:4000/sso');
  t.equal(decodeJwt(foreign).sub, aliceSub, 'for the very user signed in here');
  t.equal(decodeProtectedHeader(foreign).kid, decodeProtectedHeader(alice.idToken).kid, 'signed with the key our own tokens use');
  const res = await alice.browser.request(app, 'GET', authorizePath(request({ prompt: 'none', id_token_hint: foreign })));
  assertError(t, res, 'invalid_request');
});

t.test('OIDC Core 3.1.2.1: a forged, tampered, unsigned or malformed hint is invalid_request', async (t) => {
  const claims = decodeJwt(alice.idToken);
  const { kid } = decodeProtectedHeader(alice.idToken);
  const { privateKey } = await generateKeyPair('RS256');
  const forged = await new SignJWT({ ...claims, sub: bobSub }).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey);
  const [header, , signature] = alice.idToken.split('.');
  const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: bobSub })).toString('base64url')}.${signature}`;
  const unsigned = new UnsecuredJWT({ ...claims }).encode();
  const hmac = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256', kid }).sign(randomBytes(32));
  const cases = { forged, tampered, unsigned, hmac, garbage: 'not-a-jwt', jwe: 'a.b.c.d.e' };
  for (const [name, hint] of Object.entries(cases)) {
    const res = await alice.browser.request(app, 'GET', authorizePath(request({ prompt: 'none', id_token_hint: hint })));
    t.equal(new URL(String(res.headers.location)).searchParams.get('error'), 'invalid_request', name);
  }
  // Without prompt=none the same: an invalid hint is an invalid request, not a reason to show a page.
  const res = await alice.browser.request(app, 'GET', authorizePath(request({ id_token_hint: tampered })));
  assertError(t, res, 'invalid_request');
});

t.test('RFC 8725 3.11: a JWT of ours that is not an ID token (a logout token, another typ) is not a hint', async (t) => {
  // Our very keys, as the app loads them from the same database.
  const keys = await loadKeyStore(db, config, clock, pino({ level: 'silent' }));
  t.teardown(() => keys.close());
  const key = keys.signer('RS256');
  const claims = decodeJwt(alice.idToken);
  const sign = (header: Record<string, string>) =>
    new CompactSign(Buffer.from(JSON.stringify(claims))).setProtectedHeader({ alg: key.alg, kid: key.kid, ...header }).sign(key.privateKey);
  const logoutToken = await signLogoutToken(keys, {
    issuer: ISSUER,
    audience: CONFIDENTIAL.client_id,
    subject: aliceSub,
    sid: String(claims.sid ?? 'sid'),
    alg: 'RS256',
    now: clock(),
    ttlSeconds: 120,
  });
  t.equal(decodeProtectedHeader(logoutToken).typ, 'logout+jwt');
  const cases = {
    'a logout token (Back-Channel Logout 1.0 2.4)': logoutToken,
    "the ID token's claims under typ logout+jwt": await sign({ typ: 'logout+jwt' }),
    "the ID token's claims under typ at+jwt (RFC 9068)": await sign({ typ: 'at+jwt' }),
    "the ID token's claims without typ": await sign({}),
  };
  for (const [name, hint] of Object.entries(cases)) {
    const res = await alice.browser.request(app, 'GET', authorizePath(request({ prompt: 'none', id_token_hint: hint })));
    assertError(t, res, 'invalid_request', 'id_token_hint is not an ID token issued by this server to this client');
    const logout = await app.inject({ method: 'GET', url: `/sso/session/end?${new URLSearchParams({ id_token_hint: hint })}` });
    t.equal(logout.statusCode, 400, `${name}: refused at the end-session endpoint too`);
    t.match(logout.body, /id_token_hint is not an ID token issued by this server/);
  }
  // The same claims under our ID tokens' own typ are a good hint: what was refused above is the typ alone.
  const retyped = await sign({ typ: 'JWT' });
  const res = await alice.browser.request(app, 'GET', authorizePath(request({ prompt: 'none', id_token_hint: retyped })));
  t.ok(clientRedirect(t, res).searchParams.get('code'), 'typ JWT, as our ID tokens carry, is accepted');
});

t.test('RFC 6749 3.1: a repeated id_token_hint is invalid_request', async (t) => {
  const res = await alice.browser.request(app, 'GET', `${authorizePath(request({ id_token_hint: alice.idToken }))}&id_token_hint=x`);
  assertError(t, res, 'invalid_request', 'parameter id_token_hint must not be repeated');
});

t.test('Form Post Response Mode 2: a hint error is delivered by form_post when it was asked for', async (t) => {
  const res = await alice.browser.request(
    app,
    'GET',
    authorizePath(request({ prompt: 'none', id_token_hint: bob.idToken, response_mode: 'form_post' })),
  );
  t.equal(res.statusCode, 200);
  t.match(res.body, /<input type="hidden" name="error" value="login_required">/);
});
