// Microsoft Entra ID's provisioning requests as "Develop a sample SCIM endpoint" / "SCIM 2.0 protocol compliance of
// the Microsoft Entra provisioning service" show them: capitalised op names ("Replace", "Add"), value-filtered paths
// (emails[type eq "work"].value), "False" as a string for active, members removed by value list, groups looked up
// with excludedAttributes=members. Each answer is checked field by field (RFC 7643, RFC 7644).
import t from 'tap';
import { BASE, GROUP_SCHEMA, LIST_RESPONSE, PATCH_OP, scimApp, USER_SCHEMA } from './scim-app.js';

const api = await scimApp(t);
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const USER_NAME = 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1@testuser.com';
const patch = (...Operations: unknown[]) => ({ body: { schemas: [PATCH_OP], Operations }, token: api.entra });
let userId = '';

t.test('Entra creates a user with the enterprise extension, ignored (RFC 7644 3.3)', async (t) => {
  const res = await api.call('POST', '/Users', {
    token: api.entra,
    body: {
      schemas: [USER_SCHEMA, ENTERPRISE],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName: USER_NAME,
      active: true,
      emails: [{ primary: true, type: 'work', value: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [],
      [ENTERPRISE]: { department: 'Sales' },
    },
  });
  t.equal(res.statusCode, 201);
  const user = res.json();
  userId = user.id;
  t.same(Object.keys(user).sort(), ['active', 'displayName', 'emails', 'externalId', 'id', 'meta', 'name', 'schemas', 'userName']);
  t.same(user.schemas, [USER_SCHEMA]);
  t.equal(user.externalId, '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef');
  t.equal(user.userName, USER_NAME);
  t.equal(user.active, true);
  t.same(user.emails, [{ value: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com', type: 'work', primary: true }]);
  t.same(user.name, { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' });
  t.equal(user.displayName, 'givenName familyName', 'without displayName, name.formatted is the name claim');
  t.same(Object.keys(user.meta).sort(), ['created', 'lastModified', 'location', 'resourceType', 'version']);
  t.equal(user.meta.location, `${BASE}/Users/${userId}`);
});

t.test('Entra gets the user by query, and a query with no result (RFC 7644 3.4.2)', async (t) => {
  const hit = (await api.call('GET', `/Users?filter=${encodeURIComponent(`userName eq "${USER_NAME}"`)}`, { token: api.entra })).json();
  t.same(hit.schemas, [LIST_RESPONSE]);
  t.equal(hit.totalResults, 1);
  t.equal(hit.startIndex, 1);
  t.equal(hit.itemsPerPage, 1);
  t.equal(hit.Resources[0].id, userId);
  const byExternal = (
    await api.call('GET', `/Users?filter=${encodeURIComponent('externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"')}`, {
      token: api.entra,
    })
  ).json();
  t.equal(byExternal.totalResults, 1, 'externalId is matched exactly');
  const upper = (
    await api.call('GET', `/Users?filter=${encodeURIComponent('externalId eq "0A21F0F2-8D2A-4F8E-BF98-7363C4AED4EF"')}`, {
      token: api.entra,
    })
  ).json();
  t.equal(upper.totalResults, 0, 'RFC 7643 3.1: externalId is caseExact');
  const none = (
    await api.call('GET', `/Users?filter=${encodeURIComponent('userName eq "non-existent user"')}`, { token: api.entra })
  ).json();
  t.same(none, { schemas: [LIST_RESPONSE], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });
});

t.test('Entra updates multi-valued and single-valued attributes with PATCH paths (RFC 7644 3.5.2.3)', async (t) => {
  const multi = await api.call(
    'PATCH',
    `/Users/${userId}`,
    patch(
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
      { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
    ),
  );
  t.equal(multi.statusCode, 200);
  t.same(multi.json().emails, [{ value: 'updatedEmail@microsoft.com', type: 'work', primary: true }]);
  t.same(multi.json().name, { formatted: 'givenName familyName', familyName: 'updatedFamilyName', givenName: 'givenName' });
  const single = await api.call(
    'PATCH',
    `/Users/${userId}`,
    patch({ op: 'Replace', path: 'userName', value: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com' }),
  );
  t.equal(single.statusCode, 200);
  t.equal(single.json().userName, '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com');
  const added = await api.call('PATCH', `/Users/${userId}`, patch({ op: 'Add', path: 'displayName', value: 'Display Name' }));
  t.equal(added.json().displayName, 'Display Name');
  const events = await api.db.selectFrom('admin_audit_records').select(['event', 'actor_id']).where('target_id', '=', userId).execute();
  t.same(
    events.map((e) => [e.event, e.actor_id]),
    [
      ['admin.user.created', 'entra'],
      ['admin.user.updated', 'entra'],
      ['admin.user.updated', 'entra'],
      ['admin.user.updated', 'entra'],
    ],
  );
});

t.test('Entra disables the user with active "False", a string (and false, a boolean, with its newer behaviour)', async (t) => {
  const res = await api.call('PATCH', `/Users/${userId}`, patch({ op: 'Replace', path: 'active', value: 'False' }));
  t.equal(res.statusCode, 200);
  t.equal(res.json().active, false);
  const on = await api.call('PATCH', `/Users/${userId}`, patch({ op: 'Replace', path: 'active', value: 'True' }));
  t.equal(on.json().active, true);
  const off = await api.call('PATCH', `/Users/${userId}`, patch({ op: 'Replace', path: 'active', value: false }));
  t.equal(off.json().active, false);
  const bad = await api.call('PATCH', `/Users/${userId}`, patch({ op: 'Replace', path: 'active', value: 'maybe' }));
  t.equal(bad.statusCode, 400);
  t.equal(bad.json().scimType, 'invalidValue');
});

t.test('Entra manages a group: create, get without members, rename, add and remove members, delete', async (t) => {
  const created = await api.call('POST', '/Groups', {
    token: api.entra,
    body: {
      schemas: [GROUP_SCHEMA],
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'displayName',
      meta: { resourceType: 'Group' },
    },
  });
  t.equal(created.statusCode, 201);
  const group = created.json();
  t.same(Object.keys(group).sort(), ['displayName', 'id', 'members', 'meta', 'schemas']);
  t.same(group.members, []);
  const one = await api.call('GET', `/Groups/${group.id}?excludedAttributes=members`, { token: api.entra });
  t.equal(one.statusCode, 200);
  t.notOk('members' in one.json(), 'RFC 7644 3.4.2.5: excludedAttributes=members leaves them out');
  t.equal(one.json().displayName, 'displayName');
  const byName = (
    await api.call('GET', `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "displayName"')}`, {
      token: api.entra,
    })
  ).json();
  t.equal(byName.totalResults, 1);
  t.equal(byName.Resources[0].id, group.id);
  t.notOk('members' in byName.Resources[0]);

  const renamed = await api.call(
    'PATCH',
    `/Groups/${group.id}`,
    patch({ op: 'Replace', path: 'displayName', value: 'updatedDisplayName' }),
  );
  t.equal(renamed.json().displayName, 'updatedDisplayName');
  const alice = (await api.call('GET', `/Users?filter=${encodeURIComponent('userName eq "alice"')}`)).json().Resources[0];
  const added = await api.call(
    'PATCH',
    `/Groups/${group.id}`,
    patch({
      op: 'Add',
      path: 'members',
      value: [
        { $ref: null, value: userId },
        { $ref: null, value: alice.id },
      ],
    }),
  );
  t.equal(added.statusCode, 200);
  t.same(
    added
      .json()
      .members.map((m: { value: string }) => m.value)
      .sort(),
    [userId, alice.id].sort(),
  );
  const removed = await api.call(
    'PATCH',
    `/Groups/${group.id}`,
    patch({ op: 'Remove', path: 'members', value: [{ $ref: null, value: userId }] }),
  );
  t.same(removed.json().members, [{ value: alice.id, display: 'alice', $ref: `${BASE}/Users/${alice.id}` }]);
  const del = await api.call('DELETE', `/Groups/${group.id}`, { token: api.entra });
  t.equal(del.statusCode, 204);
});

t.test('Entra deletes the user (RFC 7644 3.6)', async (t) => {
  t.equal((await api.call('DELETE', `/Users/${userId}`, { token: api.entra })).statusCode, 204);
  const gone = await api.call('GET', `/Users/${userId}`, { token: api.entra });
  t.equal(gone.statusCode, 404);
  t.equal(gone.json().status, '404');
});
