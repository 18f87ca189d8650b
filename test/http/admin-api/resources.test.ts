// /admin/api/v1: risk rules, security events, signing keys, resource servers and upstream connections
// (src/http/admin-api/rules.ts, security-events.ts, signing-keys.ts, entity-routes.ts).
import t from 'tap';
import { adminApiApp } from '../../helpers/admin-api.js';
import { ALICE } from '../../helpers/app.js';
import { obtainCode } from '../../helpers/flow.js';

const api = await adminApiApp(t);

t.test('risk rules: add (201), add again changes the effect (200), read, list by kind, delete with If-Match', async (t) => {
  const created = await api.call(t, 'POST', '/risk-rules', {
    body: { kind: 'network', value: '203.0.113.0/24', effect: 'block', note: 'abuse' },
  });
  t.equal(created.statusCode, 201);
  const id = created.json().id as string;
  t.equal(created.headers.location, `/admin/api/v1/risk-rules/${id}`);
  const changed = await api.call(t, 'POST', '/risk-rules', { body: { kind: 'network', value: '203.0.113.0/24', effect: 'allow' } });
  t.equal(changed.statusCode, 200);
  t.equal(changed.json().id, id);
  t.equal(changed.json().effect, 'allow');
  const bad = await api.call(t, 'POST', '/risk-rules', { body: { kind: 'network', value: 'not-a-network', effect: 'block' } });
  t.equal(bad.statusCode, 400);
  t.equal(bad.json().code, 'invalid');
  const unknownKind = await api.call(t, 'POST', '/risk-rules', { body: { kind: 'planet', value: 'x', effect: 'block' } });
  t.equal(unknownKind.statusCode, 400);
  t.equal(unknownKind.json().code, 'validation_failed');
  t.equal((await api.call(t, 'GET', '/risk-rules?kind=network')).json().items.length, 1);
  t.equal((await api.call(t, 'GET', '/risk-rules?kind=device')).json().items.length, 0);
  const read = await api.call(t, 'GET', `/risk-rules/${id}`);
  t.equal((await api.call(t, 'GET', '/risk-rules/not-a-uuid')).statusCode, 400, 'an id that cannot be a rule is refused, not looked up');
  t.equal((await api.call(t, 'GET', '/risk-rules/00000000-0000-4000-8000-000000000000')).statusCode, 404);
  t.equal((await api.call(t, 'DELETE', `/risk-rules/${id}`)).statusCode, 428);
  t.equal((await api.call(t, 'DELETE', `/risk-rules/${id}`, { headers: { 'if-match': read.headers.etag as string } })).statusCode, 200);
  t.equal((await api.call(t, 'GET', `/risk-rules/${id}`)).statusCode, 404);
});

t.test('security events: listed newest first with filters; a malformed filter is a 400 problem', async (t) => {
  await obtainCode(api.app, {}, { user: ALICE });
  const res = await api.call(t, 'GET', '/security-events?user=alice&limit=5', { token: api.reader });
  t.equal(res.statusCode, 200);
  t.ok(res.json().items.length >= 1);
  t.ok(res.json().items.every((e: { username: string }) => e.username === 'alice'));
  const bad = await api.call(t, 'GET', '/security-events?since=yesterday');
  t.equal(bad.statusCode, 400);
  t.equal(bad.json().code, 'invalid_request');
});

t.test('signing keys: listed with their state; rotate adds one key per algorithm named', async (t) => {
  const before = (await api.call(t, 'GET', '/signing-keys')).json().items as Array<{ kid: string; alg: string; state: string }>;
  t.ok(before.length >= 2);
  t.ok(before.every((k) => k.state === 'active'));
  const rotated = await api.call(t, 'POST', '/signing-keys/rotate', { body: { algs: ['ES256'], activation_delay_seconds: 3600 } });
  t.equal(rotated.statusCode, 200);
  t.equal(rotated.json().rotated.length, 1);
  t.equal(rotated.json().rotated[0].alg, 'ES256');
  const after = (await api.call(t, 'GET', '/signing-keys?state=pending')).json().items;
  t.same(
    after.map((k: { kid: string }) => k.kid),
    [rotated.json().rotated[0].kid],
  );
  t.equal((await api.call(t, 'POST', '/signing-keys/rotate', { body: { algs: ['HS256'] } })).statusCode, 400);
  t.equal((await api.call(t, 'POST', '/signing-keys/rotate', { body: {}, token: api.reader })).statusCode, 403);
});

t.test('resource servers: PUT creates (201) then replaces under If-Match (200); the identifier is percent-encoded', async (t) => {
  const identifier = 'https://api.example/reports';
  const path = `/resource-servers/${encodeURIComponent(identifier)}`;
  const created = await api.call(t, 'PUT', path, { body: { name: 'Reports', scopes: { 'reports:read': 'Read your reports' } } });
  t.equal(created.statusCode, 201);
  t.equal(created.json().identifier, identifier);
  const noMatch = await api.call(t, 'PUT', path, { body: { name: 'Reports 2' } });
  t.equal(noMatch.statusCode, 428, 'replacing needs If-Match');
  const replaced = await api.call(t, 'PUT', path, { body: { name: 'Reports 2' }, headers: { 'if-match': created.headers.etag as string } });
  t.equal(replaced.statusCode, 200);
  t.equal(replaced.json().name, 'Reports 2');
  const renamed = await api.call(t, 'PUT', path, { body: { identifier: 'https://other.example' }, headers: { 'if-match': '*' } });
  t.equal(renamed.statusCode, 400);
  const fragment = await api.call(t, 'PUT', `/resource-servers/${encodeURIComponent('https://api.example/#x')}`, { body: {} });
  t.equal(fragment.statusCode, 400, 'RFC 8707 2: no fragment');
  t.equal((await api.call(t, 'GET', '/resource-servers')).json().items.length, 1);
  const deleted = await api.call(t, 'DELETE', path, { headers: { 'if-match': replaced.headers.etag as string } });
  t.equal(deleted.statusCode, 204);
  t.equal((await api.call(t, 'GET', path)).statusCode, 404);
  t.equal((await api.call(t, 'DELETE', path, { headers: { 'if-match': '*' } })).statusCode, 404);
});

t.test('connections: PUT a preset with its secret; the secret is never answered; delete', async (t) => {
  const created = await api.call(t, 'PUT', '/connections/github', {
    body: { preset: 'github', client_id: 'Iv1.abc', client_secret: 'gh-secret-value-123' },
  });
  t.equal(created.statusCode, 201);
  t.equal(created.json().has_client_secret, true);
  t.notOk(created.body.includes('gh-secret-value-123'));
  const read = await api.call(t, 'GET', '/connections/github');
  t.equal(read.json().redirect_uri, 'http://localhost:3000/sso/connections/github/callback');
  const list = await api.call(t, 'GET', '/connections');
  t.equal(list.json().items.length, 1);
  const bad = await api.call(t, 'PUT', '/connections/corp', { body: { kind: 'oidc', client_id: 'x', issuer: 'http://idp.example' } });
  t.equal(bad.statusCode, 400);
  t.equal((await api.call(t, 'DELETE', '/connections/github', { headers: { 'if-match': read.headers.etag as string } })).statusCode, 204);
});
