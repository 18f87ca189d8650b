// The device authorization endpoint (RFC 8628 3.1-3.2): client authentication as at the token endpoint, the
// grant type, the scope, the codes it answers with and what it keeps of them.
import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import t, { type Test } from 'tap';
import { USER_CODE_ALPHABET } from '../../../src/domain/device-flow/device-authorization.js';
import { buildTestApp, CONFIDENTIAL } from '../../helpers/app.js';
import { CLI, DEVICE_FIXTURES, deviceAuthorizationRequest, SMART_TV_UA, startDevice, TV, TV_BASIC } from '../../helpers/device.js';
import { basicAuth } from '../../helpers/flow.js';

const { app, db } = await buildTestApp(t, { seed: DEVICE_FIXTURES });

const USER_CODE = new RegExp(`^[${USER_CODE_ALPHABET}]{4}-[${USER_CODE_ALPHABET}]{4}$`);

function assertError(t: Test, res: LightMyRequestResponse, status: number, error: string): void {
  t.equal(res.statusCode, status, res.body);
  t.equal(res.headers['cache-control'], 'no-store');
  t.equal((res.json() as { error: string }).error, error);
}

async function storedRow(deviceCode: string) {
  const hash = createHash('sha256').update(deviceCode).digest('base64url');
  return db.selectFrom('device_authorizations').selectAll().where('device_code_hash', '=', hash).executeTakeFirst();
}

t.test(
  'a confidential client with Basic credentials gets the codes, where to type them, their lifetime and the interval (RFC 8628 3.2)',
  async (t) => {
    const res = await deviceAuthorizationRequest(app);
    t.equal(res.statusCode, 200, res.body);
    t.equal(res.headers['cache-control'], 'no-store', 'a response carrying a device code is never cached');
    const body = res.json() as Record<string, unknown>;
    t.same(Object.keys(body).sort(), [
      'device_code',
      'expires_in',
      'interval',
      'user_code',
      'verification_uri',
      'verification_uri_complete',
    ]);
    t.match(body.device_code, /^[A-Za-z0-9_-]{43}$/, 'the device code carries 256 random bits');
    t.match(body.user_code, USER_CODE, 'the user code is XXXX-XXXX from the base-20 alphabet');
    t.equal(body.verification_uri, 'http://localhost:3000/sso/device');
    t.equal(body.verification_uri_complete, `http://localhost:3000/sso/device?user_code=${body.user_code as string}`);
    t.equal(body.expires_in, 600);
    t.equal(body.interval, 5);
  },
);

t.test('client_secret_post authenticates the same client', async (t) => {
  const res = await deviceAuthorizationRequest(
    app,
    { scope: 'openid', client_id: TV.client_id, client_secret: TV.client_secret },
    { auth: '' },
  );
  t.equal(res.statusCode, 200, res.body);
});

t.test('a public client identifies itself with its client_id alone', async (t) => {
  const res = await deviceAuthorizationRequest(app, { scope: 'openid', client_id: CLI.client_id }, { auth: '' });
  t.equal(res.statusCode, 200, res.body);
});

t.test('a wrong client secret is invalid_client (401)', async (t) => {
  const res = await deviceAuthorizationRequest(app, { scope: 'openid' }, { auth: basicAuth(TV.client_id, 'not-the-secret-0000') });
  assertError(t, res, 401, 'invalid_client');
  t.match(res.headers['www-authenticate'], /^Basic /);
});

t.test('a confidential client without its secret is invalid_client', async (t) => {
  const res = await deviceAuthorizationRequest(app, { scope: 'openid', client_id: TV.client_id }, { auth: '' });
  assertError(t, res, 401, 'invalid_client');
});

t.test('a request with no client at all is invalid_client', async (t) => {
  const res = await deviceAuthorizationRequest(app, { scope: 'openid' }, { auth: '' });
  assertError(t, res, 401, 'invalid_client');
});

t.test('a client whose grant_types lack the device code grant is unauthorized_client', async (t) => {
  const res = await deviceAuthorizationRequest(
    app,
    { scope: 'openid' },
    { auth: basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret) },
  );
  assertError(t, res, 400, 'unauthorized_client');
});

t.test('a scope naming no supported value is invalid_scope, and so is none at all', async (t) => {
  assertError(t, await deviceAuthorizationRequest(app, { scope: 'photos write' }), 400, 'invalid_scope');
  assertError(t, await deviceAuthorizationRequest(app, {}), 400, 'invalid_scope');
});

t.test('a repeated parameter is invalid_request (RFC 6749 3.1)', async (t) => {
  const res = await app.inject({
    method: 'POST',
    url: '/sso/device_authorization',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: TV_BASIC },
    payload: 'scope=openid&scope=profile',
  });
  assertError(t, res, 400, 'invalid_request');
});

t.test('a JSON body is invalid_request: the endpoint takes form serialization only', async (t) => {
  const res = await app.inject({
    method: 'POST',
    url: '/sso/device_authorization',
    headers: { 'content-type': 'application/json', authorization: TV_BASIC },
    payload: JSON.stringify({ scope: 'openid' }),
  });
  assertError(t, res, 400, 'invalid_request');
});

t.test('unknown scopes are ignored and the rest kept, as at the authorization endpoint', async (t) => {
  const { device_code } = await startDevice(app, { scope: 'photos openid email' });
  t.equal((await storedRow(device_code))?.scope, 'openid email');
});

t.test('offline_access is dropped for a client that may not refresh', async (t) => {
  const { device_code } = await startDevice(app, { scope: 'openid offline_access', client_id: CLI.client_id }, { auth: '' });
  t.equal((await storedRow(device_code))?.scope, 'openid');
});

t.test('offline_access is kept for a client that may refresh', async (t) => {
  const { device_code } = await startDevice(app, { scope: 'openid offline_access' });
  t.equal((await storedRow(device_code))?.scope, 'openid offline_access');
});

t.test('the codes are stored only as digests, and the device only as a label and the time it asked', async (t) => {
  const before = Date.now();
  const { device_code, user_code } = await startDevice(app, { scope: 'openid' }, { userAgent: SMART_TV_UA });
  const row = await storedRow(device_code);
  t.ok(row, 'the row is found by the SHA-256 of the device code');
  const stored = JSON.stringify(row);
  t.notOk(stored.includes(device_code), 'the device code itself is not stored');
  t.notOk(stored.includes(user_code) || stored.includes(user_code.replace('-', '')), 'the user code itself is not stored');
  t.not(
    row!.user_code_hash,
    createHash('sha256').update(user_code.replace('-', '')).digest('base64url'),
    'the user code digest is keyed, not a plain SHA-256',
  );
  t.notOk(
    stored.includes('BRAVIA') || stored.includes('Mozilla') || stored.includes('127.0.0.1'),
    'neither the user agent nor the address is stored',
  );
  t.equal(row!.device_label, 'Chrome on Android');
  t.ok(row!.requested_at.getTime() >= before - 1000 && row!.requested_at.getTime() <= Date.now() + 1000, 'the time it asked');
  t.equal(row!.expires_at.getTime() - row!.requested_at.getTime(), 600_000);
});

t.test('every request gets codes of its own', async (t) => {
  const first = await startDevice(app);
  const second = await startDevice(app);
  t.not(first.device_code, second.device_code);
  t.not(first.user_code, second.user_code);
});

t.test('the lifetime and the interval are settings', async (t) => {
  const other = await buildTestApp(t, {
    seed: DEVICE_FIXTURES,
    env: { DEVICE_CODE_TTL_SECONDS: '120', DEVICE_CODE_INTERVAL_SECONDS: '2' },
  });
  const body = await startDevice(other.app);
  t.equal(body.expires_in, 120);
  t.equal(body.interval, 2);
});

t.test('discovery advertises the endpoint and the grant type (RFC 8628 4)', async (t) => {
  const doc = (await app.inject({ method: 'GET', url: '/sso/.well-known/openid-configuration' })).json() as Record<string, unknown>;
  t.equal(doc.device_authorization_endpoint, 'http://localhost:3000/sso/device_authorization');
  t.ok((doc.grant_types_supported as string[]).includes('urn:ietf:params:oauth:grant-type:device_code'));
});
