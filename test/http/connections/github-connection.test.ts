// The GitHub preset (OAuth 2.0, issue 19) against a stand-in that answers as GitHub documents (test/helpers/
// github-stand-in.ts): the code flow with PKCE, the token request with the client secret, the user from GET /user
// and the address from GET /user/emails, taken only when it is the primary one and verified.
import pino from 'pino';
import { sql } from 'kysely';
import t from 'tap';
import { loggerOptions } from '../../../src/logger.js';
import type { Test } from 'tap';
import { BOB, CONFIDENTIAL, FIXTURES, buildTestApp, type TestApp } from '../../helpers/app.js';
import { followToClient, pressConnectionButton, redeemForIdToken } from '../../helpers/connection-flow.js';
import { hiddenField, localPath } from '../../helpers/flow.js';
import { CapturingNotifier } from '../../helpers/notifier.js';
import { riskEnv, weightsEnv } from '../../helpers/risk.js';
import { startGithubStandIn, type GithubStandIn, type GithubUser } from '../../helpers/github-stand-in.js';
import { KEYS_SECRET } from '../../helpers/account.js';
import type { AdminContext } from '../../../src/domain/admin/admin.js';
import { keptTokensOf, setConnection, showConnection } from '../../../src/domain/connections/connection-admin.js';

const GITHUB_APP = { clientId: 'Iv1.0123456789abcdef', clientSecret: 'github-client-secret-0123456789' };

const OCTOCAT: GithubUser = {
  login: 'octocat',
  id: 583231,
  name: 'The Octocat',
  email: null,
  emails: [
    { email: 'octocat@github.example', primary: true, verified: true, visibility: 'private' },
    { email: 'other@github.example', primary: false, verified: true, visibility: null },
  ],
};

/** Bob's address is this account's primary one, but GitHub has not verified it; another address is verified. */
const NOT_BOB: GithubUser = {
  login: 'not-bob',
  id: 9000001,
  name: 'Not Bob',
  email: BOB.email,
  emails: [
    { email: BOB.email, primary: true, verified: false, visibility: 'public' },
    { email: 'notbob@elsewhere.example', primary: false, verified: true, visibility: null },
  ],
};

async function setUp(
  t: Test,
  options: { env?: Record<string, string>; notifier?: CapturingNotifier; logger?: pino.Logger; storeTokens?: boolean } = {},
): Promise<{ server: TestApp; github: GithubStandIn }> {
  const github = await startGithubStandIn(t, GITHUB_APP);
  const server = await buildTestApp(t, {
    env: options.env ?? { RISK_WEIGHTS: 'AUTOMATION=0' },
    ...(options.notifier ? { notifier: options.notifier } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    seed: {
      ...FIXTURES,
      connections: [
        {
          id: 'github',
          preset: 'github',
          client_id: GITHUB_APP.clientId,
          client_secret: GITHUB_APP.clientSecret,
          // The preset's base URLs, overridden for the stand-in.
          authorization_endpoint: `${github.baseUrl}/login/oauth/authorize`,
          token_endpoint: `${github.baseUrl}/login/oauth/access_token`,
          userinfo_endpoint: `${github.baseUrl}/user`,
          ...(options.storeTokens ? { store_tokens: true } : {}),
        },
      ],
    },
  });
  return { server, github };
}

/** Through the GitHub button to the client's redirect URI; the ID token of the code it brings back. */
async function signInWithGithub(server: TestApp, github: GithubStandIn, user: GithubUser, secondFactor?: () => Promise<string>) {
  github.signedIn = user;
  const pressed = await pressConnectionButton(server, 'github');
  t.match(pressed.page.body, 'Sign in with GitHub', 'the sign-in page has the button');
  const upstream = new URL(String(pressed.started.headers.location));
  const atGithub = await fetch(upstream, { redirect: 'manual' });
  const { browser } = pressed;
  const callback = await browser.request(server.app, 'GET', localPath(atGithub.headers.get('location')!));
  const response = await followToClient(server, pressed, callback, secondFactor);
  const claims = await redeemForIdToken(server, response, pressed.verifier);
  return { upstream, callbackStatus: callback.statusCode, response, browser, claims };
}

t.test('GitHub: the primary verified address provisions the user; the second sign-in is the same user', async (t) => {
  const { server, github } = await setUp(t);
  const first = await signInWithGithub(server, github, OCTOCAT);
  // RFC 7636 4.3: the authorization request carries an S256 challenge; RFC 6749 3.3: the preset's scopes.
  t.equal(first.upstream.searchParams.get('code_challenge_method'), 'S256');
  t.equal(first.upstream.searchParams.get('scope'), 'read:user user:email');
  t.equal(first.upstream.searchParams.get('redirect_uri'), 'http://localhost:3000/sso/connections/github/callback');
  t.equal(github.tokenRequests[0]?.get('client_secret'), GITHUB_APP.clientSecret, 'the sealed secret is opened for the token request');
  t.ok(github.tokenRequests[0]?.get('code_verifier'), 'and the PKCE verifier is sent');
  t.match(first.claims, { email: 'octocat@github.example', email_verified: true, name: 'The Octocat', amr: ['fed'] });
  const links = await server.db.selectFrom('connection_links').selectAll().execute();
  t.match(links, [{ connection_id: 'github', subject: String(OCTOCAT.id) }], 'linked by the numeric GitHub id');
  const user = await server.db.selectFrom('users').selectAll().where('id', '=', links[0]!.user_id).executeTakeFirstOrThrow();
  t.equal(user.username, 'octocat', 'the username is the GitHub login');
  const second = await signInWithGithub(server, github, OCTOCAT);
  t.equal(second.claims?.sub, first.claims?.sub, 'the same user');
  t.equal((await server.db.selectFrom('connection_links').selectAll().execute()).length, 1, 'no second link');
  t.equal(links[0]!.tokens_sealed, null, 'issue 19: upstream tokens are not kept unless the connection asks for it');
});

t.test(
  "store_tokens: the last sign-in's upstream token is kept sealed on the link, read back by an admin, forgotten when turned off",
  async (t) => {
    const { server, github } = await setUp(t, { env: { RISK_WEIGHTS: 'AUTOMATION=0', ...KEYS_SECRET }, storeTokens: true });
    const admin = {
      db: server.db,
      config: server.config,
      clock: () => new Date(),
      log: pino({ level: 'silent' }),
    } as unknown as AdminContext;
    t.ok((await signInWithGithub(server, github, OCTOCAT)).claims, 'signed in');
    const stored = await server.db.selectFrom('connection_links').selectAll().executeTakeFirstOrThrow();
    t.equal((stored.tokens_sealed as { v?: number }).v, 1, 'an encrypted envelope (sealed-secrets.ts, purpose upstream-tokens)');
    t.notMatch(JSON.stringify(stored.tokens_sealed), github.issuedTokens[0]!, 'the token is not in the clear');
    const [kept] = await keptTokensOf(admin, 'octocat', 'github');
    // RFC 6749 5.1: access_token and token_type as GitHub answered them.
    t.match(kept, {
      connection: 'github',
      subject: String(OCTOCAT.id),
      tokens: { access_token: github.issuedTokens[0], token_type: 'bearer' },
    });
    // What the tokens are for: the upstream's API, on the person's behalf.
    const me = await fetch(`${github.baseUrl}/user`, {
      headers: { authorization: `Bearer ${kept!.tokens.access_token}`, 'user-agent': 'test' },
    });
    t.match(await me.json(), { login: 'octocat' }, 'the kept token works at the upstream API');

    await signInWithGithub(server, github, OCTOCAT);
    t.equal(
      (await keptTokensOf(admin, 'octocat', 'github'))[0]?.tokens.access_token,
      github.issuedTokens[1],
      'the next sign-in replaces it',
    );

    // A sealed value is bound to its link: moved to another link it does not open.
    await server.db
      .insertInto('connection_links')
      .values({
        connection_id: 'github',
        subject: 'someone-else',
        user_id: stored.user_id,
        created_at: new Date(),
        last_used_at: new Date(),
        tokens_sealed: JSON.stringify(stored.tokens_sealed),
        tokens_stored_at: new Date(),
      })
      .execute();
    await t.rejects(keptTokensOf(admin, 'octocat', 'github'), /does not decrypt/, 'an envelope copied to another link is refused');
    await server.db.deleteFrom('connection_links').where('subject', '=', 'someone-else').execute();

    const current = await showConnection(admin, 'github');
    t.equal(current.store_tokens, true);
    const entry = { id: 'github', preset: 'github' as const, client_id: GITHUB_APP.clientId, client_secret: GITHUB_APP.clientSecret };
    await setConnection(admin, entry);
    t.equal(
      (await server.db.selectFrom('connection_links').selectAll().executeTakeFirstOrThrow()).tokens_sealed,
      null,
      'turned off: forgotten',
    );
    t.same(await keptTokensOf(admin, 'octocat', 'github'), []);
  },
);

t.test('GitHub: an unverified primary address is not taken, and never links to the local account that has it', async (t) => {
  const { server, github } = await setUp(t);
  const result = await signInWithGithub(server, github, NOT_BOB);
  t.notOk(result.claims?.email, 'no address: the primary one is not verified, and a secondary one is not used');
  const link = await server.db.selectFrom('connection_links').selectAll().executeTakeFirstOrThrow();
  const bob = await server.db.selectFrom('users').select('id').where('username', '=', BOB.username).executeTakeFirstOrThrow();
  t.not(link.user_id, bob.id, "not Bob's account");
  const created = await server.db.selectFrom('users').selectAll().where('id', '=', link.user_id).executeTakeFirstOrThrow();
  t.equal(created.email, null);
});

t.test('GitHub: a token endpoint that refuses the code (its 200 with an error member) is a 502 page, never a 500', async (t) => {
  const { server, github } = await setUp(t);
  const wrongSecret = await server.db
    .updateTable('connections')
    .set({ client_secret_sealed: JSON.stringify({ v: 0, clear: Buffer.from('wrong').toString('base64url') }) })
    .execute();
  t.ok(wrongSecret);
  const result = await signInWithGithub(server, github, OCTOCAT);
  t.equal(result.callbackStatus, 502);
  t.match(result.response.body, 'could not be trusted');
  t.notMatch(result.response.body, 'incorrect_client_credentials', "the upstream's words are not shown");
});

t.test('a CHALLENGE after an upstream sign-in asks for our second factor; the code completes it with amr fed otp mfa', async (t) => {
  const notifier = new CapturingNotifier();
  // A new device weighs enough for a CHALLENGE (RISK_CHALLENGE_SCORE 30); the first sign-in is the user's enrolment.
  const { server, github } = await setUp(t, { env: riskEnv({ RISK_WEIGHTS: weightsEnv({ AUTOMATION: 0, NEW_DEVICE: 40 }) }), notifier });
  const first = await signInWithGithub(server, github, OCTOCAT);
  t.same(first.claims?.amr, ['fed'], 'the first device is the enrolment: no challenge');
  const userId = (await server.db.selectFrom('connection_links').select('user_id').executeTakeFirstOrThrow()).user_id;
  const second = await signInWithGithub(server, github, OCTOCAT, () => notifier.code(userId));
  t.equal(second.callbackStatus, 303);
  // RFC 8176 2: fed, then otp (the code we sent) and mfa.
  t.same(second.claims?.amr, ['fed', 'otp', 'mfa'], 'signed in after the code');
  t.equal(second.claims?.sub, first.claims?.sub);
  const events = await server.db.selectFrom('security_events').select('type').where('user_id', '=', userId).execute();
  t.ok(
    events.some((e) => e.type === 'sign_in_challenged'),
    'the challenge is a security event',
  );
});

t.test('a client that requires a second factor (require_mfa) gets one after an upstream sign-in whose amr is not trusted', async (t) => {
  const notifier = new CapturingNotifier();
  const { server, github } = await setUp(t, { notifier });
  await server.db
    .updateTable('clients')
    .set({ metadata: sql`metadata || '{"require_mfa": true}'::jsonb` })
    .where('client_id', '=', CONFIDENTIAL.client_id)
    .execute();
  // The risk engine lets the sign-in in (AUTOMATION weighs nothing here); the client's rule asks for the code.
  const signedIn = await signInWithGithub(server, github, OCTOCAT, async () => {
    const userId = (await server.db.selectFrom('connection_links').select('user_id').executeTakeFirstOrThrow()).user_id;
    return notifier.code(userId);
  });
  t.equal(signedIn.callbackStatus, 303);
  // RFC 8176 2: fed, then otp (the code sent to the address GitHub verified) and mfa.
  t.same(signedIn.claims?.amr, ['fed', 'otp', 'mfa']);
  const events = await server.db.selectFrom('security_events').select('type').execute();
  t.notOk(
    events.some((e) => e.type === 'sign_in_challenged'),
    'the client rule is not a risk finding',
  );
});

t.test('a CHALLENGE for a user with no second factor (no verified address, app or passkey) is a 403 page', async (t) => {
  const { server, github } = await setUp(t, { env: riskEnv({ RISK_WEIGHTS: weightsEnv({ AUTOMATION: 0, NEW_DEVICE: 40 }) }) });
  t.ok((await signInWithGithub(server, github, NOT_BOB)).claims, 'the first sign-in makes the user (no address kept)');
  const second = await signInWithGithub(server, github, NOT_BOB);
  t.equal(second.callbackStatus, 403);
  t.match(second.response.body, 'needs an extra check');
});

t.test('the account page lists linked accounts; one is unlinked while another way in remains, never the last one', async (t) => {
  const { server, github } = await setUp(t);
  const octocat = await signInWithGithub(server, github, OCTOCAT);
  let account = await octocat.browser.request(server.app, 'GET', '/sso/account');
  t.match(account.body, 'Linked accounts');
  t.match(account.body, 'aria-label="Unlink GitHub"', 'a verified address can always get a password by reset: unlinking is offered');
  const unlinked = await octocat.browser.request(server.app, 'POST', '/sso/account/connections/github/unlink', {
    csrf: hiddenField(account.body, 'csrf'),
    subject: String(OCTOCAT.id),
  });
  t.equal(unlinked.statusCode, 303);
  t.equal((await server.db.selectFrom('connection_links').selectAll().execute()).length, 0, 'the link is gone');
  account = await octocat.browser.request(server.app, 'GET', '/sso/account');
  t.notMatch(account.body, 'data-connection=', 'no link is listed');
  t.match(account.body, 'Link GitHub', 'the connection is offered to link again');

  const notBob = await signInWithGithub(server, github, NOT_BOB);
  account = await notBob.browser.request(server.app, 'GET', '/sso/account');
  t.match(account.body, 'Linked accounts');
  t.notMatch(account.body, 'Unlink GitHub', 'no address, no passkey, no password of its own: the link is the only way in');
  const refused = await notBob.browser.request(server.app, 'POST', '/sso/account/connections/github/unlink', {
    csrf: hiddenField(account.body, 'csrf'),
    subject: String(NOT_BOB.id),
  });
  t.equal(refused.statusCode, 409);
  t.match(refused.body, 'only way to sign in');
  t.equal((await server.db.selectFrom('connection_links').selectAll().execute()).length, 1, 'still linked');
  const foreign = await notBob.browser.request(server.app, 'POST', '/sso/account/connections/github/unlink', {
    csrf: hiddenField(account.body, 'csrf'),
    subject: String(OCTOCAT.id),
  });
  t.equal(foreign.statusCode, 404, "another person's link is not found");
});

t.test('no upstream code, token or client secret reaches the log, even when the sign-in is refused', async (t) => {
  const lines: string[] = [];
  const logger = pino(loggerOptions('debug'), { write: (line: string) => void lines.push(line) });
  const { server, github } = await setUp(t, { logger });
  const result = await signInWithGithub(server, github, OCTOCAT);
  t.ok(result.claims, 'signed in');
  await server.db.updateTable('connections').set({ client_secret_sealed: null }).execute();
  const refused = await signInWithGithub(server, github, OCTOCAT);
  t.equal(refused.callbackStatus, 502, 'refused: the stand-in wants the secret');
  const log = lines.join('');
  t.match(log, 'upstream sign-in refused', 'the refusal is logged');
  t.notMatch(log, 'gho_', 'no access token');
  t.notMatch(log, GITHUB_APP.clientSecret, 'no client secret');
  for (const form of github.tokenRequests) t.notMatch(log, form.get('code')!, 'no code');
  t.notMatch(log, github.tokenRequests[0]!.get('code_verifier')!, 'no PKCE verifier');
});

t.test('forged callbacks are counted per network before any work, and throttled with 429 (RFC 6585 4)', async (t) => {
  const { server } = await setUp(t, { env: { RISK_WEIGHTS: 'AUTOMATION=0', SIGN_IN_IP_FREE_ATTEMPTS: '3' } });
  const statuses: number[] = [];
  let retryAfter: unknown;
  for (let i = 0; i < 5; i++) {
    const forged = await server.app.inject({ method: 'GET', url: `/sso/connections/github/callback?state=forged-${i}&code=x` });
    statuses.push(forged.statusCode);
    if (forged.statusCode === 429) retryAfter = forged.headers['retry-after'];
  }
  t.same(statuses.slice(0, 3), [400, 400, 400], 'the free attempts are refused as bad states (RFC 6749 10.12)');
  t.equal(statuses[4], 429, 'then the network is locked');
  t.match(String(retryAfter), /^\d+$/, 'with Retry-After');
});
