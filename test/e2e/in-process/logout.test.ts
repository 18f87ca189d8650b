// RP-Initiated Logout 1.0 and Back-Channel Logout 1.0 end to end: openid-client v6 as the relying party
// against a listening provider, a fetch browser with a cookie jar, and the client's back-channel endpoint.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import t from 'tap';
import { CONFIDENTIAL, FIXTURES } from '../../helpers/app.js';
import { CookieJar, visit } from '../../helpers/fetch-browser.js';
import { listenTestApp, type ListeningApp } from '../../helpers/listening.js';
import { startLogoutReceiver } from '../../helpers/logout-receiver.js';
import { discoverConfidential, prepareAttempt, redeem } from '../../helpers/relying-party.js';

const LOGGED_OUT = 'https://app.example/logged-out';
const receiver = await startLogoutReceiver(t);
const CLIENT = {
  ...CONFIDENTIAL,
  grant_types: ['authorization_code', 'refresh_token'],
  post_logout_redirect_uris: [LOGGED_OUT],
  backchannel_logout_uri: `${receiver.baseUrl}/backchannel`,
  backchannel_logout_session_required: true,
};
const server = await listenTestApp(t, { seed: { clients: [CLIENT, ...FIXTURES.clients.slice(1)], users: FIXTURES.users } });
const config = await discoverConfidential(server);

/** A GET in the browser of `jar`, redirects not followed. */
async function browse(target: ListeningApp, jar: CookieJar, url: URL): Promise<Response> {
  if (url.origin !== new URL(target.baseUrl).origin) throw new Error(`not the loopback server: ${url.href}`);
  const cookie = jar.header(url);
  const response = await fetch(url, { headers: cookie ? { cookie } : {}, redirect: 'manual' });
  jar.store(response);
  return response;
}

async function signIn(jar: CookieJar, scope = 'openid profile') {
  const attempt = await prepareAttempt(config, CLIENT.redirect_uris[0]!, scope);
  const { callback } = await visit(server, attempt.authorizationUrl, undefined, jar);
  return redeem(attempt, callback);
}

t.test('discovery advertises what the relying party needs for logout', async (t) => {
  const metadata = config.serverMetadata();
  t.equal(metadata.end_session_endpoint, `${server.issuer}/session/end`);
  t.equal(metadata.backchannel_logout_supported, true);
  t.equal(metadata.backchannel_logout_session_supported, true);
});

t.test(
  'openid-client buildEndSessionUrl: signed out, back at the registered URI with state, the client told by back-channel',
  async (t) => {
    const jar = new CookieJar();
    const tokens = await signIn(jar, 'openid profile offline_access');
    const claims = tokens.claims()!;
    t.type(claims.sid, 'string', 'the ID token carries sid');

    // OIDC Core 12.2: a refreshed ID token belongs to the same session.
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    t.equal(refreshed.claims()!.sid, claims.sid, 'a refreshed ID token keeps the sid');

    const before = receiver.received.length;
    const endSessionUrl = oidc.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: LOGGED_OUT,
      state: 'bye-1',
    });
    const res = await browse(server, jar, endSessionUrl);
    t.equal(res.status, 303);
    const back = new URL(res.headers.get('location')!);
    t.equal(`${back.origin}${back.pathname}`, LOGGED_OUT);
    t.equal(back.searchParams.get('state'), 'bye-1');

    // The browser is signed out: prompt=none now answers login_required.
    const silent = await prepareAttempt(config, CLIENT.redirect_uris[0]!, 'openid', { prompt: 'none' });
    const answer = await browse(server, jar, silent.authorizationUrl);
    t.equal(new URL(answer.headers.get('location')!).searchParams.get('error'), 'login_required');

    const got = await receiver.waitFor(before + 1);
    const token = got[before]!.logoutToken!;
    const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
    const { payload } = await jwtVerify(token, jwks, { issuer: server.issuer, audience: CLIENT.client_id, typ: 'logout+jwt' });
    t.equal(payload.sid, claims.sid, 'the logout token names the session of the ID tokens');
    t.equal(payload.sub, claims.sub);
    t.ok((payload.events as Record<string, unknown>)['http://schemas.openid.net/event/backchannel-logout']);
  },
);

t.test('without id_token_hint the user confirms on a page before the session ends', async (t) => {
  const jar = new CookieJar();
  await signIn(jar);
  const endSessionUrl = oidc.buildEndSessionUrl(config, { post_logout_redirect_uri: LOGGED_OUT, state: 'bye-2' });
  t.equal(endSessionUrl.searchParams.get('client_id'), CLIENT.client_id, 'openid-client names the client');
  const ask = await browse(server, jar, endSessionUrl);
  t.equal(ask.status, 200);
  const page = await ask.text();
  t.match(page, /Sign out\?/);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
  const action = new URL(/<form method="post" action="([^"]+)"/.exec(page)![1]!);
  const cookie = jar.header(action);
  const done = await fetch(action, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      csrf,
      decision: 'logout',
      client_id: CLIENT.client_id,
      post_logout_redirect_uri: LOGGED_OUT,
      state: 'bye-2',
    }).toString(),
    redirect: 'manual',
  });
  // Issue 16 finding 4: without an id_token_hint the provider shows its own page instead of redirecting.
  t.equal(done.status, 200);
  t.equal(done.headers.get('location'), null);
  t.match(await done.text(), /You are signed out/);
});
