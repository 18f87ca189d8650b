// The user claims in ID tokens (OIDC Core 5.4): the scope-granted ones by default, none when minimal (ID_TOKEN_CLAIMS,
// a client's id_token_claims), from every grant that issues an ID token.
import { decodeJwt } from 'jose';
import t from 'tap';
import type { SeedFile } from '../../../src/domain/admin/seed.js';
import { ALICE, buildTestApp, CONFIDENTIAL, FIXTURES } from '../../helpers/app.js';
import { DEVICE_FIXTURES, poll, startDevice, verify } from '../../helpers/device.js';
import { basicAuth } from '../../helpers/flow.js';
import { codeTokens, GRANT_FIXTURES, offlineTokens, refreshRequest, userinfo } from '../../helpers/grants.js';
import { postRegistration, REGISTRATION_ENV, WEB_METADATA } from '../../helpers/registration.js';

/** A client that asks for minimal ID tokens, and one that asks for scope claims whatever the setting says. */
const MINIMAL = { ...CONFIDENTIAL, client_id: 'minimal', id_token_claims: 'minimal' };
const WITH_CLAIMS = { ...CONFIDENTIAL, client_id: 'with-claims', id_token_claims: 'scopes' };
const SEED: SeedFile = {
  clients: [...GRANT_FIXTURES.clients, ...DEVICE_FIXTURES.clients.filter((c) => !FIXTURES.clients.includes(c)), MINIMAL, WITH_CLAIMS],
  users: FIXTURES.users,
};
const PROTOCOL_CLAIMS = ['iss', 'sub', 'aud', 'iat', 'exp', 'auth_time', 'at_hash', 'nonce', 'sid', 'amr'];

const { app } = await buildTestApp(t, { seed: SEED, env: REGISTRATION_ENV });
const minimalApp = await buildTestApp(t, { seed: SEED, env: { ID_TOKEN_CLAIMS: 'minimal' } });

const userClaimsOf = (idToken: string | undefined) =>
  Object.fromEntries(Object.entries(decodeJwt(idToken!)).filter(([name]) => !PROTOCOL_CLAIMS.includes(name)));

t.test('OIDC Core 5.4: by default the ID token carries the claims of the granted profile and email scopes', async (t) => {
  const tokens = await codeTokens(app, CONFIDENTIAL, basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret), 'openid profile email');
  const claims = userClaimsOf(tokens.id_token);
  t.equal(claims.name, ALICE.name);
  t.equal(claims.given_name, ALICE.given_name);
  t.equal(claims.family_name, ALICE.family_name);
  t.equal(claims.preferred_username, ALICE.username);
  t.equal(claims.email, ALICE.email);
  t.equal(claims.email_verified, true);
  t.notOk('phone_number' in claims, 'the phone scope was not granted: no phone_number');
  const info = (await userinfo(app, tokens.access_token)).json() as Record<string, unknown>;
  t.same({ ...claims, sub: info.sub }, info, 'the same claims as userinfo');
});

t.test('OIDC Core 5.4: the ID token releases only the scopes granted (openid email: no profile claims)', async (t) => {
  const tokens = await codeTokens(app, CONFIDENTIAL, basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret), 'openid email');
  t.same(Object.keys(userClaimsOf(tokens.id_token)).sort(), ['email', 'email_verified']);
  const bare = await codeTokens(app, CONFIDENTIAL, basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret), 'openid');
  t.same(userClaimsOf(bare.id_token), {}, 'openid alone releases no user claim');
});

t.test('OIDC Core 12.2: the ID token of a refresh carries the scope claims too', async (t) => {
  const tokens = await offlineTokens(app);
  const res = await refreshRequest(app, tokens.refresh_token);
  t.equal(res.statusCode, 200, res.body);
  t.equal(userClaimsOf(res.json().id_token).name, ALICE.name);
});

t.test('RFC 8628 3.5: the ID token of an approved device request carries the scope claims too', async (t) => {
  const device = await startDevice(app, { scope: 'openid profile email' });
  await verify(app, device.user_code);
  const res = await poll(app, device.device_code);
  t.equal(res.statusCode, 200, res.body);
  const claims = userClaimsOf(res.json().id_token);
  t.equal(claims.name, ALICE.name);
  t.equal(claims.email, ALICE.email);
});

t.test('OIDC Core 5.4: a client registered with id_token_claims "minimal" gets no user claims in its ID tokens', async (t) => {
  const tokens = await codeTokens(app, MINIMAL, basicAuth(MINIMAL.client_id, MINIMAL.client_secret), 'openid profile email');
  t.same(userClaimsOf(tokens.id_token), {});
  const info = (await userinfo(app, tokens.access_token)).json() as Record<string, unknown>;
  t.equal(info.name, ALICE.name, 'userinfo still releases them');
  t.equal(info.email, ALICE.email);
});

t.test('OIDC Core 5.4: ID_TOKEN_CLAIMS=minimal keeps user claims out of ID tokens, at userinfo only', async (t) => {
  const a = minimalApp.app;
  const tokens = await codeTokens(a, CONFIDENTIAL, basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret), 'openid profile email');
  t.same(userClaimsOf(tokens.id_token), {});
  t.equal(((await userinfo(a, tokens.access_token)).json() as Record<string, unknown>).email, ALICE.email);
  const refreshed = await refreshRequest(a, (await offlineTokens(a)).refresh_token);
  t.same(userClaimsOf(refreshed.json().id_token), {}, 'nor at refresh');
});

t.test('a client with id_token_claims "scopes" gets the claims under ID_TOKEN_CLAIMS=minimal', async (t) => {
  const tokens = await codeTokens(minimalApp.app, WITH_CLAIMS, basicAuth(WITH_CLAIMS.client_id, WITH_CLAIMS.client_secret), 'openid email');
  t.same(userClaimsOf(tokens.id_token), { email: ALICE.email, email_verified: true });
});

t.test('RFC 7591 2: id_token_claims is registered and returned; another value is invalid_client_metadata', async (t) => {
  const ok = await postRegistration(app, { ...WEB_METADATA, id_token_claims: 'minimal' });
  t.equal(ok.statusCode, 201, ok.body);
  t.equal(ok.json().id_token_claims, 'minimal');
  const bad = await postRegistration(app, { ...WEB_METADATA, id_token_claims: 'all' });
  t.equal(bad.statusCode, 400, bad.body);
  t.equal(bad.json().error, 'invalid_client_metadata');
  t.match(bad.json().error_description, /id_token_claims must be one of scopes, minimal/);
});
