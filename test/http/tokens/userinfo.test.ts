// The UserInfo endpoint over HTTP (OIDC Core 5.3, 5.4; RFC 6750 2 and 3).
import type { LightMyRequestResponse } from 'fastify';
import { decodeJwt } from 'jose';
import t, { type Test } from 'tap';
import { ALICE, BOB, buildTestApp } from '../../helpers/app.js';
import { obtainCode, tokenRequest, type SignInOptions } from '../../helpers/flow.js';

const { app, db, config, advance } = await buildTestApp(t);

/** Signs in (as Alice unless told otherwise), consents to `scope` and redeems the code. */
async function tokensFor(
  scope: string,
  options: SignInOptions = {},
): Promise<{ accessToken: string; idToken?: string; code: string; verifier: string; redirectUri: string | undefined }> {
  const grant = await obtainCode(app, { scope }, options);
  const res = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.verifier,
  });
  if (res.statusCode !== 200) throw new Error(`token request failed: ${res.body}`);
  const body = res.json();
  return {
    accessToken: body.access_token,
    idToken: body.id_token,
    code: grant.code,
    verifier: grant.verifier,
    redirectUri: grant.redirectUri,
  };
}

function getUserinfo(accessToken: string) {
  return app.inject({ method: 'GET', url: '/sso/userinfo', headers: { authorization: `Bearer ${accessToken}` } });
}

/** RFC 6750 3: the error in a JSON body and in the Bearer challenge; never cached; the token never echoed. */
function assertBearerError(t: Test, res: LightMyRequestResponse, status: number, error: string, token?: string): void {
  t.equal(res.statusCode, status, res.body);
  t.equal(res.headers['cache-control'], 'no-store');
  t.match(res.headers['content-type'], /^application\/json/);
  t.equal(res.json().error, error);
  const challenge = String(res.headers['www-authenticate'] ?? '');
  t.match(challenge, /^Bearer realm="sso"/, 'RFC 6750 3: the challenge uses the Bearer scheme');
  t.match(challenge, `error="${error}"`);
  if (token) t.notOk(res.body.includes(token) || challenge.includes(token), 'the token is not echoed');
}

t.test('OIDC Core 5.3.1: a GET with a Bearer Authorization header returns the claims, never cached', async (t) => {
  const { accessToken } = await tokensFor('openid');
  const res = await getUserinfo(accessToken);
  t.equal(res.statusCode, 200, res.body);
  t.match(res.headers['content-type'], /^application\/json/);
  t.equal(res.headers['cache-control'], 'no-store');
  t.equal(res.headers.pragma, 'no-cache');
  const alice = await db.selectFrom('users').select('id').where('username', '=', ALICE.username).executeTakeFirstOrThrow();
  t.equal(res.json().sub, alice.id);
});

t.test('RFC 7235 2.1: the Bearer scheme name is matched without regard to case', async (t) => {
  const { accessToken } = await tokensFor('openid');
  const res = await app.inject({ method: 'GET', url: '/sso/userinfo', headers: { authorization: `bearer ${accessToken}` } });
  t.equal(res.statusCode, 200, res.body);
});

t.test('OIDC Core 5.3.2: the sub of the UserInfo response equals the sub of the ID token', async (t) => {
  const { accessToken, idToken } = await tokensFor('openid profile');
  t.type(idToken, 'string');
  const res = await getUserinfo(accessToken);
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.json().sub, decodeJwt(idToken!).sub);
});

t.test('RFC 6750 2.2: a POST with access_token in a form-encoded body returns the claims', async (t) => {
  const { accessToken } = await tokensFor('openid email');
  const res = await app.inject({
    method: 'POST',
    url: '/sso/userinfo',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ access_token: accessToken }).toString(),
  });
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.headers['cache-control'], 'no-store');
  t.equal(res.json().email, ALICE.email);
});

t.test('RFC 6750 2.2: a POST with a JSON body is refused with invalid_request', async (t) => {
  const { accessToken } = await tokensFor('openid');
  const res = await app.inject({
    method: 'POST',
    url: '/sso/userinfo',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ access_token: accessToken }),
  });
  t.equal(res.statusCode, 400, res.body);
  t.equal(res.json().error, 'invalid_request');
  t.equal(res.headers['cache-control'], 'no-store');
  t.notOk(res.body.includes(accessToken));
});

t.test('RFC 6750 2: a token in both the header and the body is refused with invalid_request', async (t) => {
  const { accessToken } = await tokensFor('openid');
  const res = await app.inject({
    method: 'POST',
    url: '/sso/userinfo',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${accessToken}` },
    payload: new URLSearchParams({ access_token: accessToken }).toString(),
  });
  t.equal(res.statusCode, 400, res.body);
  t.equal(res.json().error, 'invalid_request');
  t.equal(res.headers['cache-control'], 'no-store');
  t.notOk(res.body.includes(accessToken));
});

t.test('RFC 6750 3.1: a request without a token is refused with 401 and a Bearer challenge', async (t) => {
  const res = await app.inject({ method: 'GET', url: '/sso/userinfo' });
  assertBearerError(t, res, 401, 'invalid_token');
});

t.test('RFC 6750 2.3: an access token in the query string is not accepted', async (t) => {
  const { accessToken } = await tokensFor('openid');
  const res = await app.inject({ method: 'GET', url: `/sso/userinfo?access_token=${accessToken}` });
  assertBearerError(t, res, 401, 'invalid_token', accessToken);
});

t.test('RFC 6750 3.1: an Authorization header that is not a Bearer token is refused with 401 invalid_token', async (t) => {
  for (const header of ['Basic YXBwOnNlY3JldA==', 'Bearer', 'Bearer two words']) {
    const res = await app.inject({ method: 'GET', url: '/sso/userinfo', headers: { authorization: header } });
    assertBearerError(t, res, 401, 'invalid_token');
  }
});

t.test('RFC 6750 3.1: an unknown token is refused with 401 invalid_token', async (t) => {
  const token = 'this-token-was-never-issued-0123456789abcdef';
  assertBearerError(t, await getUserinfo(token), 401, 'invalid_token', token);
});

t.test('RFC 6750 3.1: an expired token is refused with 401 invalid_token', async (t) => {
  const { accessToken } = await tokensFor('openid');
  t.equal((await getUserinfo(accessToken)).statusCode, 200, 'the token works before it expires');
  advance(config.accessTokenTtlSeconds + 1);
  assertBearerError(t, await getUserinfo(accessToken), 401, 'invalid_token', accessToken);
});

t.test('RFC 6749 4.1.2: a token revoked by a replay of its code is refused with 401 invalid_token', async (t) => {
  const { accessToken, code, verifier, redirectUri } = await tokensFor('openid');
  t.equal((await getUserinfo(accessToken)).statusCode, 200, 'the token works before the replay');
  const replay = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier });
  t.equal(replay.statusCode, 400, replay.body);
  t.equal(replay.json().error, 'invalid_grant');
  assertBearerError(t, await getUserinfo(accessToken), 401, 'invalid_token', accessToken);
});

t.test('OIDC Core 5.3.3: a token of a user who has since been disabled is refused with 401 invalid_token', async (t) => {
  const { accessToken } = await tokensFor('openid', { user: BOB });
  t.equal((await getUserinfo(accessToken)).statusCode, 200, 'the token works while the user is enabled');
  await db.updateTable('users').set({ disabled_at: new Date() }).where('username', '=', BOB.username).execute();
  assertBearerError(t, await getUserinfo(accessToken), 401, 'invalid_token', accessToken);
});

t.test('OIDC Core 5.4: with the openid scope alone only sub is released', async (t) => {
  const res = await getUserinfo((await tokensFor('openid')).accessToken);
  t.equal(res.statusCode, 200, res.body);
  t.same(Object.keys(res.json()), ['sub']);
});

t.test('OIDC Core 5.4: the email scope releases email and email_verified and nothing of the profile', async (t) => {
  const res = await getUserinfo((await tokensFor('openid email')).accessToken);
  t.equal(res.statusCode, 200, res.body);
  const claims = res.json();
  t.same(Object.keys(claims).sort(), ['email', 'email_verified', 'sub']);
  t.equal(claims.email, ALICE.email);
  t.equal(claims.email_verified, true);
  t.notOk('name' in claims);
});

t.test('a user whose stored claims this version does not read has none of them released, never a 500', async (t) => {
  const alice = await db.selectFrom('users').select(['id', 'claims']).where('username', '=', ALICE.username).executeTakeFirstOrThrow();
  const { accessToken } = await tokensFor('openid profile');
  await db
    .updateTable('users')
    .set({ claims: JSON.stringify({ ...alice.claims, v: 2 }) })
    .where('id', '=', alice.id)
    .execute();
  t.teardown(() =>
    db
      .updateTable('users')
      .set({ claims: JSON.stringify(alice.claims) })
      .where('id', '=', alice.id)
      .execute(),
  );

  const res = await getUserinfo(accessToken);
  t.equal(res.statusCode, 200, res.body);
  t.notOk('name' in res.json(), 'userinfo: no stored claim');
  t.equal(res.json().preferred_username, 'alice', 'what the user row itself holds is still released');
  const idToken = decodeJwt((await tokensFor('openid profile')).idToken!);
  t.equal(idToken.sub, alice.id);
  t.notOk('name' in idToken, 'ID token: no stored claim');
});

t.test('OIDC Core 5.4: the profile scope releases the profile claims and not the email', async (t) => {
  const res = await getUserinfo((await tokensFor('openid profile')).accessToken);
  t.equal(res.statusCode, 200, res.body);
  const claims = res.json();
  t.equal(claims.name, ALICE.name);
  t.equal(claims.given_name, ALICE.given_name);
  t.equal(claims.family_name, ALICE.family_name);
  t.equal(claims.preferred_username, 'alice');
  t.type(claims.updated_at, 'number', 'OIDC Core 5.1: updated_at is seconds since the epoch');
  t.ok(Number.isInteger(claims.updated_at) && claims.updated_at > 1_600_000_000 && claims.updated_at < 1e10, 'updated_at is in seconds');
  t.notOk('email' in claims);
  t.notOk('phone_number' in claims);
});

t.test('OIDC Core 5.4: the phone scope releases phone_number and nothing else', async (t) => {
  const res = await getUserinfo((await tokensFor('openid phone')).accessToken);
  t.equal(res.statusCode, 200, res.body);
  t.same(res.json(), { sub: res.json().sub, phone_number: ALICE.phone_number });
});

t.test('the groups scope releases the groups claim (Keycloak and ZITADEL name it so) at userinfo and in the ID token', async (t) => {
  // Alice: Bob is disabled by an earlier test of this file.
  const alice = await db.selectFrom('users').select(['id', 'claims']).where('username', '=', ALICE.username).executeTakeFirstOrThrow();
  const setGroups = (groups: unknown) =>
    db
      .updateTable('users')
      .set({ claims: JSON.stringify({ ...alice.claims, groups }) as never })
      .where('id', '=', alice.id)
      .execute();
  t.teardown(() => setGroups(undefined));
  await setGroups(['staff', 'admins']);
  const withGroups = await tokensFor('openid groups');
  const res = await getUserinfo(withGroups.accessToken);
  t.equal(res.statusCode, 200, res.body);
  // Sorted: the claim is the sorted union of local groups and mapped ones (docs/groups.md).
  t.same(res.json(), { sub: res.json().sub, groups: ['admins', 'staff'] });
  t.same(decodeJwt(withGroups.idToken!).groups, ['admins', 'staff'], 'the ID token carries them too');
  // OIDC Core 5.4: a claim goes only with the scope that releases it.
  const profile = await getUserinfo((await tokensFor('openid profile')).accessToken);
  t.notOk('groups' in profile.json(), 'not with the profile scope');
  // The claims are JSON read back: anything but a list of names is not released as groups.
  await setGroups(['staff', 42]);
  const bad = await getUserinfo((await tokensFor('openid groups')).accessToken);
  t.same(bad.json(), { sub: bad.json().sub });
});

t.test('RFC 6750 3.1: a token granted without the openid scope is refused with 403 insufficient_scope', async (t) => {
  const { accessToken, idToken } = await tokensFor('profile email');
  t.equal(idToken, undefined);
  const res = await getUserinfo(accessToken);
  assertBearerError(t, res, 403, 'insufficient_scope', accessToken);
  t.match(res.headers['www-authenticate'], 'scope="openid"');
});
