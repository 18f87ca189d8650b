// Linking another upstream account from the account page (issue 19, "Accounts from upstream": "link another"),
// against the GitHub stand-in (test/helpers/github-stand-in.ts): the Link button, the trip upstream with PKCE and a
// browser-bound state, and the callback that links the upstream account to the signed-in user, or refuses and
// writes nothing.
import t from 'tap';
import type { Test } from 'tap';
import { ALICE, BOB, CONFIDENTIAL, FIXTURES, buildTestApp, type TestApp } from '../../helpers/app.js';
import { accountPage, accountSignIn } from '../../helpers/account.js';
import { Browser, authorizePath, hiddenField, localPath, pkcePair } from '../../helpers/flow.js';
import { startGithubStandIn, type GithubStandIn, type GithubUser } from '../../helpers/github-stand-in.js';

const GITHUB_APP = { clientId: 'Iv1.fedcba9876543210', clientSecret: 'github-client-secret-link-0123456789' };

/** Its verified primary address is Bob's: linking it to Alice shows the address decides nothing. */
const HUBBER: GithubUser = {
  login: 'hubber',
  id: 4242001,
  name: 'Hubber',
  email: null,
  emails: [{ email: BOB.email, primary: true, verified: true, visibility: 'private' }],
};

async function setUp(t: Test): Promise<{ server: TestApp; github: GithubStandIn }> {
  const github = await startGithubStandIn(t, GITHUB_APP);
  const server = await buildTestApp(t, {
    env: { RISK_WEIGHTS: 'AUTOMATION=0' },
    seed: {
      ...FIXTURES,
      connections: [
        {
          id: 'github',
          preset: 'github',
          client_id: GITHUB_APP.clientId,
          client_secret: GITHUB_APP.clientSecret,
          authorization_endpoint: `${github.baseUrl}/login/oauth/authorize`,
          token_endpoint: `${github.baseUrl}/login/oauth/access_token`,
          userinfo_endpoint: `${github.baseUrl}/user`,
        },
      ],
    },
  });
  return { server, github };
}

/** Presses "Link GitHub" on the account page: the answer, and the upstream's redirect back to our callback. */
async function startLink(server: TestApp, github: GithubStandIn, browser: Browser, user: GithubUser) {
  github.signedIn = user;
  const { csrf } = await accountPage(server.app, browser);
  const started = await browser.request(server.app, 'POST', '/sso/account/connections/github/link', { csrf });
  if (started.statusCode !== 303) return { started, upstream: undefined, callback: undefined };
  const upstream = new URL(String(started.headers.location));
  const atGithub = await fetch(upstream, { redirect: 'manual' });
  return { started, upstream, callback: localPath(atGithub.headers.get('location')!) };
}

async function userId(server: TestApp, username: string): Promise<string> {
  return (await server.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow()).id;
}

async function written(server: TestApp) {
  return {
    links: await server.db.selectFrom('connection_links').selectAll().execute(),
    events: await server.db.selectFrom('security_events').selectAll().where('type', '=', 'connection_linked').execute(),
  };
}

t.test('the account page offers "Link GitHub" for an enabled connection with no link, not for a linked or disabled one', async (t) => {
  const { server, github } = await setUp(t);
  const alice = await accountSignIn(server.app);
  let { page } = await accountPage(server.app, alice);
  // Issue 19: "The account page lists linked connections (link another, ...)".
  t.match(page.body, 'action="http://localhost:3000/sso/account/connections/github/link"', 'a form posts to the link route');
  t.match(page.body, 'Link GitHub');
  t.match(page.body, /data-link-connection="github">\s*<input type="hidden" name="csrf" value="[^"]+">/, 'with the page CSRF field');
  const { callback } = await startLink(server, github, alice, HUBBER);
  await alice.request(server.app, 'GET', callback!);
  ({ page } = await accountPage(server.app, alice));
  t.match(page.body, 'data-connection="github"', 'the link is listed');
  t.notMatch(page.body, 'Link GitHub', 'a linked connection is not offered again');

  const bob = await accountSignIn(server.app, new Browser(), BOB);
  await server.db.updateTable('connections').set({ enabled: false }).execute();
  ({ page } = await accountPage(server.app, bob));
  t.notMatch(page.body, 'Link GitHub', 'a disabled connection is not offered');
});

t.test('linking goes upstream like a sign-in and links the account to the signed-in user, whatever its address', async (t) => {
  const { server, github } = await setUp(t);
  const alice = await accountSignIn(server.app);
  const aliceId = await userId(server, ALICE.username);
  const { started, upstream, callback } = await startLink(server, github, alice, HUBBER);
  t.equal(started.statusCode, 303);
  // RFC 7636 4.3 (S256) and RFC 6749 10.12 (state): the same request as a sign-in's.
  t.equal(upstream!.searchParams.get('code_challenge_method'), 'S256');
  t.match(upstream!.searchParams.get('code_challenge'), /^[A-Za-z0-9_-]{43}$/);
  t.match(upstream!.searchParams.get('state'), /^[A-Za-z0-9_-]{43}$/);
  t.equal(upstream!.searchParams.get('redirect_uri'), 'http://localhost:3000/sso/connections/github/callback');
  const login = await server.db.selectFrom('upstream_logins').selectAll().executeTakeFirstOrThrow();
  t.equal(login.link_user_id, aliceId, 'the stored login links to the signed-in user');
  t.equal(login.interaction_id, null, 'and resumes no interaction');

  const back = await alice.request(server.app, 'GET', callback!);
  t.equal(back.statusCode, 303);
  t.equal(back.headers.location, 'http://localhost:3000/sso/account', 'back to the account page');
  let { links, events } = await written(server);
  t.equal(links.length, 1);
  t.equal(links[0]!.user_id, aliceId, "linked to Alice although the upstream's verified address is Bob's");
  t.equal(links[0]!.subject, String(HUBBER.id));
  t.equal(links[0]!.provisioned, false);
  t.equal(events.length, 1, 'a connection_linked security event');
  t.same(events[0]!.details, { connection: 'github', provisioned: false });
  t.equal(events[0]!.user_id, aliceId);
  const { page } = await accountPage(server.app, alice);
  t.match(page.body, /data-connection="github">\s*<strong>GitHub<\/strong>/, 'the account page lists it');

  // RFC 6749 10.12: the state is used once; a replayed callback is refused and writes nothing.
  const replayed = await alice.request(server.app, 'GET', callback!);
  t.equal(replayed.statusCode, 400, 'a replayed state is refused');
  ({ links, events } = await written(server));
  t.equal(links.length + events.length, 2, 'nothing more written');

  // Linking the same upstream account again is no change: back to the account page, no second event.
  const again = await startLink(server, github, alice, HUBBER);
  const second = await alice.request(server.app, 'GET', again.callback!);
  t.equal(second.headers.location, 'http://localhost:3000/sso/account');
  ({ links, events } = await written(server));
  t.equal(links.length + events.length, 2, 'still one link and one event');

  // A later sign-in through the connection signs in Alice (the link, not Bob's address, decides).
  const browser = new Browser();
  const { challenge } = pkcePair();
  const authorized = await browser.request(
    server.app,
    'GET',
    authorizePath({
      response_type: 'code',
      client_id: CONFIDENTIAL.client_id,
      redirect_uri: CONFIDENTIAL.redirect_uris[0]!,
      scope: 'openid',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }),
  );
  const signInPage = await browser.request(server.app, 'GET', localPath(String(authorized.headers.location)));
  const signInStart = await browser.request(server.app, 'POST', '/sso/connections/github/start', {
    interaction: hiddenField(signInPage.body, 'interaction'),
    csrf: hiddenField(signInPage.body, 'csrf'),
  });
  const atGithub = await fetch(String(signInStart.headers.location), { redirect: 'manual' });
  const signedIn = await browser.request(server.app, 'GET', localPath(atGithub.headers.get('location')!));
  t.equal(signedIn.statusCode, 303, 'the sign-in goes on to the interaction');
  const session = await server.db.selectFrom('sessions').select('user_id').orderBy('created_at', 'desc').executeTakeFirstOrThrow();
  t.equal(session.user_id, aliceId, 'the session is Alice’s');
  t.match((await accountPage(server.app, browser)).page.body, ALICE.name);
});

t.test('an upstream account linked to another user is refused with 409 and nothing is written', async (t) => {
  const { server, github } = await setUp(t);
  const bob = await accountSignIn(server.app, new Browser(), BOB);
  const bobLink = await startLink(server, github, bob, HUBBER);
  t.equal((await bob.request(server.app, 'GET', bobLink.callback!)).statusCode, 303, 'Bob links it first');
  const before = await written(server);

  const alice = await accountSignIn(server.app);
  const { callback } = await startLink(server, github, alice, HUBBER);
  const refused = await alice.request(server.app, 'GET', callback!);
  // Issue 19: one upstream account belongs to at most one local user; the page names nobody.
  t.equal(refused.statusCode, 409);
  t.match(refused.body, 'This account is already linked to another account here.');
  t.notMatch(refused.body, BOB.username, 'no other detail');
  t.notMatch(refused.body, BOB.email);
  t.same(await written(server), before, 'nothing written');
  t.notMatch((await accountPage(server.app, alice)).page.body, 'data-connection="github"', "Alice's page lists no link");
});

t.test('without a live session of the same user the link is refused and nothing is written', async (t) => {
  const { server, github } = await setUp(t);
  const stranger = new Browser();
  const anonymous = await stranger.request(server.app, 'POST', '/sso/account/connections/github/link', { csrf: 'x' });
  t.equal(anonymous.statusCode, 303, 'no session: to the sign-in page');
  t.equal(anonymous.headers.location, 'http://localhost:3000/sso/account/sign-in');
  t.equal((await server.db.selectFrom('upstream_logins').selectAll().execute()).length, 0, 'nobody sent upstream');

  // The session cookie is gone at the callback (another browser profile, cleared cookies): only the binding is sent.
  const alice = await accountSignIn(server.app);
  const first = await startLink(server, github, alice, HUBBER);
  const noSession = await server.app.inject({
    method: 'GET',
    url: first.callback!,
    headers: { cookie: `sso_upstream=${alice.get('sso_upstream')!}` },
  });
  t.equal(noSession.statusCode, 400);
  t.match(noSession.body, 'Sign in again');

  // The session ended between the start and the callback (signed out elsewhere, revoked).
  const second = await startLink(server, github, alice, HUBBER);
  await server.db.updateTable('sessions').set({ revoked_at: new Date() }).execute();
  const ended = await alice.request(server.app, 'GET', second.callback!);
  t.equal(ended.statusCode, 400);
  t.match(ended.body, 'Sign in again');
  const { links, events } = await written(server);
  t.equal(links.length + events.length, 0, 'no link, no event');
});

t.test('a link form without the page CSRF token is refused and nobody is sent upstream', async (t) => {
  const { server } = await setUp(t);
  const alice = await accountSignIn(server.app);
  const missing = await alice.request(server.app, 'POST', '/sso/account/connections/github/link', {});
  t.equal(missing.statusCode, 403, 'no token');
  const wrong = await alice.request(server.app, 'POST', '/sso/account/connections/github/link', { csrf: 'forged' });
  t.equal(wrong.statusCode, 403, 'a token not of this session');
  t.equal((await server.db.selectFrom('upstream_logins').selectAll().execute()).length, 0);
  const unknown = await alice.request(server.app, 'POST', '/sso/account/connections/nope/link', {
    csrf: (await accountPage(server.app, alice)).csrf,
  });
  t.equal(unknown.statusCode, 404, 'an unknown connection is a page, not a trip');
});

t.test('a stored upstream login has exactly one purpose: an interaction or a user to link', async (t) => {
  const { server } = await setUp(t);
  const row = {
    browser_hash: 'b',
    connection_id: 'github',
    nonce: 'n',
    verifier_sealed: '{}',
    expires_at: new Date(Date.now() + 60_000),
  };
  await t.rejects(
    server.db
      .insertInto('upstream_logins')
      .values({ ...row, state_hash: 's1', interaction_id: null })
      .execute(),
    'neither',
  );
  await t.rejects(
    server.db
      .insertInto('upstream_logins')
      .values({ ...row, state_hash: 's2', interaction_id: 'i', link_user_id: await userId(server, ALICE.username) })
      .execute(),
    'both',
  );
});
