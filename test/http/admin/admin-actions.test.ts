// What the admin actions (src/domain/clients/client-admin.ts, user-admin.ts; the admin command line's verbs) do to a
// running instance: one that remembers a client in memory refuses it at once after a change, and a disabled user's
// tokens stay dead after the user is enabled again.
import pino from 'pino';
import t from 'tap';
import type { AdminContext } from '../../../src/domain/admin/admin.js';
import { deleteClient, rotateClientSecret, updateClient } from '../../../src/domain/clients/client-admin.js';
import { PasswordPolicy } from '../../../src/domain/accounts/password-policy.js';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { applySeed } from '../../../src/domain/admin/seed.js';
import { disableUser, enableUser } from '../../../src/domain/admin/user-admin.js';
import { ALICE, buildTestApp, CONFIDENTIAL } from '../../helpers/app.js';
import { basicAuth, obtainCode, tokenRequest } from '../../helpers/flow.js';

const { app, db, config } = await buildTestApp(t);
const admin: AdminContext = {
  config,
  db,
  clock: () => new Date(),
  log: pino({ level: 'silent' }),
  passwords: new PasswordHasher(config.argon2),
  passwordPolicy: new PasswordPolicy(config.passwordPolicy),
};
const reseed = () => applySeed(db, admin.passwords, { clients: [CONFIDENTIAL], users: [ALICE] });

/** Redeems a code, which also leaves the client and its secret remembered by the instance. */
async function redeem(secret = CONFIDENTIAL.client_secret) {
  const grant = await obtainCode(app, {}, { user: ALICE });
  return tokenRequest(
    app,
    { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri, code_verifier: grant.verifier },
    basicAuth(CONFIDENTIAL.client_id, secret),
  );
}

t.test('a secret rotated by the admin stops working at once on an instance that remembers the client', async (t) => {
  t.teardown(reseed);
  t.equal((await redeem()).statusCode, 200, 'the client and its secret are now remembered');
  const { clientSecret } = await rotateClientSecret(admin, CONFIDENTIAL.client_id);
  const old = await redeem();
  t.equal(old.statusCode, 401);
  t.equal(old.json().error, 'invalid_client');
  t.equal((await redeem(clientSecret)).statusCode, 200, 'the new secret works');
});

// Issue 16, finding 2: a generated secret (256 random bits) is a keyed digest, checked without argon2.
t.test('a secret the admin generates is stored as a keyed digest, which the instance verifies', async (t) => {
  t.teardown(reseed);
  const { clientSecret } = await rotateClientSecret(admin, CONFIDENTIAL.client_id);
  const row = await db
    .selectFrom('clients')
    .select('client_secret_hash')
    .where('client_id', '=', CONFIDENTIAL.client_id)
    .executeTakeFirst();
  t.match(row?.client_secret_hash, /^hmac-sha256\$/);
  t.equal((await redeem(clientSecret)).statusCode, 200);
  t.equal((await redeem(`${clientSecret}x`)).statusCode, 401, 'RFC 6749 2.3.1: a wrong secret is refused');
});

t.test('a redirect URI the admin removed is refused at once by an instance that remembers the client', async (t) => {
  t.teardown(reseed);
  t.equal((await redeem()).statusCode, 200);
  await updateClient(admin, CONFIDENTIAL.client_id, { set: { redirect_uris: [CONFIDENTIAL.redirect_uris[1]!] }, remove: [] });
  const page = await app.inject({
    url: `/sso/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: CONFIDENTIAL.client_id,
      redirect_uri: CONFIDENTIAL.redirect_uris[0]!,
      scope: 'openid',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    })}`,
  });
  t.equal(page.statusCode, 400, 'an error page, never a redirect');
  t.notOk(page.headers.location);
  t.match(page.body, 'The redirect_uri is not registered for this application.');
});

t.test('a client the admin deleted is refused at once by an instance that remembers it', async (t) => {
  t.teardown(reseed);
  const grant = await obtainCode(app, {}, { user: ALICE });
  t.equal((await redeem()).statusCode, 200);
  await deleteClient(admin, CONFIDENTIAL.client_id);
  const res = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.verifier,
  });
  t.equal(res.statusCode, 401);
  t.equal(res.json().error, 'invalid_client');
});

t.test("a disabled user's access token is refused, and stays refused once the user is enabled again", async (t) => {
  t.teardown(reseed);
  const tokens = (await redeem()).json() as { access_token: string };
  const userinfo = () => app.inject({ url: '/sso/userinfo', headers: { authorization: `Bearer ${tokens.access_token}` } });
  t.equal((await userinfo()).statusCode, 200);
  const disabled = await disableUser(admin, ALICE.username);
  t.match(disabled, { alreadyDisabled: false });
  t.ok(disabled.sessionsEnded >= 1 && disabled.accessTokensRevoked >= 1, "this sign-in's session and token among them");
  t.equal((await userinfo()).statusCode, 401);
  t.match(await enableUser(admin, ALICE.username), { changed: true });
  t.equal((await userinfo()).statusCode, 401, 'revoked for good');
  t.equal((await redeem()).statusCode, 200, 'the user signs in again');
});
