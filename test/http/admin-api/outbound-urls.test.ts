// Issue 38 finding 2 for the management API (the console and sso-admin call the same domain functions): a webhook URL
// (POST and PATCH /webhooks), a connection's issuer and endpoints (PUT /connections/{id}) and a client's jwks_uri
// (POST and PATCH /clients) are held to the one
// stored-URL check (src/outbound/stored-url.ts), so every spelling of a refused address is refused; and the networks
// OUTBOUND_ALLOW_NETWORKS allows are let in, as the delivery and the upstream fetch let them in.
import t from 'tap';
import { adminApiApp } from '../../helpers/admin-api.js';
import { REFUSED_LITERALS } from '../../helpers/address-spellings.js';

// An issuer that is not on loopback: a loopback issuer lets loopback destinations in (a development setup).
const PUBLIC_ISSUER = { BASE_URL: 'https://sso.example', KEYS_ENCRYPTION_SECRET: 'a-test-secret-of-at-least-32-characters' };
const api = await adminApiApp(t, { env: PUBLIC_ISSUER });
const HOOK = { id: 'siem', url: 'https://siem.example.com/in', events: ['sign_in.failed'] };
const CONNECTION = {
  kind: 'oidc',
  display_name: 'Corp',
  client_id: 'sso',
  client_secret: 'upstream-secret',
  issuer: 'https://idp.example',
};

t.test('POST /webhooks refuses every spelling of a refused address, and stores none', async (t) => {
  for (const url of REFUSED_LITERALS) {
    const res = await api.call(t, 'POST', '/webhooks', { body: { ...HOOK, id: 'refused', url } });
    t.equal(res.statusCode, 400, url);
  }
  t.equal((await api.call(t, 'GET', '/webhooks')).json().items.length, 0);
});

t.test('PATCH /webhooks/{id} refuses every spelling too, and keeps the URL', async (t) => {
  t.equal((await api.call(t, 'POST', '/webhooks', { body: HOOK })).statusCode, 201);
  for (const url of REFUSED_LITERALS) {
    const etag = (await api.call(t, 'GET', '/webhooks/siem')).headers.etag as string;
    const res = await api.call(t, 'PATCH', '/webhooks/siem', { body: { url }, headers: { 'if-match': etag } });
    t.equal(res.statusCode, 400, url);
  }
  t.equal((await api.call(t, 'GET', '/webhooks/siem')).json().url, HOOK.url);
});

t.test("PUT /connections/{id} refuses every spelling as an oidc connection's issuer and as an endpoint", async (t) => {
  for (const url of REFUSED_LITERALS) {
    for (const field of ['issuer', 'token_endpoint']) {
      const res = await api.call(t, 'PUT', '/connections/corp', { body: { ...CONNECTION, [field]: url } });
      t.equal(res.statusCode, 400, `${field}: ${url}`);
    }
  }
  t.equal((await api.call(t, 'GET', '/connections/corp')).statusCode, 404, 'nothing was stored');
});

t.test("POST and PATCH /clients refuse every spelling as a client's jwks_uri, and keep the client as it was", async (t) => {
  const client = {
    client_id: 'keys',
    client_name: 'Keys',
    redirect_uris: ['https://keys.example/cb'],
    token_endpoint_auth_method: 'private_key_jwt',
  };
  for (const url of REFUSED_LITERALS) {
    const res = await api.call(t, 'POST', '/clients', { body: { ...client, jwks_uri: url } });
    t.equal(res.statusCode, 400, url);
  }
  t.equal((await api.call(t, 'GET', '/clients/keys')).statusCode, 404, 'nothing was stored');
  t.equal((await api.call(t, 'POST', '/clients', { body: { ...client, jwks_uri: 'https://keys.example/jwks' } })).statusCode, 201);
  for (const url of REFUSED_LITERALS) {
    const etag = (await api.call(t, 'GET', '/clients/keys')).headers.etag as string;
    const res = await api.call(t, 'PATCH', '/clients/keys', { body: { jwks_uri: url }, headers: { 'if-match': etag } });
    t.equal(res.statusCode, 400, url);
  }
  t.equal((await api.call(t, 'GET', '/clients/keys')).json().jwks_uri, 'https://keys.example/jwks');
});

t.test('OUTBOUND_ALLOW_NETWORKS lets a webhook and a connection into an allowed network, and no further', async (t) => {
  const allowed = await adminApiApp(t, { env: { ...PUBLIC_ISSUER, OUTBOUND_ALLOW_NETWORKS: '10.0.0.0/8' } });
  const inside = await allowed.call(t, 'POST', '/webhooks', { body: { ...HOOK, url: 'https://10.1.2.3/in' } });
  t.equal(inside.statusCode, 201, 'a webhook in 10.0.0.0/8');
  const connection = await allowed.call(t, 'PUT', '/connections/corp', { body: { ...CONNECTION, issuer: 'https://10.1.2.4' } });
  t.equal(connection.statusCode, 201, 'an upstream in 10.0.0.0/8');
  for (const url of ['https://192.168.1.1/in', 'https://[64:ff9b::a01:203]/in', 'https://[2002:a01:203::]/in']) {
    const res = await allowed.call(t, 'POST', '/webhooks', { body: { ...HOOK, id: 'outside', url } });
    t.equal(res.statusCode, 400, url);
  }
});
