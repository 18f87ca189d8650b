// Pushed authorization requests (RFC 9126): the PAR endpoint (2.1-2.3), the request_uri at /authorize (4), and
// require_pushed_authorization_requests per client and for the server (5, 6).
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import t, { type Test } from 'tap';
import { loggerOptions } from '../../../src/logger.js';
import { buildCountingApp } from '../../helpers/counting.js';
import { GRANT_FIXTURES, OFFLINE_SCOPE, REFRESHING, REFRESHING_BASIC } from '../../helpers/grants.js';
import { buildTestApp, CONFIDENTIAL, FIXTURES, PUBLIC } from '../../helpers/app.js';
import { assertion, assertionFields, clientKey, jwksOf } from '../../helpers/client-keys.js';
import { authorizePath, basicAuth, obtainCode, pkcePair, signIn, tokenRequest } from '../../helpers/flow.js';
import { sha256 } from '../../../src/domain/secrets.js';
import { dpopKey, dpopProof } from '../../helpers/dpop.js';

const ISSUER = 'http://localhost:3000/sso';
const REDIRECT = CONFIDENTIAL.redirect_uris[0]!;
const STRICT = {
  client_id: 'strict',
  client_secret: 'strict-secret-0123456789',
  redirect_uris: ['https://strict.example/cb'],
  require_pushed_authorization_requests: true,
};
const APP_AUTH = basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret);

function push(app: FastifyInstance, form: Record<string, string | undefined>, auth: string | undefined = APP_AUTH, dpop?: string) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) if (v !== undefined) body.append(k, v);
  return app.inject({
    method: 'POST',
    url: '/sso/par',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(auth ? { authorization: auth } : {}),
      ...(dpop ? { dpop } : {}),
    },
    payload: body.toString(),
  });
}

/** A valid authorization request of the confidential client, with one parameter changed at a time. */
function request(overrides: Record<string, string | undefined> = {}) {
  const { verifier, challenge } = pkcePair();
  const params = {
    response_type: 'code',
    client_id: CONFIDENTIAL.client_id,
    redirect_uri: REDIRECT,
    scope: 'openid profile',
    state: 'pushed-state',
    nonce: 'pushed-nonce',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...overrides,
  };
  return { params, verifier };
}

/** RFC 9126 2.3 / RFC 6749 5.2: a JSON error body, never a redirect. */
function assertJsonError(t: Test, res: LightMyRequestResponse, status: number, error: string, why = error) {
  t.equal(res.statusCode, status, `${why}: ${res.body}`);
  t.equal(res.headers.location, undefined, 'not redirected');
  t.match(res.headers['content-type'], /^application\/json/);
  t.equal(res.json().error, error, why);
}

/** Phase two of /authorize: 303 to the verified redirect URI with the error (RFC 6749 4.1.2.1). */
function assertErrorRedirect(t: Test, res: LightMyRequestResponse, error: string, redirectUri = REDIRECT): URL {
  t.equal(res.statusCode, 303, res.body.slice(0, 300));
  const location = new URL(String(res.headers.location));
  t.equal(`${location.origin}${location.pathname}`, redirectUri);
  t.equal(location.searchParams.get('error'), error);
  t.notOk(location.searchParams.has('code'));
  return location;
}

async function setUp(t: Test, env: Record<string, string> = {}) {
  const key = await clientKey('ES256');
  const keyed = {
    client_id: 'keyed',
    redirect_uris: ['https://keyed.example/cb'],
    token_endpoint_auth_method: 'private_key_jwt' as const,
    jwks: jwksOf(key),
  };
  const test = await buildTestApp(t, { seed: { ...FIXTURES, clients: [...FIXTURES.clients, STRICT, keyed] } as never, env });
  const get = (path: string) => test.app.inject({ method: 'GET', url: path });
  const pushedRows = async () =>
    (await test.db.selectFrom('pushed_authorization_requests').select(['request_uri_hash', 'params']).execute()).length;
  return { ...test, key, get, pushedRows };
}

t.test('RFC 9126 2.1, 2.2: an authenticated client pushes its request and gets a single-use request_uri', async (t) => {
  const { app, db } = await setUp(t);
  const { params } = request();
  const res = await push(app, { ...params, client_id: undefined, client_secret: undefined });
  t.equal(res.statusCode, 201, res.body);
  t.equal(res.headers['cache-control'], 'no-store');
  const body = res.json() as { request_uri: string; expires_in: number };
  t.match(body.request_uri, /^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/, 'RFC 9126 2.2: the urn with 256 random bits');
  t.equal(body.expires_in, 60, 'PAR_REQUEST_URI_TTL_SECONDS');

  // client_secret_post: the secret authenticates the push and is never part of the stored request.
  const post = await push(app, { ...params, client_secret: CONFIDENTIAL.client_secret }, '');
  t.equal(post.statusCode, 201, post.body);
  const rows = await db.selectFrom('pushed_authorization_requests').selectAll().execute();
  t.equal(rows.length, 2);
  t.ok(
    rows.some((r) => r.request_uri_hash === sha256(body.request_uri)),
    'the request_uri is stored as its SHA-256 digest',
  );
  t.notOk(JSON.stringify(rows).includes(body.request_uri.split(':').pop()!), 'the request_uri value itself is not stored');
  t.notOk(JSON.stringify(rows).includes(CONFIDENTIAL.client_secret), 'no client secret is stored');
  t.ok(
    rows.every((r) => r.params.client_id === CONFIDENTIAL.client_id),
    'client_id is the authenticated client, also when only Basic named it',
  );
});

t.test('RFC 9126 4: the pushed parameters are the request; those sent beside request_uri are ignored', async (t) => {
  const { app } = await setUp(t);
  const { params, verifier } = request({ state: 'from-the-push' });
  const pushed = (await push(app, params)).json() as { request_uri: string };
  const { location } = await signIn(app, {
    client_id: CONFIDENTIAL.client_id,
    request_uri: pushed.request_uri,
    state: 'from-the-query',
    redirect_uri: CONFIDENTIAL.redirect_uris[1],
    scope: 'openid email',
  });
  t.equal(`${location.origin}${location.pathname}`, REDIRECT, 'the pushed redirect_uri');
  t.equal(location.searchParams.get('state'), 'from-the-push', 'the pushed state');
  t.equal(location.searchParams.get('iss'), ISSUER);
  const tokens = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code: location.searchParams.get('code')!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
  });
  t.equal(tokens.statusCode, 200, tokens.body);
  t.equal(tokens.json().scope, 'openid profile', 'the pushed scope');
});

t.test('RFC 9126 4: a reused, expired or unknown request_uri, or one of another client, is invalid_request_uri', async (t) => {
  const { app, get, advance } = await setUp(t);
  const uri = async () => ((await push(app, request().params)).json() as { request_uri: string }).request_uri;

  // Reused: "Authorization servers SHOULD treat request_uri values as one-time use"; this one does.
  const once = await uri();
  const first = await get(authorizePath({ client_id: CONFIDENTIAL.client_id, request_uri: once }));
  t.equal(first.statusCode, 303);
  t.match(String(first.headers.location), new RegExp(`^${ISSUER}/interaction/`), 'the first use goes on to sign-in');
  const reused = await get(authorizePath({ client_id: CONFIDENTIAL.client_id, request_uri: once, redirect_uri: REDIRECT }));
  t.match(assertErrorRedirect(t, reused, 'invalid_request_uri').searchParams.get('error_description'), /already used/);
  // Without a redirect_uri in the query (two are registered), the error is shown, never redirected.
  const shown = await get(authorizePath({ client_id: CONFIDENTIAL.client_id, request_uri: once }));
  t.equal(shown.statusCode, 400);
  t.equal(shown.headers.location, undefined);
  t.match(shown.body, /already used/);

  // Another client's: refused, and left for its own client (nobody else can use it up).
  const theirs = await uri();
  const stolen = await get(authorizePath({ client_id: PUBLIC.client_id, request_uri: theirs }));
  assertErrorRedirect(t, stolen, 'invalid_request_uri', PUBLIC.redirect_uris[0]);
  t.equal((await get(authorizePath({ client_id: CONFIDENTIAL.client_id, request_uri: theirs }))).statusCode, 303);

  // Expired: "An expired request_uri MUST be rejected as invalid."
  const stale = await uri();
  advance(61);
  assertErrorRedirect(
    t,
    await get(authorizePath({ client_id: CONFIDENTIAL.client_id, request_uri: stale, redirect_uri: REDIRECT })),
    'invalid_request_uri',
  );
  const unknown = `urn:ietf:params:oauth:request_uri:${'A'.repeat(43)}`;
  assertErrorRedirect(
    t,
    await get(authorizePath({ client_id: CONFIDENTIAL.client_id, request_uri: unknown, redirect_uri: REDIRECT })),
    'invalid_request_uri',
  );
});

t.test('a pushed request this version does not read is invalid_request_uri, used up, never a 500', async (t) => {
  const { app, db, get } = await setUp(t);
  const pushed = (await push(app, request({ v: '7' }).params)).json() as { request_uri: string };
  const stored = await db.selectFrom('pushed_authorization_requests').select('params').executeTakeFirstOrThrow();
  t.notOk('v' in stored.params, 'a parameter named v is not kept: at version 1 it would name a version');

  await db
    .updateTable('pushed_authorization_requests')
    .set({ params: JSON.stringify({ ...stored.params, v: 2 }) })
    .execute();
  const path = authorizePath({ client_id: CONFIDENTIAL.client_id, request_uri: pushed.request_uri, redirect_uri: REDIRECT });
  t.match(assertErrorRedirect(t, await get(path), 'invalid_request_uri').searchParams.get('error_description'), /cannot be read/);
  t.match(assertErrorRedirect(t, await get(path), 'invalid_request_uri').searchParams.get('error_description'), /already used/);
});

t.test('RFC 9126 2.1: client authentication as at the token endpoint: secrets, private_key_jwt, public clients', async (t) => {
  const { app, key } = await setUp(t);
  const wrong = await push(app, request().params, basicAuth(CONFIDENTIAL.client_id, 'not-the-secret'));
  assertJsonError(t, wrong, 401, 'invalid_client');
  const none = await push(app, request().params, '');
  assertJsonError(t, none, 401, 'invalid_client');

  const keyed = await push(
    app,
    {
      ...request({ client_id: 'keyed', redirect_uri: 'https://keyed.example/cb' }).params,
      ...assertionFields(await assertion('keyed', ISSUER, key)),
    },
    '',
  );
  t.equal(keyed.statusCode, 201, `private_key_jwt: ${keyed.body}`);

  const spa = await push(app, request({ client_id: PUBLIC.client_id, redirect_uri: PUBLIC.redirect_uris[0] }).params, '');
  t.equal(spa.statusCode, 201, `a public client with its client_id: ${spa.body}`);
});

t.test('RFC 9126 2.1, 2.3: the push is validated as /authorize would; errors are JSON, nothing is stored', async (t) => {
  const { app, pushedRows } = await setUp(t);
  const refusals: Array<[string, Record<string, string | undefined>, string]> = [
    ['RFC 9126 2.1: request_uri "MUST NOT be provided"', { request_uri: 'urn:ietf:params:oauth:request_uri:x' }, 'invalid_request'],
    ['RFC 6749 3.1.2.3: an unregistered redirect_uri', { redirect_uri: 'https://evil.example/cb' }, 'invalid_request'],
    ['RFC 6749 4.1.2.1: response_type token', { response_type: 'token' }, 'unsupported_response_type'],
    ['RFC 6749 3.3: no known scope', { scope: 'nothing-known' }, 'invalid_scope'],
    ['RFC 7636 4.3: code_challenge_method plain', { code_challenge_method: 'plain' }, 'invalid_request'],
  ];
  for (const [why, change, error] of refusals) assertJsonError(t, await push(app, request(change).params), 400, error, why);
  const spa = await push(
    app,
    request({
      client_id: PUBLIC.client_id,
      redirect_uri: PUBLIC.redirect_uris[0],
      code_challenge: undefined,
      code_challenge_method: undefined,
    }).params,
    '',
  );
  assertJsonError(t, spa, 400, 'invalid_request');
  const repeated = await app.inject({
    method: 'POST',
    url: '/sso/par',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: APP_AUTH },
    payload: `${new URLSearchParams(request().params as Record<string, string>)}&scope=openid`,
  });
  assertJsonError(t, repeated, 400, 'invalid_request');
  t.equal(await pushedRows(), 0, 'no refused push was stored');
});

t.test('RFC 9126 6: a client registered with require_pushed_authorization_requests must push', async (t) => {
  const { app, get } = await setUp(t);
  const strict = request({ client_id: STRICT.client_id, redirect_uri: STRICT.redirect_uris[0] }).params;
  const direct = await get(authorizePath(strict));
  t.match(assertErrorRedirect(t, direct, 'invalid_request', STRICT.redirect_uris[0]).searchParams.get('error_description'), /pushed/);
  const pushed = (await push(app, strict, basicAuth(STRICT.client_id, STRICT.client_secret))).json() as { request_uri: string };
  const res = await get(authorizePath({ client_id: STRICT.client_id, request_uri: pushed.request_uri }));
  t.equal(res.statusCode, 303);
  t.match(String(res.headers.location), new RegExp(`^${ISSUER}/interaction/`));
  // Other clients are not held to it.
  t.match(String((await get(authorizePath(request().params))).headers.location), new RegExp(`^${ISSUER}/interaction/`));
});

t.test('RFC 9126 5: REQUIRE_PUSHED_AUTHORIZATION_REQUESTS holds every client to it, and discovery says so', async (t) => {
  const { app, get } = await setUp(t, { REQUIRE_PUSHED_AUTHORIZATION_REQUESTS: 'true' });
  const doc = (await app.inject({ method: 'GET', url: '/sso/.well-known/openid-configuration' })).json();
  t.equal(doc.require_pushed_authorization_requests, true);
  assertErrorRedirect(t, await get(authorizePath(request().params)), 'invalid_request');
  const pushed = (await push(app, request().params)).json() as { request_uri: string };
  t.equal((await get(authorizePath({ client_id: CONFIDENTIAL.client_id, request_uri: pushed.request_uri }))).statusCode, 303);
});

t.test('RFC 9126 2.3: too many pushes of one client is 429 with Retry-After, counted before anything is stored', async (t) => {
  const { app, pushedRows } = await setUp(t, { PAR_CLIENT_PER_MINUTE: '2' });
  t.equal((await push(app, request().params)).statusCode, 201);
  t.equal((await push(app, request().params)).statusCode, 201);
  const third = await push(app, request().params);
  assertJsonError(t, third, 429, 'temporarily_unavailable');
  t.ok(Number(third.headers['retry-after']) > 0, 'Retry-After');
  t.equal(await pushedRows(), 2);
});

t.test('RFC 9126 2.3: too many pushes from one network is 429 too, whichever client pushes', async (t) => {
  const { app, pushedRows } = await setUp(t, { PAR_IP_PER_MINUTE: '1', PAR_CLIENT_PER_MINUTE: '0' });
  t.equal((await push(app, request().params)).statusCode, 201);
  const other = await push(app, request({ client_id: PUBLIC.client_id, redirect_uri: PUBLIC.redirect_uris[0] }).params, '');
  assertJsonError(t, other, 429, 'temporarily_unavailable');
  t.equal(await pushedRows(), 1);
});

t.test(
  'no request_uri value or client secret reaches the log, also when refused: the request_uri is a bearer reference (RFC 9126 7.1)',
  async (t) => {
    const raw: string[] = [];
    const logger = pino(loggerOptions('info'), { write: (line: string) => void raw.push(line) });
    const { app } = await buildTestApp(t, { logger });
    const pushed = (await push(app, request().params)).json() as { request_uri: string };
    const reference = pushed.request_uri.split(':').pop()!;
    const get = (query: Record<string, string>) => app.inject({ method: 'GET', url: authorizePath(query) });
    t.equal((await get({ client_id: CONFIDENTIAL.client_id, request_uri: pushed.request_uri })).statusCode, 303);
    t.equal((await get({ client_id: CONFIDENTIAL.client_id, request_uri: pushed.request_uri, redirect_uri: REDIRECT })).statusCode, 303);
    t.equal((await push(app, request({ redirect_uri: 'https://evil.example/cb' }).params)).statusCode, 400);
    t.equal((await push(app, request().params, basicAuth(CONFIDENTIAL.client_id, 'wrong-secret-9c1f'))).statusCode, 401);
    const log = raw.join('');
    t.match(log, /"path":"\/sso\/par"/, 'the pushes were logged');
    t.notOk(log.includes(reference), 'no request_uri value');
    t.notOk(log.includes(CONFIDENTIAL.client_secret) || log.includes('wrong-secret-9c1f'), 'no client secret');
  },
);

t.test('RFC 9126 4 at /authorize with a live session costs one statement more than a plain request: the take', async (t) => {
  const { app, counter } = await buildCountingApp(t, GRANT_FIXTURES);
  const first = await obtainCode(app, { client_id: REFRESHING.client_id, redirect_uri: REFRESHING.redirect_uris[0], scope: OFFLINE_SCOPE });
  const params = request({ client_id: REFRESHING.client_id, redirect_uri: REFRESHING.redirect_uris[0], scope: OFFLINE_SCOPE }).params;
  const pushed = (await push(app, params, REFRESHING_BASIC)).json() as { request_uri: string };
  counter.count = 0;
  const res = await first.browser.request(app, 'GET', authorizePath({ client_id: REFRESHING.client_id, request_uri: pushed.request_uri }));
  t.equal(res.statusCode, 303);
  t.ok(new URL(String(res.headers.location)).searchParams.get('code'), 'the live session answered with a code');
  t.equal(counter.count, 2, 'the pushed request taken, then the code issued');
});

// RFC 9449 10.1: with PAR, "the DPoP key can be communicated in the PAR request" by dpop_jkt or by a DPoP proof in
// the push; "Both mechanisms MUST be supported by an authorization server that supports PAR and DPoP. If both
// mechanisms are used at the same time, the authorization server MUST reject the request if the JWK Thumbprint in
// dpop_jkt does not match the public key in the DPoP header."
t.test('RFC 9449 10.1: a DPoP proof sent with the push binds the code to its key, as dpop_jkt does', async (t) => {
  const { app, pushedRows } = await setUp(t);
  const key = await dpopKey();
  const other = await dpopKey();
  const parProof = (k = key, htu = `${ISSUER}/par`) => dpopProof(k, { htu });
  const tokenProof = (k = key) => dpopProof(k, { htu: `${ISSUER}/token` });
  const codeOf = async (requestUri: string) =>
    (await signIn(app, { client_id: CONFIDENTIAL.client_id, request_uri: requestUri })).location.searchParams.get('code')!;
  const redeem = async (pushed: Promise<LightMyRequestResponse>, verifier: string, proof?: string) => {
    const res = await pushed;
    t.equal(res.statusCode, 201, res.body);
    const code = await codeOf((res.json() as { request_uri: string }).request_uri);
    return app.inject({
      method: 'POST',
      url: '/sso/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: APP_AUTH, ...(proof ? { dpop: proof } : {}) },
      payload: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }).toString(),
    });
  };

  const byProof = request();
  const stolen = await redeem(push(app, byProof.params, APP_AUTH, await parProof()), byProof.verifier, await tokenProof(other));
  t.equal(stolen.json().error, 'invalid_grant', 'the code of a push with a proof needs a proof by that key');
  const again = request();
  const bound = await redeem(push(app, again.params, APP_AUTH, await parProof()), again.verifier, await tokenProof());
  t.equal(bound.statusCode, 200, bound.body);
  t.equal(bound.json().token_type, 'DPoP');

  const byBoth = request({ dpop_jkt: key.jkt });
  const both = await redeem(push(app, byBoth.params, APP_AUTH, await parProof()), byBoth.verifier, await tokenProof());
  t.equal(both.statusCode, 200, 'dpop_jkt and a proof by the same key');
  const byParameter = request({ dpop_jkt: key.jkt });
  const parameter = await redeem(push(app, byParameter.params), byParameter.verifier);
  t.equal(parameter.json().error, 'invalid_grant', 'dpop_jkt alone binds the pushed request too');

  const before = await pushedRows();
  assertJsonError(t, await push(app, request({ dpop_jkt: other.jkt }).params, APP_AUTH, await parProof()), 400, 'invalid_dpop_proof');
  assertJsonError(t, await push(app, request().params, APP_AUTH, await parProof(key, `${ISSUER}/token`)), 400, 'invalid_dpop_proof', 'htu');
  t.equal(await pushedRows(), before, 'nothing is stored for a refused push');
});
