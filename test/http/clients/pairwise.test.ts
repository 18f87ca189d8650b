// Pairwise subject identifiers (OIDC Core 8.1): one sub per sector, the same wherever the client meets it: the ID
// token, userinfo, introspection, id_token_hint at authorize and at logout, back-channel logout tokens.
import { decodeJwt } from 'jose';
import t, { type Test } from 'tap';
import type { SeedFile } from '../../../src/domain/admin/seed.js';
import { ALICE, BOB, buildTestApp, CONFIDENTIAL, FIXTURES } from '../../helpers/app.js';
import { authorizePath, basicAuth, type Browser, obtainCode, tokenRequest } from '../../helpers/flow.js';
import { userinfo } from '../../helpers/grants.js';
import { startLogoutReceiver } from '../../helpers/logout-receiver.js';

const receiver = await startLogoutReceiver(t);

/** Pairwise, sector rp.example (its redirect URIs' one host), with back-channel logout and refresh tokens. */
const PAIRWISE = {
  client_id: 'pairwise',
  client_secret: 'pairwise-secret-0123456789',
  redirect_uris: ['https://rp.example/cb', 'https://rp.example/other'],
  post_logout_redirect_uris: ['https://rp.example/bye'],
  grant_types: ['authorization_code', 'refresh_token'],
  subject_type: 'pairwise',
  backchannel_logout_uri: `${receiver.baseUrl}/bc/pairwise`,
};
/** Another client of the same sector. */
const SAME_SECTOR = { ...PAIRWISE, client_id: 'pairwise-sibling', redirect_uris: ['https://rp.example/sibling'] };
/** A client of another sector, named by its sector_identifier_uri (seeded: an operator's, not fetched). */
const OTHER_SECTOR = {
  ...PAIRWISE,
  client_id: 'pairwise-other',
  redirect_uris: ['https://a.example/cb', 'https://b.example/cb'],
  sector_identifier_uri: 'https://other-sector.example/redirects.json',
};
const SEED: SeedFile = { clients: [...FIXTURES.clients, PAIRWISE, SAME_SECTOR, OTHER_SECTOR], users: FIXTURES.users };
type Client = typeof PAIRWISE;

const { app, db } = await buildTestApp(t, {
  seed: SEED,
  env: { BACKCHANNEL_LOGOUT_POLL_SECONDS: '1', BACKCHANNEL_LOGOUT_TIMEOUT_SECONDS: '1' },
});

const userIdOf = async (username: string) =>
  (await db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow()).id;

/** Signs `user` in to `client` (in `browser`, when given) and redeems the code. */
async function tokensFor(
  client: Client,
  user: { username: string; password: string } = ALICE,
  browser?: Browser,
  scope = 'openid profile offline_access',
) {
  const got = await obtainCode(app, { client_id: client.client_id, redirect_uri: client.redirect_uris[0], scope }, { user, browser });
  const res = await tokenRequest(
    app,
    { grant_type: 'authorization_code', code: got.code, redirect_uri: got.redirectUri, code_verifier: got.verifier },
    basicAuth(client.client_id, client.client_secret),
  );
  if (res.statusCode !== 200) throw new Error(res.body);
  const body = res.json() as { access_token: string; id_token: string; refresh_token?: string };
  return { ...body, sub: decodeJwt(body.id_token).sub!, browser: got.browser };
}

function introspect(client: Client, token: string) {
  return app.inject({
    method: 'POST',
    url: '/sso/introspect',
    headers: { authorization: basicAuth(client.client_id, client.client_secret), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ token }).toString(),
  });
}

t.test('OIDC Core 8.1: a pairwise client sees a sub that is not the user id, the same at every sign-in', async (t) => {
  const first = await tokensFor(PAIRWISE);
  const second = await tokensFor(PAIRWISE);
  const aliceId = await userIdOf(ALICE.username);
  t.not(first.sub, aliceId);
  t.match(first.sub, /^[A-Za-z0-9_-]{43}$/, 'an HMAC-SHA256, base64url');
  t.equal(second.sub, first.sub);
  t.not((await tokensFor(PAIRWISE, BOB)).sub, first.sub, 'another user, another sub');
  const pub = await tokensFor(CONFIDENTIAL as unknown as Client);
  t.equal(pub.sub, aliceId, 'a public client still sees the user id');
});

t.test('OIDC Core 8.1: clients of one sector share the sub; another sector (its sector_identifier_uri host) gets another', async (t) => {
  const mine = await tokensFor(PAIRWISE);
  t.equal((await tokensFor(SAME_SECTOR)).sub, mine.sub);
  t.not((await tokensFor(OTHER_SECTOR)).sub, mine.sub);
});

t.test('OIDC Core 5.3.2: the UserInfo sub of a pairwise client is its ID token sub', async (t) => {
  const tokens = await tokensFor(PAIRWISE);
  const res = await userinfo(app, tokens.access_token);
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.json().sub, tokens.sub);
});

t.test('RFC 7662 2.2: introspection tells a pairwise client the sub it knows, for access and refresh tokens', async (t) => {
  const tokens = await tokensFor(PAIRWISE);
  t.equal((await introspect(PAIRWISE, tokens.access_token)).json().sub, tokens.sub);
  t.equal((await introspect(PAIRWISE, tokens.refresh_token!)).json().sub, tokens.sub);
});

t.test('OIDC Core 12.2: the ID token of a refresh has the same pairwise sub', async (t) => {
  const tokens = await tokensFor(PAIRWISE);
  const res = await tokenRequest(
    app,
    { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! },
    basicAuth(PAIRWISE.client_id, PAIRWISE.client_secret),
  );
  t.equal(res.statusCode, 200, res.body);
  t.equal(decodeJwt(res.json().id_token).sub, tokens.sub);
});

function hintRequest(idToken: string) {
  return authorizePath({
    response_type: 'code',
    client_id: PAIRWISE.client_id,
    redirect_uri: PAIRWISE.redirect_uris[0],
    scope: 'openid profile offline_access',
    state: 'st',
    prompt: 'none',
    id_token_hint: idToken,
  });
}

t.test('OIDC Core 3.1.2.1: a pairwise id_token_hint of the signed-in user gets a code with prompt=none', async (t) => {
  const alice = await tokensFor(PAIRWISE);
  const res = await alice.browser.request(app, 'GET', hintRequest(alice.id_token));
  t.equal(res.statusCode, 303, res.body);
  t.ok(new URL(String(res.headers.location)).searchParams.get('code'));
});

t.test('OIDC Core 3.1.2.1: a pairwise id_token_hint of another user than the signed-in one is login_required', async (t) => {
  const alice = await tokensFor(PAIRWISE);
  const bob = await tokensFor(PAIRWISE, BOB);
  const res = await alice.browser.request(app, 'GET', hintRequest(bob.id_token));
  t.equal(res.statusCode, 303, res.body);
  const location = new URL(String(res.headers.location));
  t.equal(location.searchParams.get('error'), 'login_required');
  t.equal(location.searchParams.get('code'), null);
});

async function logout(t: Test, browser: Browser, idToken: string) {
  const query = new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: PAIRWISE.post_logout_redirect_uris[0]! });
  return browser.request(app, 'GET', `/sso/session/end?${query}`);
}

t.test('RP-Initiated Logout 1.0 2: the pairwise id_token_hint of the session user ends the session without asking', async (t) => {
  const alice = await tokensFor(PAIRWISE);
  const before = receiver.received.length;
  const res = await logout(t, alice.browser, alice.id_token);
  t.equal(res.statusCode, 303, 'no confirmation page');
  t.equal(String(res.headers.location), PAIRWISE.post_logout_redirect_uris[0]);

  // Back-Channel Logout 1.0 2.4: "sub ... the same as the sub in the ID Token": the pairwise one.
  const [delivered] = (await receiver.waitFor(before + 1)).slice(before);
  t.equal(delivered!.path, '/bc/pairwise');
  t.equal(decodeJwt(delivered!.logoutToken!).sub, alice.sub);
});

t.test("RP-Initiated Logout 1.0 2: another user's pairwise id_token_hint asks the user to confirm", async (t) => {
  const alice = await tokensFor(PAIRWISE);
  const bob = await tokensFor(PAIRWISE, BOB);
  const res = await logout(t, alice.browser, bob.id_token);
  t.equal(res.statusCode, 200, 'the confirmation page');
  t.match(res.body, /<form/);
});

t.test('OIDC Discovery 3: subject_types_supported lists public and pairwise', async (t) => {
  const res = await app.inject({ method: 'GET', url: '/sso/.well-known/openid-configuration' });
  t.same(res.json().subject_types_supported, ['public', 'pairwise']);
});
