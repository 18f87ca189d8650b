// A flood of wrong client secrets at the token endpoint must not stop people from signing in (issue 16, finding 2).
import t from 'tap';
import { buildTestApp, ALICE, BOB, CONFIDENTIAL } from '../../helpers/app.js';
import { basicAuth, pkcePair, signIn, tokenRequest } from '../../helpers/flow.js';

function signInParams() {
  return {
    response_type: 'code',
    client_id: CONFIDENTIAL.client_id,
    redirect_uri: CONFIDENTIAL.redirect_uris[0],
    scope: 'openid',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
  };
}

// RFC 6749 10.10 and 2.3.1: client secrets are guessed at the token endpoint; the guessing must not take the work
// that user passwords need, and a sign-in refused as busy is no failed password.
t.test('60 wrong client secrets in flight do not stop 6 browser sign-ins, nor lock the accounts', async (t) => {
  const { app } = await buildTestApp(t);
  const flood = Array.from({ length: 60 }, () =>
    tokenRequest(app, { grant_type: 'client_credentials' }, basicAuth(CONFIDENTIAL.client_id, 'a-wrong-secret')),
  );
  const people = [ALICE, BOB, ALICE, BOB, ALICE, BOB];
  const signIns = people.map((user) =>
    signIn(app, signInParams(), { user }).then(
      (r) => r.location.searchParams.get('code') !== null,
      (err: Error) => err.message,
    ),
  );
  const [floodAnswers, signedIn] = await Promise.all([Promise.all(flood), Promise.all(signIns)]);
  t.same(
    signedIn,
    people.map(() => true),
    'all 6 sign-ins end with a code',
  );
  t.ok(
    floodAnswers.every((r) => [401, 429, 503].includes(r.statusCode)),
    'every wrong secret is refused',
  );
  t.ok(
    floodAnswers.every((r) => r.json().error !== undefined),
    'with an OAuth error body',
  );
  const again = await signIn(app, signInParams(), { user: ALICE });
  t.ok(again.location.searchParams.get('code'), 'the account is not locked afterwards');
});

// RFC 6749 10.10: failed client authentication is counted in the database and refused before hashing when over.
t.test('wrong secrets lock the client for secrets not yet verified; a secret verified before keeps working', async (t) => {
  const { app } = await buildTestApp(t, { env: { SIGN_IN_IP_FREE_ATTEMPTS: '5' } });
  const right = basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret);
  // Any answer but 401 and 429 means that the client authenticated (this client may not use the grant: 400).
  const authenticated = async () => ![401, 429].includes((await tokenRequest(app, { grant_type: 'client_credentials' }, right)).statusCode);
  t.ok(await authenticated(), 'the right secret is remembered');
  const wrong = basicAuth(CONFIDENTIAL.client_id, 'a-wrong-secret');
  const statuses: number[] = [];
  for (let i = 0; i < 7; i += 1) statuses.push((await tokenRequest(app, { grant_type: 'client_credentials' }, wrong)).statusCode);
  t.same(statuses, [401, 401, 401, 401, 401, 429, 429], 'five failures, then refused before any hashing');
  const refused = await tokenRequest(app, { grant_type: 'client_credentials' }, wrong);
  t.equal(refused.json().error, 'temporarily_unavailable');
  t.ok(Number(refused.headers['retry-after']) > 0, 'Retry-After (RFC 6585 4)');
  t.ok(await authenticated(), 'the remembered secret still works');
});
