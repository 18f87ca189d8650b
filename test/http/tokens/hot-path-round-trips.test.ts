// The hot paths cost one database statement once the client is remembered (docs/benchmarks-history.md, "Clients in memory,
// confirmed by revision"): a code from a live session, its exchange, a refresh. The one retry of a stale client
// (withCurrentClient) must not add a look at the client to any of them.
import t from 'tap';
import { buildCountingApp } from '../../helpers/counting.js';
import { GRANT_FIXTURES, OFFLINE_SCOPE, REFRESHING, REFRESHING_BASIC, refreshRequest } from '../../helpers/grants.js';
import { authorizePath, formAction, hiddenField, localPath, obtainCode, pkcePair, signIn, tokenRequest } from '../../helpers/flow.js';
import { ALICE } from '../../helpers/app.js';

/** A client that requires a second factor (require_mfa): its code from a live session is one statement too. */
const STRICT = {
  client_id: 'strict',
  client_secret: 'strict-secret-0123456789',
  redirect_uris: ['https://strict.example/cb'],
  require_mfa: true,
};
/** An authorization request of the refreshing client, with PKCE (RFC 7636 4.3). */
const codeRequest = (scope: string, challenge: string) => ({
  response_type: 'code',
  client_id: REFRESHING.client_id,
  redirect_uri: REFRESHING.redirect_uris[0],
  scope,
  code_challenge: challenge,
  code_challenge_method: 'S256',
  state: 's',
});
const { app, counter, db } = await buildCountingApp(t, { ...GRANT_FIXTURES, clients: [...GRANT_FIXTURES.clients!, STRICT] });

t.test('a code from a live session, its exchange and a refresh each cost one statement', async (t) => {
  // Signs in, consents and redeems once: the client and its secret are now remembered.
  const first = await obtainCode(app, { client_id: REFRESHING.client_id, redirect_uri: REFRESHING.redirect_uris[0], scope: OFFLINE_SCOPE });
  const redeem = (code: string, verifier: string) =>
    tokenRequest(
      app,
      { grant_type: 'authorization_code', code, redirect_uri: first.redirectUri, code_verifier: verifier },
      REFRESHING_BASIC,
    );
  t.equal((await redeem(first.code, first.verifier)).statusCode, 200);

  const { verifier, challenge } = pkcePair();
  counter.count = 0;
  const authorized = await first.browser.request(app, 'GET', authorizePath(codeRequest(OFFLINE_SCOPE, challenge)));
  t.equal(authorized.statusCode, 303);
  const code = new URL(String(authorized.headers.location)).searchParams.get('code');
  t.ok(code, 'the live session answered with a code');
  t.equal(counter.count, 1, 'authorize with a session: one statement');

  counter.count = 0;
  const exchanged = await redeem(code!, verifier);
  t.equal(exchanged.statusCode, 200);
  t.equal(counter.count, 1, 'code exchange: one statement');

  counter.count = 0;
  const refreshed = await refreshRequest(app, (exchanged.json() as { refresh_token: string }).refresh_token);
  t.equal(refreshed.statusCode, 200);
  t.equal(counter.count, 1, 'refresh: one statement');
});

t.test('a code for a client that requires a second factor, from a session that had one, is one statement too', async (t) => {
  const { browser } = await obtainCode(app, {
    client_id: REFRESHING.client_id,
    redirect_uri: REFRESHING.redirect_uris[0],
    scope: 'openid',
  });
  // The session as a sign-in with a second factor leaves it (RFC 8176 amr; test/http/authorization/require-mfa.test.ts
  // goes through the code page itself): what the authorize statement checks for this client.
  await db
    .updateTable('sessions')
    .set({ amr: ['pwd', 'otp', 'mfa'] })
    .execute();
  const params = {
    response_type: 'code',
    client_id: STRICT.client_id,
    redirect_uri: STRICT.redirect_uris[0],
    scope: 'openid',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    state: 's',
  };
  // The first time, the consent page.
  const consented = await signIn(app, params, { browser });
  t.ok(consented.location.searchParams.get('code'));

  counter.count = 0;
  const authorized = await browser.request(app, 'GET', authorizePath(params));
  t.equal(authorized.statusCode, 303);
  t.ok(new URL(String(authorized.headers.location)).searchParams.get('code'), 'the live session with mfa answered with a code');
  t.equal(counter.count, 1, 'authorize with a session, for a client that requires a second factor: one statement');
});

t.test('a sign-in by a user who consented before completes the interaction and issues its code in one statement', async (t) => {
  const { browser } = await obtainCode(app, {
    client_id: REFRESHING.client_id,
    redirect_uri: REFRESHING.redirect_uris[0],
    scope: 'openid',
  });
  // OIDC Core 3.1.2.1 prompt=login: the live session is not enough, the sign-in page is shown again.
  const page = await browser.request(app, 'GET', authorizePath({ ...codeRequest('openid', pkcePair().challenge), prompt: 'login' }));
  const form = page.statusCode === 303 ? await browser.request(app, 'GET', localPath(String(page.headers.location))) : page;
  t.equal(form.statusCode, 200);
  t.match(form.body, 'type="password"');
  counter.count = 0;
  const signedIn = await browser.request(app, 'POST', formAction(form.body), {
    csrf: hiddenField(form.body, 'csrf'),
    login: ALICE.username,
    password: ALICE.password,
  });
  t.equal(signedIn.statusCode, 303);
  t.ok(new URL(String(signedIn.headers.location)).searchParams.get('code'), 'back to the client with a code, no consent page');
  // Before the password: the interaction, the risk statement, the throttle's counter; after it: the device (with the
  // attempt marked), the throttle, the session the new sign-in replaces ended, the new session, their security
  // events; then the one statement that finds the consent, completes the interaction and issues the code. The last
  // step was a read of the consent and a transaction of two writes, the attempt a statement of its own (15 counted
  // here before, and a begin and a commit).
  t.equal(counter.count, 12, 'statements of the sign-in form');
});
