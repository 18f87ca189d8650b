// The refresh_token grant over HTTP (RFC 6749 6, 10.4; OIDC Core 11, 12; RFC 9700 4.14.2).
import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import t from 'tap';
import { sha256, storedKey } from '../../../src/domain/secrets.js';
import { BOB, buildTestApp, CONFIDENTIAL } from '../../helpers/app.js';
import { authorizePath, Browser, formAction, hiddenField, localPath, obtainCode, tokenRequest } from '../../helpers/flow.js';
import {
  assertOAuthError,
  assertRepeatRefused,
  codeTokens,
  CONFIDENTIAL_BASIC,
  disableUser,
  GRANT_FIXTURES,
  OFFLINE_SCOPE,
  offlineTokens,
  OTHER_RP_BASIC,
  PUBLIC_REFRESHING,
  REFRESHING,
  REFRESHING_BASIC,
  refreshRequest,
  userinfo,
} from '../../helpers/grants.js';

const REFRESH_TTL = 7200;
const { app, db, config, advance } = await buildTestApp(t, {
  seed: GRANT_FIXTURES,
  env: { REFRESH_TOKEN_TTL_SECONDS: String(REFRESH_TTL) },
});

function refreshRow(value: string) {
  return db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', storedKey(value)).executeTakeFirst();
}

// ---- issuing (OIDC Core 11) ----

t.test('OIDC Core 11: a code granted offline_access to a client allowed refresh_token also yields a refresh token', async (t) => {
  const tokens = await offlineTokens(app);
  t.same(Object.keys(tokens).sort(), ['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
  t.equal(tokens.scope, OFFLINE_SCOPE);
  t.match(tokens.refresh_token, /^[0-9a-f]{12}[A-Za-z0-9_-]{43}$/, 'the moment it was made, then 256 random bits, base64url');
  t.not(tokens.refresh_token, tokens.access_token);

  const row = await refreshRow(tokens.refresh_token);
  t.ok(row, 'the refresh token is stored by its SHA-256 digest');
  // Issue 21: the key starts with the moment of issue, so that new rows land at the right edge of the index.
  t.equal(parseInt(row!.token_hash.slice(0, 12), 16), row!.issued_at.getTime(), 'after the moment it was issued');
  t.match(row!.family_id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'its family id a UUID version 7');
  t.equal(row!.client_id, REFRESHING.client_id);
  t.equal(row!.scope, OFFLINE_SCOPE);
  t.equal(row!.rotated_at, null);
  t.equal(row!.revoked_at, null);
  t.equal(row!.expires_at.getTime() - row!.issued_at.getTime(), REFRESH_TTL * 1000, 'it lives REFRESH_TOKEN_TTL_SECONDS');
  const stored = await db.selectFrom('refresh_tokens').select('token_hash').execute();
  t.notOk(
    stored.some((r) => r.token_hash === tokens.refresh_token),
    'the value itself is never stored',
  );

  const access = await db
    .selectFrom('access_tokens')
    .selectAll()
    .where('token_hash', '=', storedKey(tokens.access_token))
    .executeTakeFirstOrThrow();
  t.equal(access.refresh_family_id, row!.family_id, 'the access token is linked to the refresh token family');
});

t.test('tokens issued before timed keys, stored under the plain digest of their value, still work after the upgrade', async (t) => {
  const tokens = await offlineTokens(app);
  // What an earlier version handed out: 256 random bits, the row under their SHA-256 digest alone.
  const olderRefresh = randomBytes(32).toString('base64url');
  const olderAccess = randomBytes(32).toString('base64url');
  await db
    .updateTable('refresh_tokens')
    .set({ token_hash: sha256(olderRefresh) })
    .where('token_hash', '=', storedKey(tokens.refresh_token))
    .execute();
  await db
    .updateTable('access_tokens')
    .set({ token_hash: sha256(olderAccess) })
    .where('token_hash', '=', storedKey(tokens.access_token))
    .execute();
  t.equal((await userinfo(app, olderAccess)).statusCode, 200, 'the access token reads userinfo');
  const refreshed = await refreshRequest(app, olderRefresh);
  t.equal(refreshed.statusCode, 200, 'the refresh token rotates');
  t.match(refreshed.json().refresh_token, /^[0-9a-f]{12}/, 'into a timed one');
  t.equal((await refreshRequest(app, tokens.refresh_token)).statusCode, 400, 'the timed value never had that row');
});

t.test('OIDC Core 11: without offline_access in the granted scope no refresh token is issued', async (t) => {
  const tokens = await codeTokens(app, REFRESHING, REFRESHING_BASIC, 'openid profile');
  t.equal(tokens.refresh_token, undefined);
  t.equal(tokens.scope, 'openid profile');
  const access = await db
    .selectFrom('access_tokens')
    .selectAll()
    .where('token_hash', '=', storedKey(tokens.access_token))
    .executeTakeFirstOrThrow();
  t.equal(access.refresh_family_id, null);
});

t.test('OIDC Core 11: offline_access is ignored for a client not registered for the refresh_token grant', async (t) => {
  const tokens = await codeTokens(app, CONFIDENTIAL, CONFIDENTIAL_BASIC, 'openid offline_access');
  t.equal(tokens.scope, 'openid', 'offline_access was dropped from the request');
  t.equal(tokens.refresh_token, undefined);
});

t.test('OIDC Core 11: the consent page asks the user for offline access in words', async (t) => {
  // Bob has never consented to this client, so the consent page is shown.
  const browser = new Browser();
  let res = await browser.request(
    app,
    'GET',
    authorizePath({
      response_type: 'code',
      client_id: REFRESHING.client_id,
      redirect_uri: REFRESHING.redirect_uris[0],
      scope: 'openid offline_access',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }),
  );
  for (let step = 0; step < 6; step += 1) {
    if (res.statusCode === 302 || res.statusCode === 303) {
      res = await browser.request(app, 'GET', localPath(String(res.headers.location)));
    } else if (res.statusCode === 200 && res.body.includes('type="password"')) {
      res = await browser.request(app, 'POST', formAction(res.body), {
        csrf: hiddenField(res.body, 'csrf'),
        login: BOB.username,
        password: BOB.password,
      });
    } else {
      break;
    }
  }
  t.equal(res.statusCode, 200, 'the consent page');
  t.match(res.body, 'name="decision"');
  t.match(res.body, 'Keep access while you are not using the app');
});

t.test('RFC 6749 4.1.2: a replayed code revokes the refresh token issued from it and what that refresh token issued', async (t) => {
  const grant = await obtainCode(app, { client_id: REFRESHING.client_id, redirect_uri: REFRESHING.redirect_uris[0], scope: OFFLINE_SCOPE });
  const form = { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri!, code_verifier: grant.verifier };
  const first = (await tokenRequest(app, form, REFRESHING_BASIC)).json();
  const refreshed = (await refreshRequest(app, first.refresh_token)).json();
  t.equal((await userinfo(app, refreshed.access_token)).statusCode, 200);

  const replay = await tokenRequest(app, form, REFRESHING_BASIC);
  assertOAuthError(t, replay, { status: 400, error: 'invalid_grant', description: 'the authorization code was already used' });
  assertOAuthError(t, await refreshRequest(app, refreshed.refresh_token), {
    status: 400,
    error: 'invalid_grant',
    description: 'the refresh token was revoked',
  });
  t.equal((await userinfo(app, refreshed.access_token)).statusCode, 401, 'the access token from the refresh is revoked');
  t.equal((await userinfo(app, first.access_token)).statusCode, 401, 'the access token from the code is revoked');
});

// ---- refreshing (RFC 6749 6, OIDC Core 12) ----

t.test(
  'RFC 6749 6, OIDC Core 12.2: a refresh gives a new access token, a new refresh token and an ID token with the same sub and auth_time and no nonce',
  async (t) => {
    const first = await offlineTokens(app);
    const original = decodeJwt(first.id_token!);
    advance(30);
    const res = await refreshRequest(app, first.refresh_token);
    t.equal(res.statusCode, 200, res.body);
    t.equal(res.headers['cache-control'], 'no-store');
    t.equal(res.headers.pragma, 'no-cache');
    const body = res.json();
    t.same(Object.keys(body).sort(), ['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
    t.equal(body.token_type, 'Bearer');
    t.equal(body.expires_in, config.accessTokenTtlSeconds);
    t.equal(body.scope, OFFLINE_SCOPE);
    t.not(body.access_token, first.access_token);
    t.not(body.refresh_token, first.refresh_token, 'the refresh token is rotated');

    const claims = decodeJwt(body.id_token);
    t.equal(claims.iss, original.iss);
    t.equal(claims.sub, original.sub);
    t.equal(claims.aud, REFRESHING.client_id);
    t.equal(claims.auth_time, original.auth_time, 'auth_time is the original sign-in time');
    t.ok(claims.iat! >= original.iat! + 30, 'iat is the time of the refresh');
    t.equal(claims.nonce, undefined, 'OIDC Core 12.2: no nonce');
    t.type(claims.at_hash, 'string');

    const info = await userinfo(app, body.access_token);
    t.equal(info.statusCode, 200, info.body);
    t.equal(info.json().sub, original.sub);
    t.equal(info.json().name, 'Alice Liddell');

    const oldRow = await refreshRow(first.refresh_token);
    const newRow = await refreshRow(body.refresh_token);
    t.not(oldRow!.rotated_at, null, 'the old refresh token is marked rotated');
    t.equal(newRow!.family_id, oldRow!.family_id, 'the new refresh token continues the family');
    t.equal(newRow!.auth_time.getTime(), oldRow!.auth_time.getTime());
    t.equal(newRow!.rotated_at, null);
  },
);

t.test(
  'RFC 9700 4.14.2: a refresh token presented again after rotation fails with invalid_grant and revokes its whole family',
  async (t) => {
    const first = await offlineTokens(app);
    const second = (await refreshRequest(app, first.refresh_token)).json();
    t.equal((await userinfo(app, second.access_token)).statusCode, 200);

    const replay = await refreshRequest(app, first.refresh_token);
    assertOAuthError(t, replay, {
      status: 400,
      error: 'invalid_grant',
      description: 'the refresh token was already used',
      secrets: [first.refresh_token],
    });

    const afterReplay = await refreshRequest(app, second.refresh_token);
    assertOAuthError(t, afterReplay, { status: 400, error: 'invalid_grant', description: 'the refresh token was revoked' });
    t.equal((await userinfo(app, second.access_token)).statusCode, 401, 'the access token from the refresh is revoked');
    t.equal((await userinfo(app, first.access_token)).statusCode, 401, 'the access token from the code exchange is revoked');
    const family = await db
      .selectFrom('refresh_tokens')
      .select(['revoked_at'])
      .where('family_id', '=', (await refreshRow(first.refresh_token))!.family_id)
      .execute();
    t.equal(family.length, 2);
    t.ok(
      family.every((r) => r.revoked_at !== null),
      'every refresh token of the family is revoked',
    );
  },
);

t.test(
  'RFC 9700 4.14.2: of 10 concurrent refreshes with one token exactly one succeeds, and the replays revoke what it issued',
  async (t) => {
    const first = await offlineTokens(app);
    const responses = await Promise.all(Array.from({ length: 10 }, () => refreshRequest(app, first.refresh_token)));
    const won = responses.filter((r) => r.statusCode === 200);
    t.equal(won.length, 1, `statuses: ${responses.map((r) => r.statusCode).join(',')}`);
    t.same(new Set(responses.filter((r) => r.statusCode !== 200).map((r) => r.json().error)), new Set(['invalid_grant']));
    const winner = won[0]!.json();
    assertOAuthError(t, await refreshRequest(app, winner.refresh_token), { status: 400, error: 'invalid_grant' });
    const issued = await db
      .selectFrom('refresh_tokens')
      .select('token_hash')
      .where('family_id', '=', (await refreshRow(first.refresh_token))!.family_id)
      .execute();
    t.equal(issued.length, 2, 'one rotation happened');
  },
);

t.test('RFC 6749 6: a refresh token issued to another client is refused with invalid_grant and stays valid for its own', async (t) => {
  const first = await offlineTokens(app);
  const res = await refreshRequest(app, first.refresh_token, {}, OTHER_RP_BASIC);
  assertOAuthError(t, res, {
    status: 400,
    error: 'invalid_grant',
    description: 'the refresh token was issued to another client',
    secrets: [first.refresh_token],
  });
  const own = await refreshRequest(app, first.refresh_token);
  t.equal(own.statusCode, 200, own.body);
});

t.test('RFC 6749 5.2: an unknown refresh token is refused with invalid_grant', async (t) => {
  const res = await refreshRequest(app, 'not-a-refresh-token');
  assertOAuthError(t, res, { status: 400, error: 'invalid_grant', description: 'the refresh token is invalid' });
});

t.test('RFC 6749 5.2: an access token sent as a refresh token is refused with invalid_grant', async (t) => {
  const first = await offlineTokens(app);
  assertOAuthError(t, await refreshRequest(app, first.access_token), {
    status: 400,
    error: 'invalid_grant',
    secrets: [first.access_token],
  });
});

t.test('RFC 6749 5.2: an expired refresh token is refused with invalid_grant', async (t) => {
  const first = await offlineTokens(app);
  advance(REFRESH_TTL + 1);
  const res = await refreshRequest(app, first.refresh_token);
  assertOAuthError(t, res, { status: 400, error: 'invalid_grant', description: 'the refresh token has expired' });
});

t.test('RFC 6749 5.2: the refresh token of a disabled user is refused with invalid_grant', async (t) => {
  const first = await offlineTokens(app);
  await disableUser(t, db);
  const res = await refreshRequest(app, first.refresh_token);
  assertOAuthError(t, res, { status: 400, error: 'invalid_grant', description: 'the refresh token is invalid' });
});

t.test('RFC 6749 6: a narrower scope is granted to the access token while the new refresh token keeps the original scope', async (t) => {
  const first = await offlineTokens(app);
  const narrow = await refreshRequest(app, first.refresh_token, { scope: 'profile' });
  t.equal(narrow.statusCode, 200, narrow.body);
  const body = narrow.json();
  t.equal(body.scope, 'profile');
  t.equal(body.id_token, undefined, 'no ID token once openid is left out');
  const info = await userinfo(app, body.access_token);
  t.equal(info.statusCode, 403, 'the narrowed access token has no openid scope');
  t.equal((await refreshRow(body.refresh_token))!.scope, OFFLINE_SCOPE, 'RFC 6749 6: the refresh token scope is identical');

  const full = await refreshRequest(app, body.refresh_token);
  t.equal(full.statusCode, 200, full.body);
  t.equal(full.json().scope, OFFLINE_SCOPE, 'a later refresh without scope gets the original scope back');
  t.type(full.json().id_token, 'string');
});

t.test('RFC 6749 6: a wider scope is refused with invalid_scope and does not use up the refresh token', async (t) => {
  const first = await offlineTokens(app);
  const wider = await refreshRequest(app, first.refresh_token, { scope: 'openid email' });
  assertOAuthError(t, wider, {
    status: 400,
    error: 'invalid_scope',
    description: 'the requested scope exceeds the scope originally granted',
  });
  const unknown = await refreshRequest(app, first.refresh_token, { scope: 'openid admin' });
  assertOAuthError(t, unknown, { status: 400, error: 'invalid_scope' });
  t.equal((await refreshRow(first.refresh_token))!.rotated_at, null, 'the token is not rotated');
  t.equal((await refreshRequest(app, first.refresh_token)).statusCode, 200);
});

t.test('RFC 6749 3.1: a refresh request without refresh_token is refused with invalid_request', async (t) => {
  const res = await tokenRequest(app, { grant_type: 'refresh_token' }, REFRESHING_BASIC);
  assertOAuthError(t, res, { status: 400, error: 'invalid_request', description: 'parameter refresh_token is required' });
});

t.test('RFC 6749 3.1: a repeated refresh_token parameter is refused with invalid_request', async (t) => {
  await assertRepeatRefused(t, app, '/sso/token', 'grant_type=refresh_token&refresh_token=a&refresh_token=b', 'refresh_token');
});

t.test('RFC 6749 5.2: a client not registered for the refresh_token grant is refused with unauthorized_client', async (t) => {
  const res = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: 'whatever' }, CONFIDENTIAL_BASIC);
  assertOAuthError(t, res, { status: 400, error: 'unauthorized_client', description: 'this client may not use refresh_token' });
});

t.test('RFC 6749 6: a public client refreshes with its client_id and rotation applies to it too', async (t) => {
  const first = await codeTokens(app, PUBLIC_REFRESHING, undefined, 'openid offline_access');
  t.type(first.refresh_token, 'string');
  const res = await refreshRequest(app, first.refresh_token!, { client_id: PUBLIC_REFRESHING.client_id }, '');
  t.equal(res.statusCode, 200, res.body);
  t.not(res.json().refresh_token, first.refresh_token);
  const replay = await refreshRequest(app, first.refresh_token!, { client_id: PUBLIC_REFRESHING.client_id }, '');
  assertOAuthError(t, replay, { status: 400, error: 'invalid_grant', description: 'the refresh token was already used' });
});
