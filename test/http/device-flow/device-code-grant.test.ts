// The device_code grant at the token endpoint (RFC 8628 3.4-3.5): each polling answer, the tokens of an approved
// request, single use, and what one poll costs.
import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import pino from 'pino';
import t, { type Test } from 'tap';
import { buildApp } from '../../../src/app.js';
import { buildTestApp, CONFIDENTIAL } from '../../helpers/app.js';
import { buildCountingApp } from '../../helpers/counting.js';
import { CLI, DEVICE_CODE_GRANT, DEVICE_FIXTURES, poll, startDevice, TV, TV_BASIC, verify } from '../../helpers/device.js';
import { basicAuth, tokenRequest } from '../../helpers/flow.js';

const { app, db, config, advance } = await buildTestApp(t, { seed: DEVICE_FIXTURES });
const CLI_AUTH = '';

/** A token request for the public CLI client (its client_id in the body). */
const pollAsCli = (deviceCode: string) => poll(app, deviceCode, CLI_AUTH, { client_id: CLI.client_id });

function assertError(t: Test, res: LightMyRequestResponse, error: string, secrets: readonly string[] = []): void {
  t.equal(res.statusCode, 400, res.body);
  t.equal(res.headers['cache-control'], 'no-store', 'never cached');
  const body = res.json() as Record<string, unknown>;
  t.same(Object.keys(body).sort(), ['error', 'error_description']);
  t.equal(body.error, error);
  t.match(body.error_description, /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/, 'error_description is safe ASCII (RFC 6749 5.2)');
  for (const secret of secrets) t.notOk(res.body.includes(secret), 'no code is echoed');
}

function userinfo(accessToken: string) {
  return app.inject({ method: 'GET', url: '/sso/userinfo', headers: { authorization: `Bearer ${accessToken}` } });
}

async function storedInterval(deviceCode: string): Promise<number> {
  const hash = createHash('sha256').update(deviceCode).digest('base64url');
  const row = await db
    .selectFrom('device_authorizations')
    .select('interval_seconds')
    .where('device_code_hash', '=', hash)
    .executeTakeFirstOrThrow();
  return row.interval_seconds;
}

t.test('a device polling before the user has decided gets authorization_pending', async (t) => {
  const device = await startDevice(app);
  assertError(t, await poll(app, device.device_code), 'authorization_pending', [device.device_code]);
});

t.test('a device polling at the interval is never slowed down', async (t) => {
  const device = await startDevice(app);
  for (let i = 0; i < 3; i += 1) {
    assertError(t, await poll(app, device.device_code), 'authorization_pending');
    advance(5);
  }
});

t.test(
  'polling sooner than the interval is slow_down, and the interval grows by 5 seconds for this and later polls (RFC 8628 3.5)',
  async (t) => {
    const device = await startDevice(app);
    assertError(t, await poll(app, device.device_code), 'authorization_pending');
    assertError(t, await poll(app, device.device_code), 'slow_down');
    t.equal(await storedInterval(device.device_code), 10, 'the interval went from 5 to 10 seconds');
    advance(10);
    assertError(t, await poll(app, device.device_code), 'authorization_pending', []);
    advance(6);
    assertError(t, await poll(app, device.device_code), 'slow_down');
    t.equal(await storedInterval(device.device_code), 15, '6 seconds, enough before the first slow_down, is too soon now');
  },
);

t.test('a denied request is access_denied, on every later poll too', async (t) => {
  const device = await startDevice(app);
  await verify(app, device.user_code, { decision: 'deny' });
  assertError(t, await poll(app, device.device_code), 'access_denied');
  advance(5);
  assertError(t, await poll(app, device.device_code), 'access_denied');
});

t.test('an expired request is expired_token', async (t) => {
  const device = await startDevice(app);
  advance(config.deviceFlow.codeTtlSeconds + 1);
  assertError(t, await poll(app, device.device_code), 'expired_token');
});

t.test('an approved request that expired before the device polled is expired_token', async (t) => {
  const device = await startDevice(app);
  await verify(app, device.user_code);
  advance(config.deviceFlow.codeTtlSeconds + 1);
  assertError(t, await poll(app, device.device_code), 'expired_token');
});

t.test('an approved request gives an access token, an ID token of the approving sign-in and a refresh token, never cached', async (t) => {
  const before = Math.floor(Date.now() / 1000);
  const device = await startDevice(app, { scope: 'openid profile offline_access' });
  await verify(app, device.user_code);
  const res = await poll(app, device.device_code);
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.headers['cache-control'], 'no-store');
  t.equal(res.headers.pragma, 'no-cache');
  const body = res.json() as Record<string, string | number>;
  t.same(Object.keys(body).sort(), ['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
  t.equal(body.token_type, 'Bearer');
  t.equal(body.scope, 'openid profile offline_access');
  t.equal(body.expires_in, config.accessTokenTtlSeconds);

  const jwks = (await app.inject({ method: 'GET', url: '/sso/jwks' })).json() as JSONWebKeySet;
  const { payload } = await jwtVerify(body.id_token as string, createLocalJWKSet(jwks), { issuer: config.issuer, audience: TV.client_id });
  const alice = await db.selectFrom('users').select('id').where('username', '=', 'alice').executeTakeFirstOrThrow();
  const session = await db
    .selectFrom('sessions')
    .select(['sid', 'auth_time', 'amr'])
    .where('user_id', '=', alice.id)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  t.equal(payload.sub, alice.id);
  t.equal(payload.sid, session.sid, 'sid of the session that approved');
  t.same(payload.amr, session.amr, 'amr of that session');
  t.same(payload.amr, ['pwd']);
  t.equal(payload.auth_time, Math.floor(session.auth_time.getTime() / 1000), 'auth_time of that sign-in');
  t.ok((payload.auth_time as number) >= before - 1);
  t.notOk('nonce' in payload, 'no authorization request, no nonce');
  t.type(payload.at_hash, 'string');

  const info = await userinfo(body.access_token as string);
  t.equal(info.statusCode, 200, info.body);
  t.equal((info.json() as Record<string, unknown>).name, 'Alice Liddell');

  const refreshed = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: body.refresh_token as string }, TV_BASIC);
  t.equal(refreshed.statusCode, 200, refreshed.body);
});

t.test('the approving session signed in to the client, so its logout reaches the device (Back-Channel Logout)', async (t) => {
  const device = await startDevice(app, { scope: 'openid' });
  await verify(app, device.user_code);
  const idToken = (await poll(app, device.device_code)).json().id_token as string;
  const sid = JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString()).sid as string;
  const row = await db
    .selectFrom('session_clients')
    .selectAll()
    .where('sid', '=', sid)
    .where('client_id', '=', TV.client_id)
    .executeTakeFirst();
  t.ok(row, 'session_clients names the device client');
});

t.test('without offline_access there is no refresh token', async (t) => {
  const device = await startDevice(app, { scope: 'openid email' });
  await verify(app, device.user_code);
  const res = await poll(app, device.device_code);
  t.equal(res.statusCode, 200, res.body);
  t.notOk('refresh_token' in res.json());
});

t.test('without openid there is no ID token', async (t) => {
  const device = await startDevice(app, { scope: 'profile' });
  await verify(app, device.user_code);
  const res = await poll(app, device.device_code);
  t.equal(res.statusCode, 200, res.body);
  t.notOk('id_token' in res.json());
});

t.test('a replayed device code is invalid_grant and revokes the tokens it gave', async (t) => {
  const device = await startDevice(app, { scope: 'openid profile offline_access' });
  await verify(app, device.user_code);
  const first = (await poll(app, device.device_code)).json() as Record<string, string>;
  t.equal((await userinfo(first.access_token!)).statusCode, 200, 'the access token works before the replay');
  advance(5);
  assertError(t, await poll(app, device.device_code), 'invalid_grant', [device.device_code]);
  t.equal((await userinfo(first.access_token!)).statusCode, 401, 'the access token is revoked');
  const refreshed = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: first.refresh_token! }, TV_BASIC);
  t.equal(refreshed.json().error, 'invalid_grant', 'the refresh token is revoked');
});

t.test("another client's device code is invalid_grant and leaves the request to its client", async (t) => {
  const device = await startDevice(app);
  const res = await pollAsCli(device.device_code);
  assertError(t, res, 'invalid_grant');
  t.match(res.json().error_description, /another client/);
  await verify(app, device.user_code);
  t.equal((await poll(app, device.device_code)).statusCode, 200, 'the rightful client still gets its tokens');
});

t.test('an unknown device code is invalid_grant', async (t) => {
  assertError(t, await poll(app, 'no-such-device-code-0123456789abcdefghijklmn'), 'invalid_grant');
});

t.test('a token request without device_code is invalid_request', async (t) => {
  const res = await tokenRequest(app, { grant_type: DEVICE_CODE_GRANT }, TV_BASIC);
  assertError(t, res, 'invalid_request');
});

t.test('a public client polls with its client_id alone and gets its tokens', async (t) => {
  const device = await startDevice(app, { scope: 'openid', client_id: CLI.client_id }, { auth: '' });
  assertError(t, await pollAsCli(device.device_code), 'authorization_pending');
  await verify(app, device.user_code);
  const res = await pollAsCli(device.device_code);
  t.equal(res.statusCode, 200, res.body);
  t.type(res.json().id_token, 'string');
});

t.test('a confidential client polling without its secret is invalid_client', async (t) => {
  const device = await startDevice(app);
  const res = await poll(app, device.device_code, '', { client_id: TV.client_id });
  t.equal(res.statusCode, 401);
  t.equal(res.json().error, 'invalid_client');
});

t.test('a client whose grant_types lack the grant is unauthorized_client at the token endpoint', async (t) => {
  const device = await startDevice(app);
  const res = await poll(app, device.device_code, basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret));
  assertError(t, res, 'unauthorized_client');
});

t.test('two polls at once of an approved request give tokens once', async (t) => {
  const device = await startDevice(app);
  await verify(app, device.user_code);
  const answers = await Promise.all([poll(app, device.device_code), poll(app, device.device_code), poll(app, device.device_code)]);
  t.same(answers.map((a) => a.statusCode).sort(), [200, 400, 400], answers.map((a) => a.body).join('\n'));
});

t.test('a user disabled after approving gets no tokens', async (t) => {
  const disabled = await buildTestApp(t, { seed: DEVICE_FIXTURES });
  const device = await startDevice(disabled.app);
  await verify(disabled.app, device.user_code);
  await disabled.db.updateTable('users').set({ disabled_at: new Date() }).where('username', '=', 'alice').execute();
  const res = await poll(disabled.app, device.device_code);
  assertError(t, res, 'invalid_grant');
});

t.test('a client changed while its device polls is read afresh, and the poll goes on', async (t) => {
  const changing = await buildTestApp(t, { seed: DEVICE_FIXTURES });
  const device = await startDevice(changing.app);
  assertError(t, await poll(changing.app, device.device_code), 'authorization_pending', []);
  await changing.db.updateTable('clients').set({ client_name: 'Renamed TV' }).where('client_id', '=', TV.client_id).execute();
  changing.advance(5);
  assertError(t, await poll(changing.app, device.device_code), 'authorization_pending', []);
});

t.test('a client that loses the grant while its device polls gets unauthorized_client', async (t) => {
  const changing = await buildTestApp(t, { seed: DEVICE_FIXTURES });
  const device = await startDevice(changing.app);
  assertError(t, await poll(changing.app, device.device_code), 'authorization_pending', []);
  await changing.db
    .updateTable('clients')
    .set({ grant_types: ['refresh_token'] })
    .where('client_id', '=', TV.client_id)
    .execute();
  changing.advance(5);
  assertError(t, await poll(changing.app, device.device_code), 'unauthorized_client', []);
});

t.test('two instances on one database: requested on one, approved on the other, slowed down and redeemed across', async (t) => {
  let offsetMs = 0;
  const clock = () => new Date(Date.now() + offsetMs);
  const first = await buildTestApp(t, { seed: DEVICE_FIXTURES, clock });
  const second = await buildApp(first.config, { db: first.db, logger: pino({ level: 'silent' }), clock, notifier: null });
  t.teardown(() => second.close());
  await second.ready();
  const device = await startDevice(first.app);
  assertError(t, await poll(first.app, device.device_code), 'authorization_pending', []);
  assertError(t, await poll(second, device.device_code), 'slow_down', []);
  await verify(second, device.user_code);
  offsetMs += 10_000;
  t.equal((await poll(first.app, device.device_code)).statusCode, 200, 'approved on the second, redeemed on the first');
  assertError(t, await poll(second, device.device_code), 'invalid_grant', []);
});

t.test('a pending poll, and a slow_down, cost one database statement once the client is known', async (t) => {
  const { app: counted, counter, advance } = await buildCountingApp(t, DEVICE_FIXTURES);
  const device = await startDevice(counted);
  assertError(t, await poll(counted, device.device_code), 'authorization_pending');
  advance(5);
  counter.count = 0;
  assertError(t, await poll(counted, device.device_code), 'authorization_pending');
  t.equal(counter.count, 1, 'authorization_pending: one statement');
  counter.count = 0;
  assertError(t, await poll(counted, device.device_code), 'slow_down');
  t.equal(counter.count, 1, 'slow_down: one statement');
});
