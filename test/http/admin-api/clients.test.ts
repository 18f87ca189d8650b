// /admin/api/v1/clients (src/http/admin-api/clients.ts): list, read with an ETag, create with the secret shown once
// (and an Idempotency-Key), JSON Merge Patch with If-Match, rotation, deletion; scopes enforced per route.
import t from 'tap';
import { adminApiApp, clientToken, OUTSIDER } from '../../helpers/admin-api.js';
import { CONFIDENTIAL } from '../../helpers/app.js';
import { basicAuth, tokenRequest } from '../../helpers/flow.js';
import { CONFIDENTIAL_BASIC, codeTokens } from '../../helpers/grants.js';

const api = await adminApiApp(t);
const NEW = { client_id: 'made-by-api', client_name: 'Made by the API', redirect_uris: ['https://made.example/cb'] };

t.test('GET /clients lists the clients a page at a time, with a cursor, and searches by name', async (t) => {
  const first = await api.call(t, 'GET', '/clients?limit=2');
  t.equal(first.statusCode, 200);
  const page = first.json();
  t.equal(page.items.length, 2);
  t.type(page.next_cursor, 'string');
  const second = (await api.call(t, 'GET', `/clients?limit=2&cursor=${page.next_cursor}`)).json();
  t.notOk(second.items.some((c: { client_id: string }) => page.items.some((p: { client_id: string }) => p.client_id === c.client_id)));
  const found = (await api.call(t, 'GET', '/clients?q=public%20spa')).json();
  t.same(
    found.items.map((c: { client_id: string }) => c.client_id),
    ['spa'],
  );
  const bad = await api.call(t, 'GET', '/clients?cursor=bm90LWEtY3Vyc29y');
  t.equal(bad.statusCode, 400, 'a cursor this list did not give is refused');
  t.equal(bad.json().code, 'invalid_cursor');
  t.notOk(JSON.stringify(found.items).includes('client_secret'), 'no secret is listed');
});

t.test('POST /clients answers 201 with the generated secret once; the secret works at the token endpoint', async (t) => {
  const res = await api.call(t, 'POST', '/clients', { body: { ...NEW, grant_types: ['client_credentials'], scope: 'api:read' } });
  t.equal(res.statusCode, 201);
  t.equal(res.headers.location, '/admin/api/v1/clients/made-by-api');
  const secret = res.json().client_secret as string;
  t.ok(secret.length >= 40);
  const token = await tokenRequest(api.app, { grant_type: 'client_credentials' }, basicAuth(NEW.client_id, secret));
  t.equal(token.statusCode, 200);
  const read = await api.call(t, 'GET', '/clients/made-by-api');
  t.notOk('client_secret' in read.json(), 'never readable afterwards');
  const again = await api.call(t, 'POST', '/clients', { body: NEW });
  t.equal(again.statusCode, 409, 'a taken client_id is a conflict');
  t.equal(again.json().code, 'conflict');
  t.match(again.headers['content-type'], /^application\/problem\+json/);
  await api.call(t, 'DELETE', '/clients/made-by-api', { headers: { 'if-match': '*' } });
});

t.test('a create is refused with the fields that fail its schema (RFC 9457 errors), and a secret cannot be chosen', async (t) => {
  const res = await api.call(t, 'POST', '/clients', { body: { client_name: 'no id' } });
  t.equal(res.statusCode, 400);
  t.equal(res.json().code, 'validation_failed');
  t.match(res.json().errors, [{ pointer: '/body/client_id' }]);
  const chosen = await api.call(t, 'POST', '/clients', { body: { ...NEW, client_secret: 'mine-mine-mine-mine-mine' } });
  t.equal(chosen.statusCode, 400);
  const invalid = await api.call(t, 'POST', '/clients', { body: { ...NEW, redirect_uris: ['not a uri'] } });
  t.equal(invalid.statusCode, 400, 'the seed file rules refuse a bad redirect URI');
  t.equal(invalid.json().code, 'invalid');
  const notJson = await api.app.inject({
    method: 'POST',
    url: '/admin/api/v1/clients',
    headers: { authorization: `Bearer ${api.writer}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'client_id=x',
  });
  t.equal(notJson.statusCode, 415);
  const broken = await api.app.inject({
    method: 'POST',
    url: '/admin/api/v1/clients',
    headers: { authorization: `Bearer ${api.writer}`, 'content-type': 'application/json' },
    payload: '{"client_id":',
  });
  t.equal(broken.statusCode, 400);
  t.equal(broken.json().code, 'invalid_json');
});

t.test('Idempotency-Key: the same create replays its answer without the secret; another body with the key is a 422', async (t) => {
  const headers = { 'idempotency-key': 'create-once-1' };
  const body = { ...NEW, client_id: 'idempotent' };
  const first = await api.call(t, 'POST', '/clients', { body, headers });
  t.equal(first.statusCode, 201);
  t.type(first.json().client_secret, 'string');
  const replay = await api.call(t, 'POST', '/clients', { body, headers });
  t.equal(replay.statusCode, 201);
  t.equal(replay.headers['idempotent-replayed'], 'true');
  t.notOk('client_secret' in replay.json(), 'a secret is shown once, never replayed');
  t.equal(replay.json().client_secret_replayed_without_secret, true);
  t.equal(replay.json().client_id, 'idempotent');
  const other = await api.call(t, 'POST', '/clients', { body: { ...body, client_name: 'changed' }, headers });
  t.equal(other.statusCode, 422);
  t.equal(other.json().code, 'idempotency_key_reused');
  // A key is its caller's own: another admin client with the same key creates its own client.
  const second = await api.call(t, 'POST', '/clients', {
    body: { ...NEW, client_id: 'second-admin', grant_types: ['client_credentials'], scope: 'admin:read admin:write' },
  });
  const otherCaller = await clientToken(api.app, { client_id: 'second-admin', client_secret: second.json().client_secret as string });
  const theirs = await api.call(t, 'POST', '/clients', { body: { ...body, client_id: 'theirs' }, headers, token: otherCaller });
  t.equal(theirs.statusCode, 201);
  t.type(theirs.json().client_secret, 'string', 'a first answer, not a replay of another caller');
  const asReader = await api.call(t, 'POST', '/clients', { body, headers, token: api.reader });
  t.equal(asReader.statusCode, 403, 'a read-only token is refused before the key is looked at');
});

t.test('PATCH needs If-Match: 428 without, 412 when the client changed, 200 with a new ETag when it matches', async (t) => {
  await api.call(t, 'POST', '/clients', { body: { ...NEW, client_id: 'patched' } });
  const read = await api.call(t, 'GET', '/clients/patched');
  const etag = read.headers.etag as string;
  t.match(etag, /^"[A-Za-z0-9_-]+"$/);
  const none = await api.call(t, 'PATCH', '/clients/patched', { body: { client_name: 'x' } });
  t.equal(none.statusCode, 428);
  const done = await api.call(t, 'PATCH', '/clients/patched', { body: { client_name: 'Renamed' }, headers: { 'if-match': etag } });
  t.equal(done.statusCode, 200);
  t.equal(done.json().client_name, 'Renamed');
  t.not(done.headers.etag, etag);
  const stale = await api.call(t, 'PATCH', '/clients/patched', { body: { client_name: 'Again' }, headers: { 'if-match': etag } });
  t.equal(stale.statusCode, 412, 'RFC 9110 13.1.1: the ETag read before the change no longer matches');
  t.equal(stale.json().code, 'precondition_failed');
  const removed = await api.call(t, 'PATCH', '/clients/patched', {
    body: { client_name: null },
    headers: { 'if-match': done.headers.etag as string },
  });
  t.equal(removed.statusCode, 200);
  t.notOk('client_name' in removed.json(), 'RFC 7396: null removes the member');
  const deleted = await api.call(t, 'DELETE', '/clients/patched', { headers: { 'if-match': etag } });
  t.equal(deleted.statusCode, 412);
  const gone = await api.call(t, 'DELETE', '/clients/patched', { headers: { 'if-match': removed.headers.etag as string } });
  t.equal(gone.statusCode, 200);
  t.equal((await api.call(t, 'GET', '/clients/patched')).statusCode, 404);
});

t.test('POST /clients/{id}/secret rotates the secret: the old stops working, the new works; a public client has none', async (t) => {
  const created = (
    await api.call(t, 'POST', '/clients', { body: { ...NEW, client_id: 'rotated', grant_types: ['client_credentials'], scope: 'a' } })
  ).json();
  const res = await api.call(t, 'POST', '/clients/rotated/secret');
  t.equal(res.statusCode, 200);
  const fresh = res.json().client_secret as string;
  t.not(fresh, created.client_secret);
  t.equal((await tokenRequest(api.app, { grant_type: 'client_credentials' }, basicAuth('rotated', created.client_secret))).statusCode, 401);
  t.equal((await tokenRequest(api.app, { grant_type: 'client_credentials' }, basicAuth('rotated', fresh))).statusCode, 200);
  const pub = await api.call(t, 'POST', '/clients/spa/secret');
  t.equal(pub.statusCode, 400);
  t.equal((await api.call(t, 'POST', '/clients/nobody/secret')).statusCode, 404);
});

t.test('RFC 6750 3.1: no token is a 401 with a bare challenge, a bad one invalid_token, a read-only one 403 on writes', async (t) => {
  const none = await api.call(t, 'GET', '/clients', { token: null });
  t.equal(none.statusCode, 401);
  t.equal(none.headers['www-authenticate'], 'Bearer realm="sso", scope="admin:read admin:write"');
  const bad = await api.call(t, 'GET', '/clients', { token: 'not-a-token' });
  t.equal(bad.statusCode, 401);
  t.match(bad.headers['www-authenticate'], /error="invalid_token"/);
  t.equal(bad.json().code, 'invalid_token');
  t.equal((await api.call(t, 'GET', '/clients', { token: api.reader })).statusCode, 200, 'admin:read reads');
  const write = await api.call(t, 'POST', '/clients', { token: api.reader, body: NEW });
  t.equal(write.statusCode, 403);
  t.match(write.headers['www-authenticate'], /error="insufficient_scope", scope="admin:write"/);
  t.equal((await api.call(t, 'DELETE', '/clients/app', { token: api.reader, headers: { 'if-match': '*' } })).statusCode, 403);
  const unauthenticatedBadBody = await api.call(t, 'POST', '/clients', { token: null, body: { nonsense: true } });
  t.equal(unauthenticatedBadBody.statusCode, 401, 'who asks is checked before what is asked');
  const unknown = await api.call(t, 'GET', '/no-such-thing');
  t.equal(unknown.statusCode, 404);
  t.match(unknown.headers['content-type'], /^application\/problem\+json/);
});

t.test('RFC 6750 3.1: a token acting for a user, or a client token without an admin scope, is insufficient_scope', async (t) => {
  const user = await codeTokens(api.app, CONFIDENTIAL, CONFIDENTIAL_BASIC, 'openid profile');
  const asUser = await api.call(t, 'GET', '/users', { token: user.access_token });
  t.equal(asUser.statusCode, 403, "a user's access token never reaches the management API");
  t.equal(asUser.json().code, 'insufficient_scope');
  const outsider = await api.call(t, 'GET', '/users', { token: await clientToken(api.app, OUTSIDER) });
  t.equal(outsider.statusCode, 403);
  const narrowed = await clientToken(api.app, { client_id: 'admin-writer', client_secret: 'admin-writer-secret-0123456789' }, 'admin:read');
  t.equal((await api.call(t, 'POST', '/clients/app/secret', { token: narrowed })).statusCode, 403, 'a token asked for admin:read only');
  const revoke = await api.app.inject({
    method: 'POST',
    url: '/sso/revoke',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth('admin-writer', 'admin-writer-secret-0123456789'),
    },
    payload: new URLSearchParams({ token: narrowed }).toString(),
  });
  t.equal(revoke.statusCode, 200);
  t.equal((await api.call(t, 'GET', '/users', { token: narrowed })).statusCode, 401, 'RFC 7009: a revoked token is invalid_token');
  const query = await api.call(t, 'GET', `/users?access_token=${api.writer}`, { token: null });
  t.equal(query.statusCode, 400, 'RFC 6750 2.3 query tokens are refused: they end up in logs');
});

t.test('a body over 64 KiB is a 413 problem, before it is parsed', async (t) => {
  const res = await api.call(t, 'POST', '/clients', { body: { client_id: 'big', client_name: 'x'.repeat(70_000) } });
  t.equal(res.statusCode, 413);
  t.equal(res.json().code, 'body_too_large');
});
