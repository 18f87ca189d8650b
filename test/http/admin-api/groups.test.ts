// /admin/api/v1/groups (src/http/admin-api/groups.ts): list by name with a cursor, read with an ETag, create with an
// Idempotency-Key, PATCH (RFC 7396) and PUT under If-Match (RFC 9110 13.1.1), delete, members; clients' allowed_groups
// and users' console role through their own routes; scopes enforced per route.
import t from 'tap';
import { adminApiApp, OUTSIDER, clientToken } from '../../helpers/admin-api.js';
import { ALICE, BOB } from '../../helpers/app.js';

const api = await adminApiApp(t);

t.test('POST /groups creates a group (201, Location, ETag); a name taken in any case is a 409; a bad name a 400', async (t) => {
  const res = await api.call(t, 'POST', '/groups', { body: { name: 'Staff', description: 'everyone employed' } });
  t.equal(res.statusCode, 201);
  t.match(res.json(), { name: 'Staff', description: 'everyone employed', members: 0 });
  t.equal(res.headers.location, `/admin/api/v1/groups/${res.json().id}`);
  t.ok(res.headers.etag);
  const taken = await api.call(t, 'POST', '/groups', { body: { name: 'STAFF' } });
  t.equal(taken.statusCode, 409);
  t.equal(taken.json().code, 'conflict');
  const spaced = await api.call(t, 'POST', '/groups', { body: { name: ' padded ' } });
  t.equal(spaced.statusCode, 400, 'the domain refuses a name with white space at its ends');
  t.equal(spaced.json().code, 'invalid');
  const nameless = await api.call(t, 'POST', '/groups', { body: { description: 'no name' } });
  t.equal(nameless.statusCode, 400);
  t.match(nameless.json().errors, [{ pointer: '/body/name' }]);
});

t.test('an Idempotency-Key replays the first create; the same key with another body is a 422', async (t) => {
  const headers = { 'idempotency-key': 'group-create-1' };
  const first = await api.call(t, 'POST', '/groups', { body: { name: 'ops' }, headers });
  t.equal(first.statusCode, 201);
  const replay = await api.call(t, 'POST', '/groups', { body: { name: 'ops' }, headers });
  t.equal(replay.statusCode, 201);
  t.equal(replay.headers['idempotent-replayed'], 'true');
  t.equal(replay.json().id, first.json().id, 'one group, not two');
  const other = await api.call(t, 'POST', '/groups', { body: { name: 'ops2' }, headers });
  t.equal(other.statusCode, 422);
  t.equal(other.json().code, 'idempotency_key_reused');
});

t.test('GET /groups lists by name a page at a time, filters by name and q; a foreign cursor is a 400', async (t) => {
  await api.call(t, 'POST', '/groups', { body: { name: 'auditors' } });
  const first = (await api.call(t, 'GET', '/groups?limit=2')).json();
  t.same(
    first.items.map((g: { name: string }) => g.name),
    ['auditors', 'ops'],
  );
  const second = (await api.call(t, 'GET', `/groups?limit=2&cursor=${first.next_cursor}`)).json();
  t.same(
    second.items.map((g: { name: string }) => g.name),
    ['Staff'],
  );
  t.equal(second.next_cursor, null);
  t.same(
    (await api.call(t, 'GET', '/groups?name=staff')).json().items.map((g: { name: string }) => g.name),
    ['Staff'],
    'name matches in any case',
  );
  t.same(
    (await api.call(t, 'GET', '/groups?q=employed')).json().items.map((g: { name: string }) => g.name),
    ['Staff'],
    'q searches descriptions too',
  );
  const users = (await api.call(t, 'GET', '/users?limit=1')).json();
  const foreign = await api.call(t, 'GET', `/groups?cursor=${users.next_cursor}`);
  t.equal(foreign.statusCode, 400, "the users list's cursor is not this list's");
  t.equal(foreign.json().code, 'invalid_cursor');
});

t.test('GET /groups/{group} by id or name with an ETag; an unknown group is a 404', async (t) => {
  const byName = await api.call(t, 'GET', '/groups/staff');
  t.equal(byName.statusCode, 200);
  const byId = await api.call(t, 'GET', `/groups/${byName.json().id}`);
  t.equal(byId.headers.etag, byName.headers.etag);
  const missing = await api.call(t, 'GET', '/groups/nobody');
  t.equal(missing.statusCode, 404);
  t.equal(missing.json().code, 'not_found');
});

t.test('PATCH and PUT /groups/{group} need If-Match (428), refuse a stale ETag (412), and change the group', async (t) => {
  const read = await api.call(t, 'GET', '/groups/ops');
  t.equal((await api.call(t, 'PATCH', '/groups/ops', { body: { description: 'on call' } })).statusCode, 428);
  const patched = await api.call(t, 'PATCH', '/groups/ops', {
    body: { description: 'on call' },
    headers: { 'if-match': read.headers.etag as string },
  });
  t.equal(patched.statusCode, 200);
  t.equal(patched.json().description, 'on call');
  t.not(patched.headers.etag, read.headers.etag);
  const stale = await api.call(t, 'PATCH', '/groups/ops', { body: { name: 'x' }, headers: { 'if-match': read.headers.etag as string } });
  t.equal(stale.statusCode, 412);
  t.equal(stale.json().code, 'precondition_failed');
  const removed = await api.call(t, 'PATCH', '/groups/ops', {
    body: { description: null },
    headers: { 'if-match': patched.headers.etag as string },
  });
  t.equal(removed.json().description, null, 'RFC 7396: null removes the description');
  const replaced = await api.call(t, 'PUT', '/groups/ops', { body: { name: 'operations' }, headers: { 'if-match': '*' } });
  t.equal(replaced.statusCode, 200);
  t.match(replaced.json(), { id: read.json().id, name: 'operations', description: null });
  const clash = await api.call(t, 'PUT', '/groups/operations', { body: { name: 'staff' }, headers: { 'if-match': '*' } });
  t.equal(clash.statusCode, 409, 'a rename onto a taken name is a conflict');
  t.equal((await api.call(t, 'PATCH', '/groups/operations', { body: {}, headers: { 'if-match': '*' } })).statusCode, 400);
});

t.test('members: added (201, then 200 when already in), listed by username, removed; unknown users are a 404', async (t) => {
  const added = await api.call(t, 'PUT', '/groups/staff/members/alice');
  t.equal(added.statusCode, 201);
  t.same(added.json(), { group: 'Staff', username: 'alice', added: true });
  t.equal((await api.call(t, 'PUT', '/groups/staff/members/alice')).statusCode, 200);
  await api.call(t, 'PUT', '/groups/staff/members/bob');
  const first = (await api.call(t, 'GET', '/groups/staff/members?limit=1')).json();
  t.same(
    first.items.map((m: { username: string }) => m.username),
    ['alice'],
  );
  const second = (await api.call(t, 'GET', `/groups/staff/members?limit=1&cursor=${first.next_cursor}`)).json();
  t.same(
    second.items.map((m: { username: string; email: string }) => [m.username, m.email]),
    [['bob', BOB.email]],
  );
  t.equal((await api.call(t, 'GET', '/groups/staff')).json().members, 2);
  t.equal((await api.call(t, 'GET', '/users/alice')).json().groups.includes('Staff'), true, "the user's groups name it");
  t.equal((await api.call(t, 'PUT', '/groups/staff/members/nobody')).statusCode, 404);
  t.equal((await api.call(t, 'GET', '/groups/nobody/members')).statusCode, 404);
  const removed = await api.call(t, 'DELETE', '/groups/staff/members/bob');
  t.same(removed.json(), { group: 'Staff', username: 'bob', removed: true });
  t.same((await api.call(t, 'DELETE', '/groups/staff/members/bob')).json().removed, false, 'removing a non-member writes nothing');
  const staffId = (await api.call(t, 'GET', '/groups/staff')).json().id as string;
  const audit = (await api.call(t, 'GET', `/audit?target=group:${staffId}`)).json();
  t.same(
    audit.items.map((r: { event: string }) => r.event),
    ['admin.group.member_removed', 'admin.group.member_added', 'admin.group.member_added', 'admin.group.created'],
    'each change, and only the changes, is recorded',
  );
});

t.test("a client's allowed_groups are set and read through /clients", async (t) => {
  const created = await api.call(t, 'POST', '/clients', {
    body: { client_id: 'staff-only', redirect_uris: ['https://staff.example/cb'], allowed_groups: ['Staff'] },
  });
  t.equal(created.statusCode, 201);
  t.same(created.json().allowed_groups, ['Staff']);
  const unknown = await api.call(t, 'PATCH', '/clients/staff-only', { body: { allowed_groups: ['nobody'] }, headers: { 'if-match': '*' } });
  t.equal(unknown.statusCode, 400, 'a group that does not exist is refused');
  const unlimited = await api.call(t, 'PATCH', '/clients/staff-only', { body: { allowed_groups: null }, headers: { 'if-match': '*' } });
  t.equal(unlimited.statusCode, 200);
  t.notOk('allowed_groups' in unlimited.json(), 'null lifts the limit');
});

t.test("a user's console role is read and set through /users/{user}/role", async (t) => {
  t.same((await api.call(t, 'GET', '/users/alice/role')).json().role, 'none');
  const set = await api.call(t, 'PUT', '/users/alice/role', { body: { role: 'auditor' } });
  t.equal(set.statusCode, 200);
  t.match(set.json(), { role: 'auditor', previous: 'none', changed: true, user: { username: ALICE.username } });
  t.equal((await api.call(t, 'PUT', '/users/alice/role', { body: { role: 'auditor' } })).json().changed, false);
  t.equal((await api.call(t, 'GET', '/users/alice')).json().role, 'auditor');
  t.equal((await api.call(t, 'PUT', '/users/alice/role', { body: { role: 'owner' } })).statusCode, 400);
  t.equal((await api.call(t, 'PUT', '/users/nobody/role', { body: { role: 'admin' } })).statusCode, 404);
  t.equal((await api.call(t, 'PUT', '/users/alice/role', { body: { role: 'none' } })).json().role, 'none');
});

t.test('DELETE /groups/{group} needs If-Match, then removes the group and its memberships', async (t) => {
  t.equal((await api.call(t, 'DELETE', '/groups/staff')).statusCode, 428);
  const etag = (await api.call(t, 'GET', '/groups/staff')).headers.etag as string;
  const deleted = await api.call(t, 'DELETE', '/groups/staff', { headers: { 'if-match': etag } });
  t.equal(deleted.statusCode, 200);
  t.match(deleted.json(), { name: 'Staff', members: 1 });
  t.equal((await api.call(t, 'GET', '/groups/staff')).statusCode, 404);
  t.same((await api.call(t, 'GET', '/users/alice')).json().groups, []);
});

t.test('scopes: admin:read reads groups and roles but changes none; a token without admin scopes gets nothing', async (t) => {
  t.equal((await api.call(t, 'GET', '/groups', { token: api.reader })).statusCode, 200);
  t.equal((await api.call(t, 'GET', '/users/bob/role', { token: api.reader })).statusCode, 200);
  for (const [method, path, body] of [
    ['POST', '/groups', { name: 'readers' }],
    ['PATCH', '/groups/auditors', { description: 'x' }],
    ['PUT', '/groups/auditors', { name: 'x' }],
    ['DELETE', '/groups/auditors', undefined],
    ['PUT', '/groups/auditors/members/bob', undefined],
    ['DELETE', '/groups/auditors/members/bob', undefined],
    ['PUT', '/users/bob/role', { role: 'admin' }],
  ] as const) {
    const res = await api.call(t, method, path, { token: api.reader, body, headers: { 'if-match': '*' } });
    t.equal(res.statusCode, 403, `${method} ${path} needs admin:write`);
  }
  const outsider = await clientToken(api.app, OUTSIDER);
  t.equal((await api.call(t, 'GET', '/groups', { token: outsider })).statusCode, 403);
  t.equal((await api.call(t, 'GET', '/groups', { token: null })).statusCode, 401);
  t.equal((await api.call(t, 'GET', '/groups/auditors')).json().members, 0, 'nothing was changed');
});
