// RP-Initiated Logout 1.0: the end_session_endpoint, its checks, and its confirmation page.
import { decodeJwt } from 'jose';
import t from 'tap';
import { ALICE, BOB, buildTestApp, CONFIDENTIAL, FIXTURES, PUBLIC } from '../../helpers/app.js';
import { authorizePath, Browser, formAction, hiddenField, obtainCode, tokenRequest } from '../../helpers/flow.js';

const LOGGED_OUT = 'https://app.example/logged-out';
const LOGGED_OUT_WITH_QUERY = 'https://app.example/bye?from=sso';
const CLIENT = { ...CONFIDENTIAL, post_logout_redirect_uris: [LOGGED_OUT, LOGGED_OUT_WITH_QUERY] };

const { app, advance } = await buildTestApp(t, { seed: { clients: [CLIENT, FIXTURES.clients[1]!, PUBLIC], users: FIXTURES.users } });

/** Alice (or `user`) signed in in a new browser, with the ID token the client got. */
async function signedIn(user: { username: string; password: string } = ALICE, browser?: Browser) {
  const { code, verifier, browser: b, redirectUri } = await obtainCode(app, {}, { user, browser });
  const res = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier });
  if (res.statusCode !== 200) throw new Error(res.body);
  return { browser: b, idToken: (res.json() as { id_token: string }).id_token };
}

function endSessionPath(params: Record<string, string>): string {
  return `/sso/session/end?${new URLSearchParams(params)}`;
}

/** Is the browser still signed in? prompt=none answers with a code only to a live session. */
async function stillSignedIn(browser: Browser): Promise<boolean> {
  const res = await browser.request(
    app,
    'GET',
    authorizePath({
      response_type: 'code',
      client_id: CLIENT.client_id,
      redirect_uri: CLIENT.redirect_uris[0],
      scope: 'openid',
      prompt: 'none',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }),
  );
  const location = new URL(String(res.headers.location));
  return location.searchParams.has('code');
}

t.test('OIDC Core 2 / Back-Channel Logout 2.1: ID tokens carry the session id, the same for every code of one session', async (t) => {
  const first = await signedIn();
  const sid = decodeJwt(first.idToken).sid;
  t.type(sid, 'string');
  t.ok((sid as string).length >= 16);
  const again = await obtainCode(app, {}, { browser: first.browser });
  const res = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code: again.code,
    redirect_uri: again.redirectUri,
    code_verifier: again.verifier,
  });
  t.equal(decodeJwt((res.json() as { id_token: string }).id_token).sid, sid, 'a code issued from the live session carries its sid');
  const other = await signedIn();
  t.not(decodeJwt(other.idToken).sid, sid, 'another browser has another session');
});

t.test('RP-Initiated Logout 2-3: id_token_hint of this session and a registered URI: signed out and sent back with state', async (t) => {
  const { browser, idToken } = await signedIn();
  t.ok(await stillSignedIn(browser));
  const res = await browser.request(
    app,
    'GET',
    endSessionPath({ id_token_hint: idToken, post_logout_redirect_uri: LOGGED_OUT, state: 's t&x' }),
  );
  t.equal(res.statusCode, 303);
  const location = new URL(String(res.headers.location));
  t.equal(`${location.origin}${location.pathname}`, LOGGED_OUT);
  t.equal(location.searchParams.get('state'), 's t&x', 'the state comes back unchanged');
  t.equal(res.headers['cache-control'], 'no-store');
  t.notOk(await stillSignedIn(browser), 'the session has ended');
  const cleared = res.cookies.find((c) => c.name === 'sso_session');
  t.ok(cleared, 'the session cookie is cleared');
});

t.test('RP-Initiated Logout 3: a registered URI keeps its own query; no state, no state parameter', async (t) => {
  const { browser, idToken } = await signedIn();
  const res = await browser.request(
    app,
    'GET',
    endSessionPath({ id_token_hint: idToken, post_logout_redirect_uri: LOGGED_OUT_WITH_QUERY }),
  );
  t.equal(res.statusCode, 303);
  const location = new URL(String(res.headers.location));
  t.equal(location.searchParams.get('from'), 'sso');
  t.notOk(location.searchParams.has('state'));
});

t.test('RP-Initiated Logout 2: POST with form serialization works like GET', async (t) => {
  const { browser, idToken } = await signedIn();
  const res = await browser.request(app, 'POST', '/sso/session/end', {
    id_token_hint: idToken,
    post_logout_redirect_uri: LOGGED_OUT,
    state: 'p',
  });
  t.equal(res.statusCode, 303);
  t.equal(new URL(String(res.headers.location)).searchParams.get('state'), 'p');
  t.notOk(await stillSignedIn(browser));
});

t.test('RP-Initiated Logout 2: an expired ID token is still a good hint', async (t) => {
  const { browser, idToken } = await signedIn();
  advance(2 * 3600);
  const res = await browser.request(app, 'GET', endSessionPath({ id_token_hint: idToken, post_logout_redirect_uri: LOGGED_OUT }));
  t.equal(res.statusCode, 303);
  t.notOk(await stillSignedIn(browser));
});

t.test('RP-Initiated Logout 3: a post_logout_redirect_uri that is not registered exactly is never redirected to', async (t) => {
  const { browser, idToken } = await signedIn();
  for (const uri of [
    `${LOGGED_OUT}/`,
    `${LOGGED_OUT}?x=1`,
    'https://evil.example/logged-out',
    CLIENT.redirect_uris[0]!,
    LOGGED_OUT.toUpperCase(),
  ]) {
    const res = await browser.request(app, 'GET', endSessionPath({ id_token_hint: idToken, post_logout_redirect_uri: uri }));
    t.equal(res.statusCode, 400, uri);
    t.notOk(res.headers.location, `no redirect to ${uri}`);
    t.match(res.headers['content-type'], /text\/html/);
    t.match(res.body, /post_logout_redirect_uri is not registered/);
  }
  t.ok(await stillSignedIn(browser), 'a refused request ends nothing');
});

t.test('RP-Initiated Logout 2: post_logout_redirect_uri needs the client named by id_token_hint or client_id', async (t) => {
  const res = await app.inject({ method: 'GET', url: endSessionPath({ post_logout_redirect_uri: LOGGED_OUT }) });
  t.equal(res.statusCode, 400);
  t.notOk(res.headers.location);
  t.match(res.body, /needs id_token_hint or client_id/);
});

t.test('RP-Initiated Logout 2: client_id alone names the client; it must be registered', async (t) => {
  const ok = await app.inject({
    method: 'GET',
    url: endSessionPath({ client_id: CLIENT.client_id, post_logout_redirect_uri: LOGGED_OUT, state: 'c' }),
  });
  // Issue 16 finding 4 (RFC 9700 4.11.2): without an ID token anyone could send this; no redirect, not even with no session.
  t.equal(ok.statusCode, 200, 'with no session there is nothing to confirm: the signed-out page');
  t.notOk(ok.headers.location, 'post_logout_redirect_uri is followed only with a valid id_token_hint');
  t.match(ok.body, /You are signed out/);
  const unknown = await app.inject({ method: 'GET', url: endSessionPath({ client_id: 'nobody', post_logout_redirect_uri: LOGGED_OUT }) });
  t.equal(unknown.statusCode, 400);
  t.match(unknown.body, /not a registered client/);
});

t.test('RP-Initiated Logout 2: client_id must be the audience of id_token_hint', async (t) => {
  const { browser, idToken } = await signedIn();
  const res = await browser.request(app, 'GET', endSessionPath({ id_token_hint: idToken, client_id: PUBLIC.client_id }));
  t.equal(res.statusCode, 400);
  t.match(res.body, /client_id is not the audience of id_token_hint/);
  t.ok(await stillSignedIn(browser));
});

t.test('RP-Initiated Logout 2: an id_token_hint not signed by us is refused', async (t) => {
  const { browser, idToken } = await signedIn();
  const [h, p, s] = idToken.split('.');
  const tampered = `${h}.${Buffer.from(JSON.stringify({ ...decodeJwt(idToken), sub: 'someone-else' })).toString('base64url')}.${s}`;
  for (const hint of [tampered, 'not-a-jwt', `${h}.${p}.`]) {
    const res = await browser.request(app, 'GET', endSessionPath({ id_token_hint: hint, post_logout_redirect_uri: LOGGED_OUT }));
    t.equal(res.statusCode, 400);
    t.notOk(res.headers.location);
    t.match(res.body, /id_token_hint is not an ID token issued by this server/);
  }
  t.ok(await stillSignedIn(browser));
});

t.test('RFC 6749 3.1 (as for every endpoint): a repeated parameter is refused', async (t) => {
  const res = await app.inject({ method: 'GET', url: `/sso/session/end?state=a&state=b` });
  t.equal(res.statusCode, 400);
  t.match(res.body, /state must not be repeated/);
});

t.test('no session: the signed-out page, with the page security headers', async (t) => {
  const res = await app.inject({ method: 'GET', url: '/sso/session/end' });
  t.equal(res.statusCode, 200);
  t.match(res.body, /You are signed out/);
  t.equal(res.headers['x-frame-options'], 'DENY');
  t.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/);
  t.notOk(res.headers['access-control-allow-origin'], 'no CORS on a page');
});

t.test('RP-Initiated Logout 2: without id_token_hint the user is asked, and only the confirmed form ends the session', async (t) => {
  const { browser } = await signedIn();
  const ask = await browser.request(
    app,
    'GET',
    endSessionPath({ client_id: CLIENT.client_id, post_logout_redirect_uri: LOGGED_OUT, state: 'q' }),
  );
  t.equal(ask.statusCode, 200);
  t.match(ask.body, /Sign out\?/);
  t.match(ask.body, /Test App asks to sign you out/);
  t.ok(await stillSignedIn(browser), 'asking ends nothing');
  const action = formAction(ask.body);
  t.equal(action, '/sso/session/end/confirm');
  const csrf = hiddenField(ask.body, 'csrf');
  const fields = {
    client_id: hiddenField(ask.body, 'client_id'),
    post_logout_redirect_uri: hiddenField(ask.body, 'post_logout_redirect_uri'),
    state: 'q',
  };

  const forged = await browser.request(app, 'POST', action, { ...fields, csrf: 'x'.repeat(43), decision: 'logout' });
  t.equal(forged.statusCode, 400, 'a form without the right token is refused');
  t.notOk(forged.headers.location);
  const anotherBrowser = await new Browser().request(app, 'POST', action, { ...fields, csrf, decision: 'logout' });
  t.equal(anotherBrowser.statusCode, 200, 'a browser with no session has nothing to end');
  t.notOk(anotherBrowser.headers.location, 'and is not redirected without an id_token_hint');
  t.ok(await stillSignedIn(browser), 'neither ended the session');

  const tamperedUri = await browser.request(app, 'POST', action, {
    ...fields,
    post_logout_redirect_uri: 'https://evil.example/',
    csrf,
    decision: 'logout',
  });
  t.equal(tamperedUri.statusCode, 400, 'the echoed fields are validated again');
  t.notOk(tamperedUri.headers.location);

  const stay = await browser.request(app, 'POST', action, { ...fields, csrf, decision: 'stay' });
  t.notOk(stay.headers.location, 'without an id_token_hint nobody is redirected, whatever they chose');
  t.ok(await stillSignedIn(browser), 'stay keeps the session');

  const done = await browser.request(app, 'POST', action, { ...fields, csrf, decision: 'logout' });
  t.equal(done.statusCode, 200, 'the signed-out page');
  t.notOk(done.headers.location, 'no redirect without an id_token_hint (issue 16, finding 4)');
  t.notOk(await stillSignedIn(browser));
});

t.test('RP-Initiated Logout 2: an ID token of another user, or of an earlier session, makes the user confirm', async (t) => {
  const bobs = await signedIn(BOB);
  const alice = await signedIn(ALICE);
  const res = await alice.browser.request(app, 'GET', endSessionPath({ id_token_hint: bobs.idToken }));
  t.equal(res.statusCode, 200);
  t.match(res.body, /Sign out\?/);
  t.ok(await stillSignedIn(alice.browser));

  // Alice signs in afresh (prompt=login) in the same browser: a new session, so her old ID token asks too.
  const old = alice.idToken;
  await obtainCode(app, { prompt: 'login' }, { browser: alice.browser });
  const again = await alice.browser.request(app, 'GET', endSessionPath({ id_token_hint: old }));
  t.equal(again.statusCode, 200);
  t.match(again.body, /Sign out\?/);
});

t.test('the confirmation page without a client says so, and without a redirect ends on the signed-out page', async (t) => {
  const { browser } = await signedIn();
  const ask = await browser.request(app, 'GET', '/sso/session/end');
  t.match(ask.body, /A site asks to sign you out/);
  const done = await browser.request(app, 'POST', formAction(ask.body), { csrf: hiddenField(ask.body, 'csrf'), decision: 'logout' });
  t.equal(done.statusCode, 200);
  t.match(done.body, /You are signed out/);
  t.notOk(await stillSignedIn(browser));
});
