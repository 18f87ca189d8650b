// Signed request objects (RFC 9101): in `request` at /authorize (5, 6.1, 6.3) and inside a pushed request (RFC 9126
// 3), verified with the client's registered keys; unsigned, mis-addressed or expired objects are invalid_request_object.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { SignJWT } from 'jose';
import t, { type Test } from 'tap';
import { buildTestApp, CONFIDENTIAL, FIXTURES } from '../../helpers/app.js';
import { assertion, assertionFields, clientKey, jwksOf, servedJwks, type ClientKey } from '../../helpers/client-keys.js';
import { authorizePath, pkcePair, signIn, tokenRequest } from '../../helpers/flow.js';
import { postRegistration, REGISTRATION_ENV } from '../../helpers/registration.js';

const ISSUER = 'http://localhost:3000/sso';
const KEYED_REDIRECT = 'https://keyed.example/cb';

interface ObjectOptions {
  /** Seconds from now; null leaves exp out. */
  expiresIn?: number | null;
  header?: Record<string, unknown>;
}

/** A request object of `clientId` signed with `key`: its authorization request as claims, iss and aud set. */
async function requestObject(clientId: string, key: ClientKey, claims: Record<string, unknown> = {}, options: ObjectOptions = {}) {
  const now = Math.floor(Date.now() / 1000);
  const payload: Record<string, unknown> = { iss: clientId, aud: ISSUER, iat: now, jti: randomUUID(), ...claims };
  if (options.expiresIn !== null) payload.exp = now + (options.expiresIn ?? 60);
  return new SignJWT(payload)
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'oauth-authz-req+jwt', ...options.header })
    .sign(key.privateKey);
}

/** RFC 7519 6.1: an unsecured JWT, as `alg: none` request objects are. */
function unsigned(claims: Record<string, unknown>): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part({ alg: 'none' })}.${part(claims)}.`;
}

/** The keyed client's authorization request, with one parameter changed at a time. */
function authorization(overrides: Record<string, unknown> = {}) {
  const { verifier, challenge } = pkcePair();
  const claims: Record<string, unknown> = {
    response_type: 'code',
    client_id: 'keyed',
    redirect_uri: KEYED_REDIRECT,
    scope: 'openid profile',
    state: 'object-state',
    nonce: 'object-nonce',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    max_age: 3600,
    ...overrides,
  };
  return { claims, verifier };
}

function assertErrorRedirect(t: Test, res: LightMyRequestResponse, error: string, why: string, redirectUri = KEYED_REDIRECT): URL {
  t.equal(res.statusCode, 303, `${why}: ${res.body.slice(0, 300)}`);
  const location = new URL(String(res.headers.location));
  t.equal(`${location.origin}${location.pathname}`, redirectUri, why);
  t.equal(location.searchParams.get('error'), error, why);
  t.notOk(location.searchParams.has('code'), why);
  return location;
}

async function setUp(t: Test, env: Record<string, string> = {}) {
  const key = await clientKey('ES256');
  const pinnedKey = await clientKey('ES256');
  const keyed = {
    client_id: 'keyed',
    redirect_uris: [KEYED_REDIRECT],
    token_endpoint_auth_method: 'private_key_jwt' as const,
    jwks: jwksOf(key),
  };
  // OIDC Registration 2 request_object_signing_alg: this client's objects must be PS256.
  const pinned = {
    ...keyed,
    client_id: 'pinned',
    redirect_uris: ['https://pinned.example/cb'],
    jwks: jwksOf(pinnedKey),
    request_object_signing_alg: 'PS256',
  };
  const test = await buildTestApp(t, { seed: { ...FIXTURES, clients: [...FIXTURES.clients, keyed, pinned] } as never, env });
  const get = (path: string) => test.app.inject({ method: 'GET', url: path });
  return { ...test, key, pinnedKey, get };
}

function push(app: FastifyInstance, form: Record<string, string>) {
  return app.inject({
    method: 'POST',
    url: '/sso/par',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(form).toString(),
  });
}

t.test('RFC 9101 6.3: the signed request object is the request; the query parameters beside it are not used', async (t) => {
  const { app, key } = await setUp(t);
  const { claims, verifier } = authorization();
  const jwt = await requestObject('keyed', key, claims);
  const { location } = await signIn(app, {
    client_id: 'keyed',
    request: jwt,
    state: 'query-state',
    scope: 'openid email',
    response_type: 'token',
  });
  t.equal(`${location.origin}${location.pathname}`, KEYED_REDIRECT);
  t.equal(location.searchParams.get('state'), 'object-state', "the object's state");
  const tokens = await tokenRequest(
    app,
    {
      grant_type: 'authorization_code',
      code: location.searchParams.get('code')!,
      redirect_uri: KEYED_REDIRECT,
      code_verifier: verifier,
      ...assertionFields(await assertion('keyed', ISSUER, key)),
    },
    '',
  );
  t.equal(tokens.statusCode, 200, tokens.body);
  t.equal(tokens.json().scope, 'openid profile', "the object's scope");
});

t.test(
  'RFC 9101 4, 6.3: a request object that is unsigned, mis-addressed, expired or not the client’s is invalid_request_object',
  async (t) => {
    const { get, key, pinnedKey } = await setUp(t);
    const { claims } = authorization();
    const otherKey = await clientKey('ES256', key.kid);
    const exp = Math.floor(Date.now() / 1000) + 60;
    const refusals: Array<[string, Promise<string> | string, RegExp]> = [
      ['RFC 9101 6.3 / issue 18: unsigned (alg none)', unsigned({ ...claims, iss: 'keyed', aud: ISSUER, exp }), /alg none/],
      ['RFC 9101 4: aud is not this issuer', requestObject('keyed', key, { ...claims, aud: 'https://other.example/sso' }), /aud/],
      [
        'RFC 9101 4: aud is the authorization endpoint, not the issuer',
        requestObject('keyed', key, { ...claims, aud: `${ISSUER}/authorize` }),
        /aud/,
      ],
      ['RFC 7519 4.1.4: expired', requestObject('keyed', key, claims, { expiresIn: -120 }), /exp in the past/],
      ['without exp (required here, as in FAPI 2.0)', requestObject('keyed', key, claims, { expiresIn: null }), /exp missing/],
      ['exp unreasonably far ahead (two hours)', requestObject('keyed', key, claims, { expiresIn: 7200 }), /too long/],
      ['RFC 9101 4: iss is another client', requestObject('keyed', key, { ...claims, iss: 'pinned' }), /iss/],
      [
        'RFC 9101 6.3: client_id in the object differs from the query',
        requestObject('keyed', key, { ...claims, client_id: 'pinned' }),
        /client_id/,
      ],
      ['signed by a key the client did not register', requestObject('keyed', otherKey, claims), /SIGNATURE/],
      ['RFC 9101 4: a request_uri inside the object', requestObject('keyed', key, { ...claims, request_uri: 'urn:x' }), /must not contain/],
      ['RFC 9101 10.8: a typ of another kind of JWT', requestObject('keyed', key, claims, { header: { typ: 'at+jwt' } }), /typ/],
      ['RFC 9101 4: an encrypted (JWE) object', 'eyJhbGciOiJSU0EtT0FFUCJ9.a.b.c.d', /encrypted/],
      ['not a JWT at all', 'not-a-jwt', /not a JWT/],
    ];
    for (const [why, jwt, reason] of refusals) {
      const res = await get(authorizePath({ client_id: 'keyed', request: await jwt, redirect_uri: KEYED_REDIRECT, state: 'outer' }));
      const location = assertErrorRedirect(t, res, 'invalid_request_object', why);
      t.match(location.searchParams.get('error_description'), reason, `${why}: refused for that reason`);
      t.equal(location.searchParams.get('state'), 'outer', `${why}: the state of the query, the only one there is`);
    }

    // OIDC Registration 2 request_object_signing_alg: "MUST be rejected, if not signed with this algorithm".
    const pinned = await requestObject('pinned', pinnedKey, { ...claims, client_id: 'pinned', redirect_uri: 'https://pinned.example/cb' });
    assertErrorRedirect(
      t,
      await get(authorizePath({ client_id: 'pinned', request: pinned, redirect_uri: 'https://pinned.example/cb' })),
      'invalid_request_object',
      'ES256 for a client pinned to PS256',
      'https://pinned.example/cb',
    );
    // A client without registered keys has nothing to verify an object with.
    const keyless = await requestObject(CONFIDENTIAL.client_id, key, { ...claims, client_id: CONFIDENTIAL.client_id });
    assertErrorRedirect(
      t,
      await get(authorizePath({ client_id: CONFIDENTIAL.client_id, request: keyless, redirect_uri: CONFIDENTIAL.redirect_uris[0] })),
      'invalid_request_object',
      'a client with no jwks',
      CONFIDENTIAL.redirect_uris[0],
    );
    // Without a verified redirect URI in the query (the object's cannot be trusted), the refusal is shown, not sent.
    const shown = await get(authorizePath({ client_id: CONFIDENTIAL.client_id, request: keyless }));
    t.equal(shown.statusCode, 400);
    t.equal(shown.headers.location, undefined);
    t.match(shown.body, /no keys/);
  },
);

t.test('RFC 9101 5: request and request_uri together are invalid_request', async (t) => {
  const { get, key } = await setUp(t);
  const jwt = await requestObject('keyed', key, authorization().claims);
  const res = await get(
    authorizePath({ client_id: 'keyed', request: jwt, request_uri: 'urn:ietf:params:oauth:request_uri:x', redirect_uri: KEYED_REDIRECT }),
  );
  assertErrorRedirect(t, res, 'invalid_request', 'both');
});

t.test('RFC 9101 5.2, RFC 9126 4: a request_uri the server did not issue is request_uri_not_supported', async (t) => {
  const { get } = await setUp(t);
  const res = await get(
    authorizePath({ client_id: 'keyed', request_uri: 'https://keyed.example/request.jwt', redirect_uri: KEYED_REDIRECT }),
  );
  assertErrorRedirect(t, res, 'request_uri_not_supported', 'an https request_uri is never fetched');
});

t.test('RFC 9126 3: a request object pushed to the PAR endpoint; an unsigned or mis-addressed one is refused there', async (t) => {
  const { app, get, key } = await setUp(t);
  const auth = async () => assertionFields(await assertion('keyed', ISSUER, key));
  const pushed = await push(app, {
    client_id: 'keyed',
    request: await requestObject('keyed', key, authorization().claims),
    ...(await auth()),
  });
  t.equal(pushed.statusCode, 201, pushed.body);
  const res = await get(authorizePath({ client_id: 'keyed', request_uri: (pushed.json() as { request_uri: string }).request_uri }));
  t.equal(res.statusCode, 303);
  t.match(String(res.headers.location), new RegExp(`^${ISSUER}/interaction/`));

  const refusals: Array<[string, string]> = [
    ['unsigned', unsigned({ ...authorization().claims, iss: 'keyed', aud: ISSUER, exp: Math.floor(Date.now() / 1000) + 60 })],
    ['wrong aud', await requestObject('keyed', key, { ...authorization().claims, aud: 'https://other.example' })],
    ['expired', await requestObject('keyed', key, authorization().claims, { expiresIn: -120 })],
  ];
  for (const [why, jwt] of refusals) {
    const refused = await push(app, { client_id: 'keyed', request: jwt, ...(await auth()) });
    t.equal(refused.statusCode, 400, why);
    t.equal(refused.headers.location, undefined, why);
    t.equal(refused.json().error, 'invalid_request_object', why);
  }
  // RFC 9126 3: the object must be the authenticated client's.
  const other = await push(app, {
    client_id: 'keyed',
    request: await requestObject('keyed', key, { ...authorization().claims, client_id: 'pinned' }),
    ...(await auth()),
  });
  t.equal(other.json().error, 'invalid_request_object', "another client's object");
});

t.test('RFC 9101 6.3: keys behind a jwks_uri are fetched through the guarded fetch, once', async (t) => {
  const key = await clientKey('PS256');
  const jwks = await servedJwks(t, jwksOf(key));
  const served = {
    client_id: 'served',
    redirect_uris: ['https://served.example/cb'],
    token_endpoint_auth_method: 'private_key_jwt' as const,
    jwks_uri: jwks.uri,
  };
  const { app } = await buildTestApp(t, { seed: { ...FIXTURES, clients: [...FIXTURES.clients, served] } as never });
  for (const state of ['one', 'two']) {
    const jwt = await requestObject('served', key, {
      ...authorization().claims,
      client_id: 'served',
      redirect_uri: 'https://served.example/cb',
      state,
    });
    const res = await app.inject({ method: 'GET', url: authorizePath({ client_id: 'served', request: jwt }) });
    t.equal(res.statusCode, 303, res.body);
    t.match(String(res.headers.location), new RegExp(`^${ISSUER}/interaction/`));
  }
  t.equal(jwks.fetches(), 1, 'the key set was read once and remembered');
});

t.test(
  'OIDC Registration 2, RFC 9126 6: registration takes request_object_signing_alg and require_pushed_authorization_requests',
  async (t) => {
    const { app } = await buildTestApp(t, { env: REGISTRATION_ENV });
    const base = { redirect_uris: ['https://registered.example/cb'], client_name: 'Registered' };
    const ok = await postRegistration(app, { ...base, request_object_signing_alg: 'ES256', require_pushed_authorization_requests: true });
    t.equal(ok.statusCode, 201, ok.body);
    t.equal(ok.json().request_object_signing_alg, 'ES256');
    t.equal(ok.json().require_pushed_authorization_requests, true);
    for (const [field, value] of [
      ['request_object_signing_alg', 'none'],
      ['request_object_signing_alg', 'HS256'],
      ['require_pushed_authorization_requests', 'yes'],
    ] as const) {
      const refused = await postRegistration(app, { ...base, [field]: value });
      t.equal(refused.statusCode, 400, `${field}: ${value}`);
      t.equal(refused.json().error, 'invalid_client_metadata', `${field}: ${value}`);
    }
  },
);
