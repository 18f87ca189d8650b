// The claims request parameter (OIDC Core 5.5): individual claims for the ID token and for userinfo, with value and
// values, carried from the authorization request by the code to the tokens (and through refresh).
import { decodeJwt } from 'jose';
import { sql } from 'kysely';
import pino from 'pino';
import t, { type Test } from 'tap';
import type { SeedFile } from '../../../src/domain/admin/seed.js';
import { ALICE, BOB, buildTestApp, CONFIDENTIAL, FIXTURES } from '../../helpers/app.js';
import { authorizePath, basicAuth, Browser, obtainCode, signIn, tokenRequest } from '../../helpers/flow.js';
import { userinfo } from '../../helpers/grants.js';

/** Minimal ID tokens (no scope claims) unless the claims parameter asks; refresh tokens with offline_access. */
const MINIMAL = {
  ...CONFIDENTIAL,
  client_id: 'minimal',
  id_token_claims: 'minimal',
  grant_types: ['authorization_code', 'refresh_token'],
};
const SEED: SeedFile = { clients: [...FIXTURES.clients, MINIMAL], users: FIXTURES.users };
const logged: Array<Record<string, unknown>> = [];
const logger = pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) });
const { app, db } = await buildTestApp(t, { seed: SEED, logger });
const AUTH = basicAuth(MINIMAL.client_id, MINIMAL.client_secret);

async function tokensWith(
  claims: unknown,
  scope = 'openid profile email offline_access',
  user = ALICE as { username: string; password: string },
) {
  const got = await obtainCode(
    app,
    { client_id: MINIMAL.client_id, scope, claims: claims === undefined ? undefined : JSON.stringify(claims) },
    { user },
  );
  const res = await tokenRequest(
    app,
    { grant_type: 'authorization_code', code: got.code, redirect_uri: got.redirectUri, code_verifier: got.verifier },
    AUTH,
  );
  if (res.statusCode !== 200) throw new Error(res.body);
  const body = res.json() as { access_token: string; id_token: string; refresh_token?: string };
  return { ...body, idClaims: decodeJwt(body.id_token), browser: got.browser };
}

function authorizeRequest(extra: Record<string, string>) {
  return authorizePath({
    response_type: 'code',
    client_id: MINIMAL.client_id,
    redirect_uri: MINIMAL.redirect_uris[0],
    scope: 'openid email',
    state: 'st-claims',
    ...extra,
  });
}

function assertRedirectedError(t: Test, location: string | undefined, error: string, description?: RegExp): void {
  const url = new URL(String(location));
  t.equal(`${url.origin}${url.pathname}`, MINIMAL.redirect_uris[0], 'back at the registered redirect URI');
  t.equal(url.searchParams.get('error'), error);
  t.equal(url.searchParams.get('state'), 'st-claims');
  if (description) t.match(url.searchParams.get('error_description'), description);
  t.equal(url.searchParams.get('code'), null);
}

t.test('OIDC Core 5.5: claims that is not JSON, or not a JSON object, is invalid_request', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['{"id_token": {', /claims is not valid JSON/],
    ['["email"]', /claims must be a JSON object/],
    ['{"id_token": ["email"]}', /claims.id_token must be a JSON object/],
    ['{"userinfo": {"email": {"essential": "yes"}}}', /essential must be true or false/],
    ['{"userinfo": {"email": {"values": "a@example.com"}}}', /values must be an array/],
    ['{"userinfo": {"email": 1}}', /must be null or a JSON object/],
    // RFC 6749 5.2: no '"' in error_description, so an odd claim name is not echoed.
    ['{"userinfo": {"e\\"mail": 1}}', /^a claim of claims.userinfo must be null or a JSON object$/],
  ];
  for (const [claims, description] of cases) {
    const res = await app.inject({ method: 'GET', url: authorizeRequest({ claims }) });
    t.equal(res.statusCode, 303, claims);
    assertRedirectedError(t, res.headers.location as string, 'invalid_request', description);
  }
});

t.test('OIDC Core 5.5: claims asked for the ID token are in it, even for a client with minimal ID tokens', async (t) => {
  const plain = await tokensWith({ userinfo: { email: null } });
  t.notOk('email' in plain.idClaims, 'without an id_token member the ID token stays minimal');
  const asked = await tokensWith({ id_token: { email: null, name: { essential: true } } });
  t.equal(asked.idClaims.email, ALICE.email);
  t.equal(asked.idClaims.name, ALICE.name);
  t.notOk('given_name' in asked.idClaims, 'only the claims asked for');
});

t.test('OIDC Core 5.5.1: a claim no granted scope covers is not returned, essential or not, and is no error', async (t) => {
  const tokens = await tokensWith({ id_token: { phone_number: { essential: true } }, userinfo: { phone_number: null } }, 'openid email');
  t.notOk('phone_number' in tokens.idClaims);
  const info = (await userinfo(app, tokens.access_token)).json() as Record<string, unknown>;
  t.notOk('phone_number' in info);
  t.equal(info.email, ALICE.email, 'the scope claims are still there');
});

t.test('OIDC Core 5.5.1: a claim is returned only with the value, or one of the values, asked for', async (t) => {
  const other = await tokensWith({ id_token: { email: { value: 'someone@example.com' } } });
  t.notOk('email' in other.idClaims);
  const among = await tokensWith({ id_token: { email: { values: ['someone@example.com', ALICE.email] } } });
  t.equal(among.idClaims.email, ALICE.email);
});

t.test('OIDC Core 5.5: userinfo answers its member of the request, through a refresh too', async (t) => {
  const tokens = await tokensWith({ userinfo: { name: { value: 'Someone Else' }, email: null } });
  const info = (await userinfo(app, tokens.access_token)).json() as Record<string, unknown>;
  t.notOk('name' in info, 'not the name asked for: not returned');
  t.equal(info.email, ALICE.email);
  t.equal(info.family_name, ALICE.family_name, 'the other scope claims are unchanged');

  const refreshed = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }, AUTH);
  t.equal(refreshed.statusCode, 200, refreshed.body);
  const again = (await userinfo(app, refreshed.json().access_token)).json() as Record<string, unknown>;
  t.notOk('name' in again, 'the refreshed access token carries the same request');
});

t.test('OIDC Core 5.5.1: sub with a value is answered only for that user signed in here', async (t) => {
  const alice = await tokensWith(undefined, 'openid email');
  const aliceSub = alice.idClaims.sub!;
  const bobSub = (await tokensWith(undefined, 'openid email', BOB)).idClaims.sub!;
  const ask = (sub: string) => authorizeRequest({ prompt: 'none', claims: JSON.stringify({ id_token: { sub: { value: sub } } }) });

  const own = await alice.browser.request(app, 'GET', ask(aliceSub));
  t.equal(own.statusCode, 303);
  t.ok(new URL(String(own.headers.location)).searchParams.get('code'), "alice's own sub: a code");

  const other = await alice.browser.request(app, 'GET', ask(bobSub));
  assertRedirectedError(t, other.headers.location as string, 'login_required', /not the user the claims parameter names/);
  const nobody = await new Browser().request(
    app,
    'GET',
    authorizeRequest({ claims: JSON.stringify({ id_token: { sub: { value: aliceSub } } }) }),
  );
  assertRedirectedError(t, nobody.headers.location as string, 'login_required');
});

t.test('OIDC Core 5.5.1: with a sub value, another user signing in on the way (prompt=login) gets login_required', async (t) => {
  const alice = await tokensWith(undefined, 'openid email');
  const claims = JSON.stringify({ id_token: { sub: { value: alice.idClaims.sub } } });
  const { location } = await signIn(
    app,
    {
      response_type: 'code',
      client_id: MINIMAL.client_id,
      redirect_uri: MINIMAL.redirect_uris[0],
      scope: 'openid email',
      state: 'st-claims',
      prompt: 'login',
      claims,
    },
    { browser: alice.browser, user: BOB },
  );
  assertRedirectedError(t, location.href, 'login_required', /not the user the claims parameter names/);
});

t.test('OIDC Discovery 3: claims_parameter_supported is true', async (t) => {
  const res = await app.inject({ method: 'GET', url: '/sso/.well-known/openid-configuration' });
  t.equal(res.json().claims_parameter_supported, true);
});

t.test('issue 38: a stored claims request this version does not read releases no requested claim, logged, not a 500', async (t) => {
  const tokens = await tokensWith({ userinfo: { name: { value: 'Someone Else' } } });
  t.notOk('name' in ((await userinfo(app, tokens.access_token)).json() as Record<string, unknown>), 'read: the request applies');
  await sql`UPDATE access_tokens SET claims = '{"v":2,"userinfo":{"name":{"value":"Someone Else"}}}' WHERE claims IS NOT NULL`.execute(db);
  const res = await userinfo(app, tokens.access_token);
  t.equal(res.statusCode, 200, res.body);
  const info = res.json() as Record<string, unknown>;
  t.equal(info.name, ALICE.name, 'as if no claims parameter was given: the scope claims only');
  t.match(logged.at(-1), { event: 'claims_request_unreadable', clientId: MINIMAL.client_id, reason: 'unknown version 2' });
  t.notMatch(JSON.stringify(logged), /Someone Else/, 'no value in the log');
});
