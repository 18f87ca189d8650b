// Client authentication with JWTs (RFC 7523 2.2 and 3, OIDC Core 9): private_key_jwt with registered keys or a
// jwks_uri, client_secret_jwt with a sealed secret, at the token, introspection and revocation endpoints.
import t, { type Test } from 'tap';
import { buildTestApp, CONFIDENTIAL, FIXTURES } from '../../helpers/app.js';
import { assertion, assertionFields, clientKey, jwksOf, servedJwks } from '../../helpers/client-keys.js';
import { basicAuth, tokenRequest } from '../../helpers/flow.js';
import { KEYS_SECRET } from '../../helpers/account.js';
import { postRegistration, REGISTRATION_ENV, type ClientInformation } from '../../helpers/registration.js';

const ISSUER = 'http://localhost:3000/sso';
const SERVICE = { client_id: 'service', grant_types: ['client_credentials'], scope: 'reports' };
const HMAC_SECRET = 'a-client-secret-of-at-least-32-characters-0123';

async function setUp(t: Test, extra: Record<string, unknown>[] = [], env: Record<string, string> = {}) {
  const key = await clientKey('ES256');
  const seed = {
    ...FIXTURES,
    clients: [
      ...FIXTURES.clients,
      { ...SERVICE, token_endpoint_auth_method: 'private_key_jwt' as const, jwks: jwksOf(key) },
      { ...SERVICE, client_id: 'hmac', token_endpoint_auth_method: 'client_secret_jwt' as const, client_secret: HMAC_SECRET },
      ...extra,
    ],
  };
  const test = await buildTestApp(t, { seed: seed as never, env });
  const grant = (jwt: string, more: Record<string, string> = {}) =>
    tokenRequest(test.app, { grant_type: 'client_credentials', ...assertionFields(jwt), ...more }, '');
  return { ...test, key, grant };
}

t.test('RFC 7523 2.2 / OIDC Core 9 private_key_jwt: a signed assertion authenticates, and each of its rules is held', async (t) => {
  const { app, key, grant } = await setUp(t);
  const ok = await grant(await assertion('service', ISSUER, key));
  t.equal(ok.statusCode, 200, ok.body);
  t.equal(ok.json().scope, 'reports');
  t.equal(
    (await grant(await assertion('service', `${ISSUER}/token`, key), { client_id: 'service' })).statusCode,
    200,
    'RFC 7523 3 (3): the token endpoint URL as audience, client_id alongside',
  );

  const refusals: Array<[string, Promise<string>, Record<string, string>?]> = [
    ['RFC 7523 3 (3): an audience that is not this server', assertion('service', 'https://other.example/sso', key)],
    ['RFC 7523 3 (4): no exp', assertion('service', ISSUER, key, { expiresIn: null })],
    ['RFC 7523 3 (4): expired', assertion('service', ISSUER, key, { expiresIn: -120 })],
    ['RFC 7523 3 (4): exp unreasonably far ahead (an hour)', assertion('service', ISSUER, key, { expiresIn: 3600 })],
    ['OIDC Core 9: no jti', assertion('service', ISSUER, key, { jti: null })],
    ['RFC 7523 3 (1): iss is not the client', assertion('service', ISSUER, key, { iss: 'app' })],
    ['RFC 7523 3 (2): sub names another client than client_id', assertion('service', ISSUER, key), { client_id: 'hmac' }],
    ['signed by a key the client did not register', clientKey('ES256', key.kid).then((other) => assertion('service', ISSUER, other))],
    ['an HMAC for a private_key_jwt client', assertion('service', ISSUER, { secret: HMAC_SECRET })],
    ['RFC 7518 3.6 alg none', Promise.resolve(unsigned('service'))],
  ];
  for (const [why, jwt, more] of refusals) {
    const res = await grant(await jwt, more);
    t.equal(res.statusCode, 401, why);
    t.equal(res.json().error, 'invalid_client', why);
  }

  // RFC 7523 3 (7): a jti already used is a replay.
  const once = await assertion('service', ISSUER, key);
  t.equal((await grant(once)).statusCode, 200);
  const replay = await grant(once);
  t.equal(replay.statusCode, 401, 'the same assertion a second time is refused');
  t.equal(replay.json().error, 'invalid_client');

  // RFC 6749 2.3: "MUST NOT use more than one authentication method in each request".
  const both = await tokenRequest(
    app,
    { grant_type: 'client_credentials', ...assertionFields(await assertion('service', ISSUER, key)) },
    basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret),
  );
  t.equal(both.json().error, 'invalid_request', 'an assertion and Basic together');
  // RFC 7521 4.2.1: a client_assertion_type not understood is invalid_client; one without the other invalid_request.
  const otherType = await tokenRequest(
    app,
    { grant_type: 'client_credentials', client_assertion_type: 'urn:example:saml', client_assertion: once },
    '',
  );
  t.equal(otherType.json().error, 'invalid_client');
  const alone = await tokenRequest(app, { grant_type: 'client_credentials', client_assertion: once }, '');
  t.equal(alone.json().error, 'invalid_request');
  const secretInstead = await tokenRequest(
    app,
    { grant_type: 'client_credentials', client_id: 'service', client_secret: 'a-guess-at-a-secret' },
    '',
  );
  t.equal(secretInstead.json().error, 'invalid_client', 'a private_key_jwt client holds no secret to send');
});

t.test(
  'OIDC Core 9 client_secret_jwt: an HMAC with the secret authenticates; the secret itself does not, and is sealed at rest',
  async (t) => {
    const { app, db, grant } = await setUp(t, [], KEYS_SECRET);
    const ok = await grant(await assertion('hmac', ISSUER, { secret: HMAC_SECRET }));
    t.equal(ok.statusCode, 200, ok.body);
    t.equal((await grant(await assertion('hmac', ISSUER, { secret: HMAC_SECRET, alg: 'HS512' }))).statusCode, 200, 'HS512 too');
    const wrong = await grant(await assertion('hmac', ISSUER, { secret: `${HMAC_SECRET}x` }));
    t.equal(wrong.json().error, 'invalid_client', 'an HMAC with another secret');
    const basic = await tokenRequest(app, { grant_type: 'client_credentials' }, basicAuth('hmac', HMAC_SECRET));
    t.equal(basic.statusCode, 401, 'the secret sent as it is, by a client registered for client_secret_jwt');
    t.equal(basic.json().error, 'invalid_client');
    const row = await db
      .selectFrom('clients')
      .select(['client_secret_sealed', 'client_secret_hash'])
      .where('client_id', '=', 'hmac')
      .executeTakeFirstOrThrow();
    t.match(
      row.client_secret_sealed,
      { v: 1, iv: String, tag: String, ciphertext: String },
      'sealed with AES-GCM under KEYS_ENCRYPTION_SECRET',
    );
    t.notOk(JSON.stringify(row).includes(HMAC_SECRET), 'the secret is not in the row');
  },
);

t.test('a jwks_uri is fetched once, fetched again for a key it lacks (rotation), and a down one is a temporary error', async (t) => {
  const first = await clientKey('PS256');
  const served = await servedJwks(t, jwksOf(first));
  const client = { ...SERVICE, client_id: 'rotating', token_endpoint_auth_method: 'private_key_jwt', jwks_uri: served.uri };
  const { advance, grant } = await setUp(t, [client]);
  const now = () => new Date(Date.now() + offset);
  let offset = 0;
  const move = (seconds: number) => {
    advance(seconds);
    offset += seconds * 1000;
  };
  for (let i = 0; i < 3; i += 1) t.equal((await grant(await assertion('rotating', ISSUER, first, { at: now() }))).statusCode, 200);
  t.equal(served.fetches(), 1, 'three assertions, one fetch: the set is remembered');

  // The client rotates to a new key: the first assertion naming it makes the provider fetch the set again.
  const second = await clientKey('ES256');
  served.set(jwksOf(second));
  move(31);
  t.equal((await grant(await assertion('rotating', ISSUER, second, { at: now() }))).statusCode, 200, 'the new key is fetched');
  t.equal(served.fetches(), 2);
  const madeUp = await clientKey('ES256');
  t.equal((await grant(await assertion('rotating', ISSUER, madeUp, { at: now() }))).json().error, 'invalid_client');
  t.equal((await grant(await assertion('rotating', ISSUER, madeUp, { at: now() }))).json().error, 'invalid_client');
  t.equal(served.fetches(), 2, 'unknown keys within the cooldown fetch nothing more');

  // Down past its lifetime: a temporary error (never "wrong credentials"), then by itself fine again.
  served.set('down');
  move(301);
  const down = await grant(await assertion('rotating', ISSUER, second, { at: now() }));
  t.equal(down.statusCode, 503);
  t.equal(down.json().error, 'temporarily_unavailable');
  served.set(jwksOf(second));
  t.equal((await grant(await assertion('rotating', ISSUER, second, { at: now() }))).statusCode, 503, 'the failure stands for the cooldown');
  move(31);
  t.equal((await grant(await assertion('rotating', ISSUER, second, { at: now() }))).statusCode, 200, 'and then it recovers');
});

t.test('RFC 7662 2.1 and RFC 7009 2.1: introspection and revocation take the client assertion too', async (t) => {
  const { app, key, grant } = await setUp(t);
  const token = (await grant(await assertion('service', ISSUER, key))).json().access_token as string;
  const post = async (path: string, form: Record<string, string>) =>
    app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(form).toString(),
    });
  const introspected = await post('/sso/introspect', { token, ...assertionFields(await assertion('service', ISSUER, key)) });
  t.equal(introspected.statusCode, 200);
  t.equal(introspected.json().active, true);
  t.equal(introspected.json().client_id, 'service');
  const revoked = await post('/sso/revoke', { token, ...assertionFields(await assertion('service', ISSUER, key)) });
  t.equal(revoked.statusCode, 200);
  const after = await post('/sso/introspect', { token, ...assertionFields(await assertion('service', ISSUER, key)) });
  t.equal(after.json().active, false, 'revoked');
  const forged = await post('/sso/introspect', { token, ...assertionFields(await assertion('service', 'https://elsewhere.example', key)) });
  t.equal(forged.statusCode, 401);
  t.equal(forged.json().error, 'invalid_client');
});

t.test(
  'RFC 7591 2: a client registers itself for private_key_jwt (keys, no secret) or client_secret_jwt (a secret), and authenticates so',
  async (t) => {
    const { app, db } = await setUp(t, [], { ...REGISTRATION_ENV, ...KEYS_SECRET });
    const key = await clientKey('EdDSA');
    const service = { grant_types: ['client_credentials'], scope: 'openid' };
    const withKeys = await postRegistration(app, { ...service, token_endpoint_auth_method: 'private_key_jwt', jwks: jwksOf(key) });
    t.equal(withKeys.statusCode, 201, withKeys.body);
    const keyed = withKeys.json() as ClientInformation;
    t.equal(keyed.client_secret, undefined, 'no secret is issued to a private_key_jwt client');
    t.equal(keyed.client_secret_expires_at, undefined);
    t.same(keyed.jwks, jwksOf(key), 'the keys are returned as registered');
    const byKey = await tokenRequest(
      app,
      { grant_type: 'client_credentials', ...assertionFields(await assertion(keyed.client_id, ISSUER, key)) },
      '',
    );
    t.equal(byKey.statusCode, 200, byKey.body);

    const withSecret = await postRegistration(app, {
      ...service,
      token_endpoint_auth_method: 'client_secret_jwt',
      token_endpoint_auth_signing_alg: 'HS256',
    });
    t.equal(withSecret.statusCode, 201, withSecret.body);
    const hmac = withSecret.json() as ClientInformation;
    t.type(hmac.client_secret, 'string');
    const bySecret = await tokenRequest(
      app,
      { grant_type: 'client_credentials', ...assertionFields(await assertion(hmac.client_id, ISSUER, { secret: hmac.client_secret! })) },
      '',
    );
    t.equal(bySecret.statusCode, 200, bySecret.body);
    const otherAlg = await tokenRequest(
      app,
      {
        grant_type: 'client_credentials',
        ...assertionFields(await assertion(hmac.client_id, ISSUER, { secret: hmac.client_secret!, alg: 'HS512' })),
      },
      '',
    );
    t.equal(otherAlg.json().error, 'invalid_client', 'OIDC Registration 2: only the registered token_endpoint_auth_signing_alg');
    const row = await db.selectFrom('clients').selectAll().where('client_id', '=', hmac.client_id).executeTakeFirstOrThrow();
    t.notOk(JSON.stringify(row).includes(hmac.client_secret!), 'the secret is neither in the clear nor recognisable at rest');
  },
);

function unsigned(clientId: string): string {
  const part = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${part({ alg: 'none' })}.${part({ iss: clientId, sub: clientId, aud: ISSUER, exp: now + 60, jti: 'x' })}.`;
}

// RFC 6749 10.10 (and 2.3.1): a credential must not be guessable by repeated requests; a client assertion is one, so
// its failures are counted by the throttle of wrong secrets, and the count is checked before the assertion is.
t.test(
  'failed client assertions lock the client like wrong secrets, and a locked one is refused before its keys are fetched',
  async (t) => {
    const key = await clientKey('ES256');
    const served = await servedJwks(t, jwksOf(key));
    const client = { ...SERVICE, client_id: 'fetching', token_endpoint_auth_method: 'private_key_jwt', jwks_uri: served.uri };
    const { advance, grant } = await setUp(t, [client], { SIGN_IN_IP_FREE_ATTEMPTS: '5', SIGN_IN_LOCK_BASE_SECONDS: '600' });
    t.equal((await grant(await assertion('fetching', ISSUER, key))).statusCode, 200, 'a right assertion is not held against the client');
    const forged = await clientKey('ES256', key.kid);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i += 1) statuses.push((await grant(await assertion('fetching', ISSUER, forged))).statusCode);
    t.same(statuses, [401, 401, 401, 401, 401, 429, 429], 'five failures, then refused without a signature check');
    // Past the refetch cooldown, a key the set lacks would make the provider fetch the jwks_uri again.
    advance(31);
    const at = new Date(Date.now() + 31_000);
    const fetches = served.fetches();
    const locked = await grant(await assertion('fetching', ISSUER, await clientKey('ES256'), { at }));
    t.equal(locked.statusCode, 429);
    t.equal(locked.json().error, 'temporarily_unavailable');
    t.ok(Number(locked.headers['retry-after']) > 0, 'Retry-After (RFC 6585 4)');
    t.equal(served.fetches(), fetches, 'an assertion naming a key never seen costs no jwks_uri fetch once locked');
    t.equal((await grant(await assertion('fetching', ISSUER, key, { at }))).statusCode, 429, 'nor does a right one get verified');
  },
);
