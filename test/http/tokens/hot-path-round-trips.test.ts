// The hot paths cost one database statement once the client is remembered (docs/benchmarks.md, "Clients in memory,
// confirmed by revision"): a code from a live session, its exchange, a refresh. The one retry of a stale client
// (withCurrentClient) must not add a look at the client to any of them.
import t from 'tap';
import { buildCountingApp } from '../../helpers/counting.js';
import { GRANT_FIXTURES, OFFLINE_SCOPE, REFRESHING, REFRESHING_BASIC, refreshRequest } from '../../helpers/grants.js';
import { authorizePath, obtainCode, pkcePair, tokenRequest } from '../../helpers/flow.js';

const { app, counter } = await buildCountingApp(t, GRANT_FIXTURES);

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
  const authorized = await first.browser.request(
    app,
    'GET',
    authorizePath({
      response_type: 'code',
      client_id: REFRESHING.client_id,
      redirect_uri: REFRESHING.redirect_uris[0],
      scope: OFFLINE_SCOPE,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's',
    }),
  );
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
