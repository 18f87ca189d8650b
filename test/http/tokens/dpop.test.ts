// Sender-constrained tokens with DPoP (RFC 9449): proofs at the token endpoint bind access tokens (and a public
// client's refresh tokens) to a key; userinfo takes a bound token only with a proof by that key; nonces; replays.
import { decodeJwt, exportJWK, generateKeyPair } from 'jose';
import t from 'tap';
import { buildTestApp, CONFIDENTIAL, FIXTURES, PUBLIC, type TestApp } from '../../helpers/app.js';
import { dpopKey, dpopProof } from '../../helpers/dpop.js';
import { basicAuth, obtainCode } from '../../helpers/flow.js';

const TOKEN_URL = 'http://localhost:3000/sso/token';
const USERINFO_URL = 'http://localhost:3000/sso/userinfo';
const BASIC = basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret);
const BOUND = {
  client_id: 'bound',
  client_secret: 'bound-secret-0123456789',
  redirect_uris: ['https://bound.example/cb'],
  dpop_bound_access_tokens: true,
};
const NATIVE = { ...PUBLIC, client_id: 'native', grant_types: ['authorization_code', 'refresh_token'] };
const SEED = { ...FIXTURES, clients: [...FIXTURES.clients, BOUND, NATIVE] };

function token(app: TestApp['app'], form: Record<string, string | undefined>, proof: string | undefined, auth: string = BASIC) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) if (v !== undefined) body.append(k, v);
  return app.inject({
    method: 'POST',
    url: '/sso/token',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(auth ? { authorization: auth } : {}),
      ...(proof ? { dpop: proof } : {}),
    },
    payload: body.toString(),
  });
}

async function codeForm(app: TestApp['app'], overrides: Record<string, string> = {}) {
  const code = await obtainCode(app, overrides);
  return { grant_type: 'authorization_code', code: code.code, redirect_uri: code.redirectUri, code_verifier: code.verifier };
}

function userinfo(app: TestApp['app'], authorization: string, proof?: string) {
  return app.inject({ method: 'GET', url: '/sso/userinfo', headers: { authorization, ...(proof ? { dpop: proof } : {}) } });
}

t.test('RFC 9449 5 and 7: a proof binds the access token; userinfo takes it only as DPoP with a proof by that key', async (t) => {
  const { app } = await buildTestApp(t, { seed: SEED as never });
  const key = await dpopKey();
  const res = await token(app, await codeForm(app), await dpopProof(key, { htu: TOKEN_URL }));
  t.equal(res.statusCode, 200, res.body);
  const body = res.json() as { access_token: string; token_type: string };
  t.equal(body.token_type, 'DPoP', 'RFC 9449 5: token_type DPoP');

  const introspected = await app.inject({
    method: 'POST',
    url: '/sso/introspect',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: BASIC },
    payload: new URLSearchParams({ token: body.access_token }).toString(),
  });
  t.match(introspected.json(), { active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } }, 'RFC 9449 6.2: cnf.jkt at introspection');

  const ok = await userinfo(
    app,
    `DPoP ${body.access_token}`,
    await dpopProof(key, { htm: 'GET', htu: USERINFO_URL, accessToken: body.access_token }),
  );
  t.equal(ok.statusCode, 200, ok.body);
  const asBearer = await userinfo(app, `Bearer ${body.access_token}`);
  t.equal(asBearer.statusCode, 401, 'RFC 9449 7.2: a bound token as a Bearer token');
  t.match(asBearer.headers['www-authenticate'], /^DPoP algs="[^"]*ES256[^"]*", error="invalid_token"/);
  const noProof = await userinfo(app, `DPoP ${body.access_token}`);
  t.match(noProof.headers['www-authenticate'], /error="invalid_dpop_proof"/, 'the DPoP scheme without a proof');
  const otherKey = await dpopKey();
  const stolen = await userinfo(
    app,
    `DPoP ${body.access_token}`,
    await dpopProof(otherKey, { htm: 'GET', htu: USERINFO_URL, accessToken: body.access_token }),
  );
  t.equal(stolen.statusCode, 401, 'a proof by another key: the token is not theirs');
  t.match(stolen.headers['www-authenticate'], /error="invalid_token"/);
  const wrongAth = await userinfo(
    app,
    `DPoP ${body.access_token}`,
    await dpopProof(key, { htm: 'GET', htu: USERINFO_URL, accessToken: 'another-token' }),
  );
  t.match(wrongAth.headers['www-authenticate'], /error="invalid_dpop_proof"/, 'RFC 9449 4.3 (12): ath of another token');

  // A bearer token (no proof at the token endpoint) is not taken with the DPoP scheme.
  const plain = (await token(app, await codeForm(app), undefined)).json() as { access_token: string; token_type: string };
  t.equal(plain.token_type, 'Bearer');
  const plainAsDpop = await userinfo(
    app,
    `DPoP ${plain.access_token}`,
    await dpopProof(key, { htm: 'GET', htu: USERINFO_URL, accessToken: plain.access_token }),
  );
  t.equal(plainAsDpop.statusCode, 401);
});

t.test('RFC 9449 4.3: proofs that fail a check are invalid_dpop_proof, and nothing is issued', async (t) => {
  const { app } = await buildTestApp(t, { seed: SEED as never });
  const key = await dpopKey();
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const now = Math.floor(Date.now() / 1000);
  const cases: Array<[string, Promise<string> | string]> = [
    ['(9) htu of another URL', dpopProof(key, { htu: 'http://localhost:3000/sso/userinfo' })],
    ['(8) htm of another method', dpopProof(key, { htm: 'GET', htu: TOKEN_URL })],
    ['(11) iat long ago', dpopProof(key, { htu: TOKEN_URL, iat: now - 600 })],
    ['(11) iat in the future', dpopProof(key, { htu: TOKEN_URL, iat: now + 600 })],
    ['(4) typ other than dpop+jwt', dpopProof(key, { htu: TOKEN_URL, typ: 'JWT' })],
    ['(5) a private key in jwk', exportJWK(privateKey).then((jwk) => dpopProof({ ...key, privateKey }, { htu: TOKEN_URL, jwk }))],
    ['(6) signed by another key than jwk', dpopProof({ ...key, privateKey }, { htu: TOKEN_URL })],
    ['(2) not a JWT', 'not-a-jwt'],
  ];
  for (const [why, proof] of cases) {
    const res = await token(app, await codeForm(app), await proof);
    t.equal(res.statusCode, 400, why);
    t.equal(res.json().error, 'invalid_dpop_proof', why);
  }
  // RFC 9449 11.1: a proof's jti once only; the code it came with is still good for a fresh proof.
  const form = await codeForm(app);
  const once = await dpopProof(key, { htu: TOKEN_URL });
  t.equal((await token(app, await codeForm(app), once)).statusCode, 200);
  const replay = await token(app, form, once);
  t.equal(replay.json().error, 'invalid_dpop_proof', 'a replayed proof');
  t.equal((await token(app, form, await dpopProof(key, { htu: TOKEN_URL }))).statusCode, 200, 'the code was not used up by the refusal');
});

t.test('RFC 9449 8: with DPOP_NONCE_REQUIRED, use_dpop_nonce hands out the nonce, which the next proof carries', async (t) => {
  const { app } = await buildTestApp(t, { seed: SEED as never, env: { DPOP_NONCE_REQUIRED: 'true' } });
  const key = await dpopKey();
  const form = await codeForm(app);
  const first = await token(app, form, await dpopProof(key, { htu: TOKEN_URL }));
  t.equal(first.statusCode, 400);
  t.equal(first.json().error, 'use_dpop_nonce');
  const nonce = first.headers['dpop-nonce'] as string;
  t.match(nonce, /^[A-Za-z0-9_-]{20,}$/);
  const second = await token(app, form, await dpopProof(key, { htu: TOKEN_URL, nonce }));
  t.equal(second.statusCode, 200, second.body);
  t.type(second.headers['dpop-nonce'], 'string', 'the answer carries the nonce for the next proof');
  const stale = await token(app, await codeForm(app), await dpopProof(key, { htu: TOKEN_URL, nonce: 'made-up-nonce-0123456789' }));
  t.equal(stale.json().error, 'use_dpop_nonce', 'a nonce the server did not give');
});

t.test(
  'RFC 9449 5.2 dpop_bound_access_tokens; RFC 9449 5: a public client refresh token is bound to its key; cnf.jkt in a JWT',
  async (t) => {
    const { app } = await buildTestApp(t, { seed: SEED as never });
    const key = await dpopKey();
    const bound = await codeForm(app, { client_id: BOUND.client_id, redirect_uri: BOUND.redirect_uris[0]! });
    const refused = await token(app, bound, undefined, basicAuth(BOUND.client_id, BOUND.client_secret));
    t.equal(refused.json().error, 'invalid_dpop_proof', 'a client that always uses DPoP sent no proof');
    t.equal(
      (await token(app, bound, await dpopProof(key, { htu: TOKEN_URL }), basicAuth(BOUND.client_id, BOUND.client_secret))).statusCode,
      200,
    );

    const native = await codeForm(app, {
      client_id: NATIVE.client_id,
      redirect_uri: NATIVE.redirect_uris[0]!,
      scope: 'openid offline_access',
    });
    const issued = await token(app, { ...native, client_id: NATIVE.client_id }, await dpopProof(key, { htu: TOKEN_URL }), '');
    t.equal(issued.statusCode, 200, issued.body);
    const refreshToken = issued.json().refresh_token as string;
    const other = await dpopKey();
    const withOther = await token(
      app,
      { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: NATIVE.client_id },
      await dpopProof(other, { htu: TOKEN_URL }),
      '',
    );
    t.equal(withOther.json().error, 'invalid_grant', 'a proof by another key');
    const withNone = await token(
      app,
      { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: NATIVE.client_id },
      undefined,
      '',
    );
    t.equal(withNone.json().error, 'invalid_grant', 'no proof');
    const refreshed = await token(
      app,
      { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: NATIVE.client_id },
      await dpopProof(key, { htu: TOKEN_URL }),
      '',
    );
    t.equal(refreshed.statusCode, 200, refreshed.body);
    t.equal(refreshed.json().token_type, 'DPoP');
  },
);

t.test('discovery advertises dpop_signing_alg_values_supported (RFC 9449 5.1)', async (t) => {
  const { app } = await buildTestApp(t);
  const doc = (await app.inject({ method: 'GET', url: '/sso/.well-known/openid-configuration' })).json();
  t.ok(doc.dpop_signing_alg_values_supported.includes('ES256'));
  t.notOk(
    doc.dpop_signing_alg_values_supported.some((a: string) => a.startsWith('HS') || a === 'none'),
    'asymmetric only (RFC 9449 4.2)',
  );
});

t.test('RFC 9449 6.1: a DPoP-bound JWT access token (RFC 9068) names its key in cnf.jkt', async (t) => {
  const api = 'https://api.example/';
  const worker = {
    client_id: 'worker',
    client_secret: 'worker-secret-0123456789',
    grant_types: ['client_credentials'],
    scope: 'api:read',
    allowed_resources: [api],
    default_resource: api,
  };
  const seed = {
    ...FIXTURES,
    resource_servers: [{ identifier: api, scopes: { 'api:read': 'Read' }, access_token_format: 'jwt' as const }],
    clients: [...FIXTURES.clients, worker],
  };
  const { app } = await buildTestApp(t, { seed: seed as never });
  const key = await dpopKey('EdDSA');
  const res = await token(
    app,
    { grant_type: 'client_credentials' },
    await dpopProof(key, { htu: TOKEN_URL, alg: 'EdDSA' }),
    basicAuth(worker.client_id, worker.client_secret),
  );
  t.equal(res.json().token_type, 'DPoP', res.body);
  t.same(decodeJwt(res.json().access_token as string).cnf, { jkt: key.jkt });
});

// RFC 9449 10: "When a token request is received, the authorization server computes the JWK Thumbprint of the
// proof-of-possession public key in the DPoP proof and verifies that it matches the dpop_jkt parameter value in the
// authorization request. If they do not match, it MUST reject the request."
t.test('RFC 9449 10: a code bound by dpop_jkt is redeemed only with a proof by that key', async (t) => {
  const { app, db } = await buildTestApp(t, { seed: SEED as never });
  const key = await dpopKey();
  const other = await dpopKey();
  const refused = async (proof: string | undefined, why: string) => {
    const form = await codeForm(app, { dpop_jkt: key.jkt });
    const res = await token(app, form, proof);
    t.equal(res.statusCode, 400, why);
    t.equal(res.json().error, 'invalid_grant', why);
    const row = await db.selectFrom('authorization_codes').select(['consumed_at', 'dpop_jkt']).where('dpop_jkt', '=', key.jkt).execute();
    t.ok(
      row.every((r) => r.consumed_at === null),
      `${why}: the code is not used up`,
    );
  };
  await refused(undefined, 'no proof');
  await refused(await dpopProof(other, { htu: TOKEN_URL }), 'a proof by another key');

  const res = await token(app, await codeForm(app, { dpop_jkt: key.jkt }), await dpopProof(key, { htu: TOKEN_URL }));
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.json().token_type, 'DPoP');
  t.equal((await token(app, await codeForm(app), undefined)).statusCode, 200, 'a code bound to no key needs no proof');
});

t.test('RFC 9449 10: dpop_jkt that is no SHA-256 thumbprint is invalid_request, redirected', async (t) => {
  const { app } = await buildTestApp(t, { seed: SEED as never });
  for (const value of ['short', `${'A'.repeat(43)}=`, `${'A'.repeat(42)}+`]) {
    const res = await app.inject({
      method: 'GET',
      url: `/sso/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: CONFIDENTIAL.client_id,
        redirect_uri: CONFIDENTIAL.redirect_uris[0]!,
        scope: 'openid',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        dpop_jkt: value,
      }).toString()}`,
    });
    t.equal(res.statusCode, 303, value);
    t.equal(new URL(String(res.headers.location)).searchParams.get('error'), 'invalid_request', value);
  }
});
