// Device authorization requests are counted per network and per client before a device code is stored
// (issue 16, finding 10).
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { CLI, DEVICE_FIXTURES, deviceAuthorizationRequest } from '../../helpers/device.js';

async function loop(app: Parameters<typeof deviceAuthorizationRequest>[0], n: number) {
  const statuses: number[] = [];
  for (let i = 0; i < n; i += 1) {
    statuses.push((await deviceAuthorizationRequest(app, { scope: 'openid', client_id: CLI.client_id }, { auth: '' })).statusCode);
  }
  return statuses;
}

// RFC 8628 5.2 and RFC 6749 10.10: a loop with a public client_id must not store device codes without bound.
t.test('a loop from one network is refused past the per-network limit, and the rows stored are bounded', async (t) => {
  const { app, db } = await buildTestApp(t, { seed: DEVICE_FIXTURES, env: { DEVICE_AUTHORIZATION_IP_PER_MINUTE: '5' } });
  const statuses = await loop(app, 12);
  t.same(statuses, [200, 200, 200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
  const refused = await deviceAuthorizationRequest(app, { scope: 'openid', client_id: CLI.client_id }, { auth: '' });
  t.equal(refused.json().error, 'temporarily_unavailable');
  t.ok(Number(refused.headers['retry-after']) > 0, 'Retry-After says when to come back (RFC 6585 4)');
  const rows = await db
    .selectFrom('device_authorizations')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  t.equal(Number(rows.n), 5, 'only the answered requests stored a device code');
});

t.test('the per-client counter holds across networks', async (t) => {
  const { app } = await buildTestApp(t, { seed: DEVICE_FIXTURES, env: { DEVICE_AUTHORIZATION_CLIENT_PER_MINUTE: '3' } });
  const statuses: number[] = [];
  for (const remoteAddress of ['192.0.2.1', '198.51.100.1', '203.0.113.1', '192.0.2.200']) {
    const res = await app.inject({
      method: 'POST',
      url: '/sso/device_authorization',
      remoteAddress,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `scope=openid&client_id=${CLI.client_id}`,
    });
    statuses.push(res.statusCode);
  }
  t.same(statuses, [200, 200, 200, 429]);
});
