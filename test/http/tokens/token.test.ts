// The token endpoint over HTTP (RFC 6749 3.2, 4.1.3, 5.1, 5.2; RFC 7636 4.6; RFC 9700 2.1.1; OIDC Core 3.1.3).
import { createHash } from 'node:crypto';
import { storedKey } from '../../../src/domain/secrets.js';
import type { LightMyRequestResponse } from 'fastify';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import t, { type Test } from 'tap';
import { buildTestApp, CONFIDENTIAL, FIXTURES, PUBLIC, SINGLE_REDIRECT } from '../../helpers/app.js';
import { basicAuth, obtainCode, pkcePair, tokenRequest } from '../../helpers/flow.js';

/** A confidential client that may not use the authorization code grant. */
const NO_CODE_GRANT = {
  client_id: 'machine',
  client_secret: 'machine-secret-0123456789',
  redirect_uris: ['https://machine.example/cb'],
  grant_types: ['client_credentials'],
};

const { app, db, config, advance } = await buildTestApp(t, {
  seed: { clients: [...FIXTURES.clients, NO_CODE_GRANT], users: FIXTURES.users },
});

const CONFIDENTIAL_BASIC = basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret);
const SINGLE_BASIC = basicAuth(SINGLE_REDIRECT.client_id, SINGLE_REDIRECT.client_secret);
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
/** Omits the Authorization header in tokenRequest (its default is CONFIDENTIAL's Basic credentials). */
const NO_AUTH = '';

/** A token request with a body written by hand (repeated parameters, raw bytes, other media types). */
function rawTokenRequest(payload: string, headers: Record<string, string> = FORM, auth: string | undefined = CONFIDENTIAL_BASIC) {
  return app.inject({ method: 'POST', url: '/sso/token', headers: { ...headers, ...(auth ? { authorization: auth } : {}) }, payload });
}

/** A fresh code for CONFIDENTIAL, redeemed correctly. */
async function redeemFreshCode() {
  const grant = await obtainCode(app);
  const res = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.verifier,
  });
  return { grant, res };
}

/**
 * RFC 6749 5.2: a JSON object with `error` (and here always `error_description`), never cached;
 * it must never echo a secret or a code back.
 */
function assertOAuthError(
  t: Test,
  res: LightMyRequestResponse,
  expected: { status: number; error: string; mentions?: RegExp; secrets?: readonly string[] },
): void {
  t.equal(res.statusCode, expected.status, `HTTP ${expected.status}: ${res.body}`);
  t.match(res.headers['content-type'], /^application\/json/, 'the error is JSON');
  t.equal(res.headers['cache-control'], 'no-store', 'the error is not cached');
  const body = res.json() as Record<string, unknown>;
  t.same(Object.keys(body).sort(), ['error', 'error_description'], 'the body holds error and error_description only');
  t.equal(body.error, expected.error);
  t.match(body.error_description, /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/, 'error_description is safe ASCII (RFC 6749 5.2)');
  if (expected.mentions) t.match(body.error_description, expected.mentions);
  for (const secret of [CONFIDENTIAL.client_secret, SINGLE_REDIRECT.client_secret, ...(expected.secrets ?? [])]) {
    t.notOk(res.body.includes(secret), 'the error does not echo a secret or a code');
  }
}

function assertInvalidGrant(t: Test, res: LightMyRequestResponse, code: string, mentions?: RegExp): void {
  assertOAuthError(t, res, { status: 400, error: 'invalid_grant', secrets: [code], mentions });
}

function assertInvalidClient(t: Test, res: LightMyRequestResponse, secrets: readonly string[] = []): void {
  assertOAuthError(t, res, { status: 401, error: 'invalid_client', secrets });
  // RFC 6749 5.2: a 401 invalid_client "MUST include the WWW-Authenticate response header field".
  t.match(res.headers['www-authenticate'], /^Basic /, 'WWW-Authenticate names the Basic scheme');
}

function userinfo(accessToken: string) {
  return app.inject({ method: 'GET', url: '/sso/userinfo', headers: { authorization: `Bearer ${accessToken}` } });
}

t.test('RFC 6749 5.1: a valid code is exchanged for a Bearer access token and an ID token, never cached', async (t) => {
  const { grant, res } = await redeemFreshCode();
  t.equal(res.statusCode, 200, res.body);
  t.match(res.headers['content-type'], /^application\/json/);
  t.equal(res.headers['cache-control'], 'no-store');
  t.equal(res.headers.pragma, 'no-cache');
  const body = res.json();
  t.same(Object.keys(body).sort(), ['access_token', 'expires_in', 'id_token', 'scope', 'token_type']);
  t.type(body.access_token, 'string');
  t.ok(body.access_token.length >= 22, 'the access token carries at least 128 bits');
  t.equal(body.token_type, 'Bearer');
  t.equal(body.expires_in, config.accessTokenTtlSeconds);
  t.equal(body.scope, 'openid profile email');
  t.type(body.id_token, 'string');
  t.notOk(res.body.includes(grant.code), 'the response does not echo the code');
});

t.test(
  'OIDC Core 3.1.3.7: the ID token verifies with the published JWKS and carries iss, aud, sub, nonce, auth_time and at_hash',
  async (t) => {
    const before = Math.floor(Date.now() / 1000);
    const { grant, res } = await redeemFreshCode();
    t.equal(res.statusCode, 200, res.body);
    const { access_token: accessToken, id_token: idToken } = res.json();

    const jwksRes = await app.inject({ method: 'GET', url: '/sso/jwks' });
    t.equal(jwksRes.statusCode, 200);
    const jwks = jwksRes.json() as JSONWebKeySet;
    const { payload, protectedHeader } = await jwtVerify(idToken, createLocalJWKSet(jwks), {
      issuer: config.issuer,
      audience: CONFIDENTIAL.client_id,
      algorithms: ['RS256'],
    });

    t.equal(protectedHeader.alg, 'RS256');
    t.type(protectedHeader.kid, 'string');
    t.ok(
      jwks.keys.some((k) => k.kid === protectedHeader.kid),
      'the kid names a key of the JWKS',
    );
    t.equal(decodeProtectedHeader(idToken).kid, protectedHeader.kid);

    t.equal(payload.iss, config.issuer);
    t.equal(payload.aud, CONFIDENTIAL.client_id);
    const alice = await db.selectFrom('users').select('id').where('username', '=', 'alice').executeTakeFirstOrThrow();
    t.equal(payload.sub, alice.id, 'sub is the stable user id');
    t.not(payload.sub, 'alice', 'sub is not the username');
    t.equal(payload.nonce, grant.nonce, 'OIDC Core 3.1.3.6: the nonce of the authorization request');
    t.type(payload.auth_time, 'number');
    t.ok((payload.auth_time as number) >= before - 1 && (payload.auth_time as number) <= payload.iat!, 'auth_time is the sign-in time');
    t.type(payload.exp, 'number');
    t.ok(payload.exp! > payload.iat!, 'exp is after iat');

    // OIDC Core 3.1.3.6: at_hash is the base64url of the left-most half of SHA-256(access_token).
    const expectedAtHash = createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');
    t.equal(payload.at_hash, expectedAtHash);
  },
);

t.test('OIDC Core 3.1.3.3: a code granted without the openid scope yields an access token but no ID token', async (t) => {
  const grant = await obtainCode(app, { scope: 'profile' });
  const res = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.verifier,
  });
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.json().scope, 'profile');
  t.notOk('id_token' in res.json(), 'no id_token without openid');
});

// ---- client authentication (RFC 6749 2.3) ----

t.test(
  "RFC 6749 2.3.1: Basic credentials whose secret holds ':', '+', '%' and spaces, form-url-encoded, authenticate the client",
  async (t) => {
    t.match(CONFIDENTIAL.client_secret, /:.*\+.*%.* /, 'the fixture secret holds the awkward characters');
    const decoded = Buffer.from(CONFIDENTIAL_BASIC.slice('Basic '.length), 'base64').toString('utf8');
    t.match(decoded, /%3A/, 'the colon in the secret is percent-encoded');
    const { res } = await redeemFreshCode();
    t.equal(res.statusCode, 200, res.body);
  },
);

t.test('RFC 6749 2.3.1: client_secret_post (id and secret in the form body) authenticates the client', async (t) => {
  const grant = await obtainCode(app);
  const res = await tokenRequest(
    app,
    {
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: grant.redirectUri,
      code_verifier: grant.verifier,
      client_id: CONFIDENTIAL.client_id,
      client_secret: CONFIDENTIAL.client_secret,
    },
    NO_AUTH,
  );
  t.equal(res.statusCode, 200, res.body);
  t.type(res.json().access_token, 'string');
});

t.test('RFC 6749 5.2: a wrong client secret is refused with 401 invalid_client and a Basic challenge', async (t) => {
  const grant = await obtainCode(app);
  const form = { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri, code_verifier: grant.verifier };
  const wrong = `${CONFIDENTIAL.client_secret}x`;
  assertInvalidClient(t, await tokenRequest(app, form, basicAuth(CONFIDENTIAL.client_id, wrong)), [wrong, grant.code]);
  assertInvalidClient(t, await tokenRequest(app, { ...form, client_id: CONFIDENTIAL.client_id, client_secret: wrong }, NO_AUTH), [
    wrong,
    grant.code,
  ]);
  // The failed attempts did not spend the code.
  const ok = await tokenRequest(app, form);
  t.equal(ok.statusCode, 200, ok.body);
});

t.test('RFC 6749 5.2: an unknown client is refused with 401 invalid_client', async (t) => {
  const res = await tokenRequest(
    app,
    { grant_type: 'authorization_code', code: 'whatever' },
    basicAuth('nobody', 'nobody-secret-0123456789'),
  );
  assertInvalidClient(t, res, ['nobody-secret-0123456789']);
});

t.test('RFC 6749 5.2: a request without any client authentication is refused with 401 invalid_client', async (t) => {
  const res = await tokenRequest(app, { grant_type: 'authorization_code', code: 'whatever' }, NO_AUTH);
  assertInvalidClient(t, res);
});

t.test('RFC 6749 5.2: an Authorization scheme other than Basic is refused with 401 invalid_client', async (t) => {
  const res = await tokenRequest(app, { grant_type: 'authorization_code', code: 'whatever' }, 'Bearer some-token');
  assertInvalidClient(t, res);
});

t.test('RFC 6749 2.3: using Basic and client_secret in the body at once is refused with invalid_request', async (t) => {
  const res = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code: 'whatever',
    client_id: CONFIDENTIAL.client_id,
    client_secret: CONFIDENTIAL.client_secret,
  });
  assertOAuthError(t, res, { status: 400, error: 'invalid_request' });
});

t.test('RFC 6749 2.3.1: a client_id in the body that differs from the Basic one is refused with invalid_request', async (t) => {
  const res = await tokenRequest(app, { grant_type: 'authorization_code', code: 'whatever', client_id: SINGLE_REDIRECT.client_id });
  assertOAuthError(t, res, { status: 400, error: 'invalid_request', mentions: /client_id/ });
});

t.test('RFC 7617 2: a Basic header that is not base64 is refused with invalid_request', async (t) => {
  const res = await tokenRequest(app, { grant_type: 'authorization_code', code: 'whatever' }, 'Basic !!!not-base64!!!');
  assertOAuthError(t, res, { status: 400, error: 'invalid_request', mentions: /Basic/ });
});

t.test('RFC 7617 2: Basic credentials without a colon are refused with invalid_request', async (t) => {
  const res = await tokenRequest(
    app,
    { grant_type: 'authorization_code', code: 'whatever' },
    `Basic ${Buffer.from('app-without-a-secret').toString('base64')}`,
  );
  assertOAuthError(t, res, { status: 400, error: 'invalid_request', mentions: /Basic/ });
});

t.test('RFC 6749 2.1 and RFC 9700 2.1.1: a public client authenticates with its client_id alone and must prove PKCE', async (t) => {
  const grant = await obtainCode(app, { client_id: PUBLIC.client_id, redirect_uri: PUBLIC.redirect_uris[0] });
  const form = { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri, client_id: PUBLIC.client_id };

  assertInvalidGrant(t, await tokenRequest(app, form, NO_AUTH), grant.code, /code_verifier/);

  const res = await tokenRequest(app, { ...form, code_verifier: grant.verifier }, NO_AUTH);
  t.equal(res.statusCode, 200, res.body);
  t.type(res.json().access_token, 'string');
  const { payload } = await jwtVerify(
    res.json().id_token,
    createLocalJWKSet((await app.inject({ method: 'GET', url: '/sso/jwks' })).json()),
    { issuer: config.issuer, audience: PUBLIC.client_id },
  );
  t.equal(payload.aud, PUBLIC.client_id);
});

t.test('RFC 6749 2.1: a public client presenting a client secret is refused with 401 invalid_client', async (t) => {
  const res = await tokenRequest(
    app,
    { grant_type: 'authorization_code', code: 'whatever', client_id: PUBLIC.client_id, client_secret: 'made-up-secret-0123456789' },
    NO_AUTH,
  );
  assertInvalidClient(t, res, ['made-up-secret-0123456789']);
});

t.test('RFC 6749 3.2.1: a confidential client sending only its client_id is refused with 401 invalid_client', async (t) => {
  const grant = await obtainCode(app);
  const res = await tokenRequest(
    app,
    {
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: grant.redirectUri,
      code_verifier: grant.verifier,
      client_id: CONFIDENTIAL.client_id,
    },
    NO_AUTH,
  );
  assertInvalidClient(t, res, [grant.code]);
});

// ---- invalid_request (RFC 6749 5.2, 3.1) ----

t.test('RFC 6749 4.1.3: a request without grant_type is refused with invalid_request naming grant_type', async (t) => {
  const res = await tokenRequest(app, { code: 'whatever' });
  assertOAuthError(t, res, { status: 400, error: 'invalid_request', mentions: /grant_type/ });
});

t.test('RFC 6749 4.1.3: a request without code is refused with invalid_request naming code', async (t) => {
  const res = await tokenRequest(app, { grant_type: 'authorization_code', redirect_uri: CONFIDENTIAL.redirect_uris[0] });
  assertOAuthError(t, res, { status: 400, error: 'invalid_request', mentions: /\bcode\b/ });
});

t.test('RFC 6749 3.1: a repeated parameter is refused with invalid_request naming it', async (t) => {
  const grant = await obtainCode(app);
  const res = await rawTokenRequest(
    `grant_type=authorization_code&code=${grant.code}&code=${grant.code}&redirect_uri=${encodeURIComponent(String(grant.redirectUri))}&code_verifier=${grant.verifier}`,
  );
  assertOAuthError(t, res, { status: 400, error: 'invalid_request', mentions: /\bcode\b/, secrets: [grant.code] });

  const twice = await rawTokenRequest(`grant_type=authorization_code&grant_type=authorization_code&code=${grant.code}`);
  assertOAuthError(t, twice, { status: 400, error: 'invalid_request', mentions: /grant_type/, secrets: [grant.code] });
});

t.test(
  'RFC 6749 Appendix A: a parameter holding an encoded NUL is refused with invalid_request, not 500, and spends nothing',
  async (t) => {
    const grant = await obtainCode(app);
    const redirect = encodeURIComponent(String(grant.redirectUri));
    for (const body of [
      `grant_type=authorization_code&code=${grant.code}&redirect_uri=${redirect}%00&code_verifier=${grant.verifier}`,
      `grant_type=authorization_code&code=${grant.code}%00&redirect_uri=${redirect}&code_verifier=${grant.verifier}`,
      `grant_type=refresh_token&refresh_token=a%00b`,
    ]) {
      const res = await rawTokenRequest(body);
      assertOAuthError(t, res, { status: 400, error: 'invalid_request', mentions: /NUL/, secrets: [grant.code] });
    }
    const ok = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: grant.redirectUri,
      code_verifier: grant.verifier,
    });
    t.equal(ok.statusCode, 200, ok.body);
  },
);

t.test('RFC 6749 3.2: a JSON body is refused with invalid_request, not 415 or 500', async (t) => {
  const grant = await obtainCode(app);
  const res = await rawTokenRequest(
    JSON.stringify({ grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri, code_verifier: grant.verifier }),
    { 'content-type': 'application/json' },
  );
  assertOAuthError(t, res, { status: 400, error: 'invalid_request', mentions: /x-www-form-urlencoded/, secrets: [grant.code] });
  // The refused request did not spend the code.
  const ok = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.verifier,
  });
  t.equal(ok.statusCode, 200, ok.body);
});

t.test('RFC 6749 3.2: a text/plain or multipart body is refused with invalid_request', async (t) => {
  const plain = await rawTokenRequest('grant_type=authorization_code&code=whatever', { 'content-type': 'text/plain' });
  assertOAuthError(t, plain, { status: 400, error: 'invalid_request', mentions: /x-www-form-urlencoded/ });
  const multipart = await rawTokenRequest(
    '--x\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nauthorization_code\r\n--x--\r\n',
    { 'content-type': 'multipart/form-data; boundary=x' },
  );
  assertOAuthError(t, multipart, { status: 400, error: 'invalid_request', mentions: /x-www-form-urlencoded/ });
});

t.test('RFC 6749 3.2: a POST without a body is refused with invalid_request', async (t) => {
  const res = await app.inject({ method: 'POST', url: '/sso/token', headers: { authorization: CONFIDENTIAL_BASIC } });
  assertOAuthError(t, res, { status: 400, error: 'invalid_request' });
});

t.test('RFC 6749 5.2: a body over 64 KiB is refused with invalid_request', async (t) => {
  const res = await rawTokenRequest(`grant_type=authorization_code&code=${'a'.repeat(65 * 1024)}`);
  assertOAuthError(t, res, { status: 400, error: 'invalid_request' });
});

t.test('RFC 6749 5.2: a parameter longer than the server accepts is refused with invalid_request', async (t) => {
  const res = await rawTokenRequest(`grant_type=authorization_code&code=${'a'.repeat(5000)}`);
  assertOAuthError(t, res, { status: 400, error: 'invalid_request', mentions: /\bcode\b/ });
});

t.test('RFC 6749 Appendix B: a percent-encoded body that is not UTF-8 is refused with invalid_request', async (t) => {
  const res = await rawTokenRequest('grant_type=authorization_code&code=%ff%fe');
  assertOAuthError(t, res, { status: 400, error: 'invalid_request' });
  const broken = await rawTokenRequest('grant_type=authorization_code&code=%zz');
  assertOAuthError(t, broken, { status: 400, error: 'invalid_request' });
});

// ---- grant type (RFC 6749 5.2) ----

for (const grantType of ['password', 'urn:ietf:params:oauth:grant-type:jwt-bearer']) {
  t.test(`RFC 6749 5.2: grant_type=${grantType} is refused with unsupported_grant_type`, async (t) => {
    const res = await tokenRequest(app, { grant_type: grantType, username: 'alice', password: 'x', refresh_token: 'x', assertion: 'x' });
    assertOAuthError(t, res, { status: 400, error: 'unsupported_grant_type' });
  });
}

t.test("RFC 6749 5.2: an unsupported grant_type is not echoed in error_description (it is the sender's own text)", async (t) => {
  const chosen = 'urn:x:attacker-chosen-text:please-call-555-0100';
  const res = await tokenRequest(app, { grant_type: chosen });
  assertOAuthError(t, res, { status: 400, error: 'unsupported_grant_type' });
  t.equal(res.json().error_description, 'this grant_type is not supported');
  t.notMatch(res.body, /attacker-chosen|555-0100/, 'nothing of the value comes back');
});

t.test('RFC 6749 5.2: a client not registered for authorization_code is refused with unauthorized_client', async (t) => {
  const res = await tokenRequest(
    app,
    { grant_type: 'authorization_code', code: 'whatever', redirect_uri: NO_CODE_GRANT.redirect_uris[0] },
    basicAuth(NO_CODE_GRANT.client_id, NO_CODE_GRANT.client_secret),
  );
  assertOAuthError(t, res, { status: 400, error: 'unauthorized_client', secrets: [NO_CODE_GRANT.client_secret] });
});

// ---- invalid_grant (RFC 6749 4.1.3, 5.2) ----

t.test('RFC 6749 5.2: an unknown code is refused with invalid_grant', async (t) => {
  const { verifier } = pkcePair();
  const code = 'not-a-code-this-server-issued-0123456789';
  const res = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: CONFIDENTIAL.redirect_uris[0],
    code_verifier: verifier,
  });
  assertInvalidGrant(t, res, code);
});

t.test('RFC 6749 4.1.2: a code is refused with invalid_grant once its lifetime has passed', async (t) => {
  const grant = await obtainCode(app);
  advance(config.codeTtlSeconds + 1);
  const res = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.verifier,
  });
  assertInvalidGrant(t, res, grant.code, /expired/);
});

t.test('RFC 6749 4.1.3: a code issued to another client is refused with invalid_grant, and stays usable by its client', async (t) => {
  const grant = await obtainCode(app);
  const form = { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri, code_verifier: grant.verifier };
  assertInvalidGrant(t, await tokenRequest(app, form, SINGLE_BASIC), grant.code, /another client/);
  const res = await tokenRequest(app, form);
  t.equal(res.statusCode, 200, res.body);
});

t.test('RFC 6749 4.1.3: a redirect_uri that differs from the authorization request is refused with invalid_grant', async (t) => {
  const grant = await obtainCode(app);
  t.not(grant.redirectUri, CONFIDENTIAL.redirect_uris[1]);
  const res = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: CONFIDENTIAL.redirect_uris[1],
    code_verifier: grant.verifier,
  });
  assertInvalidGrant(t, res, grant.code, /redirect_uri/);
});

t.test('RFC 6749 4.1.3: omitting redirect_uri when the authorization request had one is refused with invalid_grant', async (t) => {
  const grant = await obtainCode(app);
  const res = await tokenRequest(app, { grant_type: 'authorization_code', code: grant.code, code_verifier: grant.verifier });
  assertInvalidGrant(t, res, grant.code, /redirect_uri/);
});

t.test('RFC 6749 4.1.3: redirect_uri may be omitted when the authorization request had none', async (t) => {
  const grant = await obtainCode(app, { client_id: SINGLE_REDIRECT.client_id, redirect_uri: undefined });
  t.equal(grant.location.origin + grant.location.pathname, SINGLE_REDIRECT.redirect_uris[0]);
  const res = await tokenRequest(app, { grant_type: 'authorization_code', code: grant.code, code_verifier: grant.verifier }, SINGLE_BASIC);
  t.equal(res.statusCode, 200, res.body);
});

t.test('RFC 7636 4.6: a missing code_verifier for a code issued with a code_challenge is refused with invalid_grant', async (t) => {
  const grant = await obtainCode(app);
  const res = await tokenRequest(app, { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri });
  assertInvalidGrant(t, res, grant.code, /code_verifier/);
});

t.test('RFC 7636 4.6: a code_verifier that does not match the code_challenge is refused with invalid_grant', async (t) => {
  const grant = await obtainCode(app);
  const wrong = pkcePair().verifier;
  const res = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: wrong,
  });
  assertInvalidGrant(t, res, grant.code, /code_verifier/);
  t.notOk(res.body.includes(wrong), 'the verifier is not echoed');
});

t.test('RFC 7636 4.1: a code_verifier that is not 43 to 128 unreserved characters is refused with invalid_request', async (t) => {
  const grant = await obtainCode(app);
  const res = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: 'short',
  });
  assertOAuthError(t, res, { status: 400, error: 'invalid_request', mentions: /code_verifier/, secrets: [grant.code] });
});

t.test(
  'RFC 9700 2.1.1: a code_verifier for a code issued without a code_challenge is refused with invalid_grant (PKCE downgrade)',
  async (t) => {
    const grant = await obtainCode(app, { code_challenge: undefined, code_challenge_method: undefined });
    const res = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: grant.redirectUri,
      code_verifier: grant.verifier,
    });
    assertInvalidGrant(t, res, grant.code, /code_verifier/);
    // Without the verifier the same code is redeemed: the refusal did not spend it.
    const ok = await tokenRequest(app, { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri });
    t.equal(ok.statusCode, 200, ok.body);
  },
);

t.test('RFC 6749 4.1.3: a code refused for a failed check is not spent and can then be redeemed correctly', async (t) => {
  const grant = await obtainCode(app);
  const form = { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri };
  assertInvalidGrant(t, await tokenRequest(app, { ...form, code_verifier: pkcePair().verifier }), grant.code);
  assertInvalidGrant(
    t,
    await tokenRequest(app, { ...form, redirect_uri: CONFIDENTIAL.redirect_uris[1], code_verifier: grant.verifier }),
    grant.code,
  );
  const res = await tokenRequest(app, { ...form, code_verifier: grant.verifier });
  t.equal(res.statusCode, 200, res.body);
  t.type(res.json().access_token, 'string');
});

// ---- single use (RFC 6749 4.1.2, 10.5) ----

t.test('RFC 6749 4.1.2: a replayed code is refused with invalid_grant and revokes the access token issued from it', async (t) => {
  const { grant, res } = await redeemFreshCode();
  t.equal(res.statusCode, 200, res.body);
  const accessToken: string = res.json().access_token;
  t.equal((await userinfo(accessToken)).statusCode, 200, 'the token works before the replay');

  const replay = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.verifier,
  });
  assertInvalidGrant(t, replay, grant.code, /already used/);
  t.notOk(replay.body.includes(accessToken), 'the replay does not see the token');

  const after = await userinfo(accessToken);
  t.equal(after.statusCode, 401, after.body);
  t.equal(after.json().error, 'invalid_token');
});

t.test('RFC 6749 4.1.2: of 20 concurrent redemptions of one code exactly one succeeds', async (t) => {
  const grant = await obtainCode(app);
  const form = { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri, code_verifier: grant.verifier };
  const results = await Promise.all(Array.from({ length: 20 }, () => tokenRequest(app, form)));
  const statuses = results.map((r) => r.statusCode);
  t.equal(statuses.filter((s) => s === 200).length, 1, `statuses: ${statuses.join(',')}`);
  for (const r of results.filter((r) => r.statusCode !== 200)) assertInvalidGrant(t, r, grant.code, /already used/);
  const codeHash = storedKey(grant.code);
  const tokens = await db.selectFrom('access_tokens').select('token_hash').where('code_hash', '=', codeHash).execute();
  t.equal(tokens.length, 1, 'one access token was stored for the code');
});
