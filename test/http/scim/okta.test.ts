// Okta's SCIM 2.0 provisioning as its documentation shows it ("SCIM 2.0 protocol: Okta's requests", the SCIM
// reference test sequence): look a user up by userName, create them, read them, update them with PUT, deactivate them
// with a path-less PATCH, and push a group: create, rename, add and remove members, delete. Each answer is checked
// field by field against RFC 7643 (resources) and RFC 7644 (protocol).
import t from 'tap';
import { ALICE } from '../../helpers/app.js';
import { obtainCode } from '../../helpers/flow.js';
import { BASE, GROUP_SCHEMA, LIST_RESPONSE, PATCH_OP, scimApp, USER_SCHEMA } from './scim-app.js';

const api = await scimApp(t);

const OKTA_USER = {
  schemas: [USER_SCHEMA],
  userName: 'test.user@okta.local',
  name: { givenName: 'Test', familyName: 'User' },
  emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
  displayName: 'Test User',
  locale: 'en-US',
  externalId: '00ujl29u0le5T6Aj10h7',
  groups: [],
  password: '1mz050nq',
  active: true,
};

const eq = (attribute: string, value: string) => `filter=${encodeURIComponent(`${attribute} eq "${value}"`)}`;
let userId = '';

t.test('Okta looks the user up by userName first: an empty ListResponse (RFC 7644 3.4.2)', async (t) => {
  const res = await api.call('GET', `/Users?${eq('userName', OKTA_USER.userName)}&startIndex=1&count=100`);
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^application\/scim\+json/, 'RFC 7644 8.1: application/scim+json');
  t.same(res.json(), { schemas: [LIST_RESPONSE], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });
});

t.test('Okta creates the user: 201, Location, the User field by field (RFC 7644 3.3, RFC 7643 4.1)', async (t) => {
  const res = await api.call('POST', '/Users', { body: OKTA_USER });
  t.equal(res.statusCode, 201);
  const user = res.json();
  userId = user.id;
  t.match(user.id, /^[0-9a-f-]{36}$/);
  t.equal(res.headers.location, `${BASE}/Users/${user.id}`, 'RFC 7644 3.3: Location of the new resource');
  t.equal(res.headers.etag, user.meta.version, 'RFC 7644 3.14: the ETag is meta.version');
  t.same(user.schemas, [USER_SCHEMA]);
  t.equal(user.userName, 'test.user@okta.local');
  t.equal(user.externalId, '00ujl29u0le5T6Aj10h7');
  t.same(user.name, { formatted: 'Test User', familyName: 'User', givenName: 'Test' });
  t.equal(user.displayName, 'Test User');
  t.same(user.emails, [{ value: 'test.user@okta.local', type: 'work', primary: true }]);
  t.equal(user.active, true);
  t.equal(user.meta.resourceType, 'User');
  t.equal(user.meta.location, `${BASE}/Users/${user.id}`);
  t.ok(Date.parse(user.meta.created) <= Date.parse(user.meta.lastModified));
  t.match(user.meta.version, /^W\/".+"$/, 'RFC 7643 3.1: version as a weak ETag');
  t.notOk('password' in user, 'RFC 7643 4.1.1: password is never returned');
  t.notOk(res.body.includes(OKTA_USER.password));
  // A provisioned user is an ordinary user, with no password anyone knows: Okta's is not the one kept.
  const row = await api.db
    .selectFrom('users')
    .select(['password_hash', 'email_verified'])
    .where('id', '=', user.id)
    .executeTakeFirstOrThrow();
  t.ok(row.password_hash.startsWith('$argon2id$'));
  t.equal(row.email_verified, false, 'an address the provider has not seen verified is not claimed verified');
  const audit = await api.db
    .selectFrom('admin_audit_records')
    .select(['actor_kind', 'actor_id', 'event', 'changes'])
    .where('target_id', '=', user.id)
    .execute();
  t.same(
    audit.map((a) => [a.actor_kind, a.actor_id, a.event]),
    [['client', 'okta', 'admin.user.created']],
    'the audit trail names the SCIM client as the actor',
  );
  t.notOk(JSON.stringify(audit).includes(OKTA_USER.password), 'no password in the audit trail');
});

t.test('Okta reads the user by filter and by id (RFC 7644 3.4.1, 3.4.2)', async (t) => {
  const list = (await api.call('GET', `/Users?${eq('userName', 'TEST.USER@okta.local')}&startIndex=1&count=100`)).json();
  t.equal(list.totalResults, 1, 'RFC 7643 4.1.1: userName is caseExact false');
  t.equal(list.itemsPerPage, 1);
  t.equal(list.Resources[0].id, userId);
  const one = await api.call('GET', `/Users/${userId}`);
  t.equal(one.statusCode, 200);
  t.same(one.json(), list.Resources[0]);
  t.equal(one.headers.etag, one.json().meta.version);
});

t.test('Okta updates the profile with PUT (RFC 7644 3.5.1); absent attributes are cleared', async (t) => {
  const put = await api.call('PUT', `/Users/${userId}`, {
    body: {
      ...OKTA_USER,
      id: userId,
      name: { givenName: 'Another', familyName: 'User' },
      displayName: undefined,
      emails: [{ primary: true, value: 'another.user@okta.local', type: 'work' }],
    },
  });
  t.equal(put.statusCode, 200);
  const user = put.json();
  t.same(user.name, { familyName: 'User', givenName: 'Another' });
  t.notOk('displayName' in user, 'displayName was left out, so it is cleared');
  t.same(user.emails, [{ value: 'another.user@okta.local', type: 'work', primary: true }]);
  t.equal(user.externalId, OKTA_USER.externalId);
  t.equal(user.active, true);
});

t.test('Okta deactivates with a path-less replace (RFC 7644 3.5.2.3): disabled, sessions ended', async (t) => {
  // Alice signs in first, so that deprovisioning has a session to end.
  await obtainCode(api.app, {}, { user: ALICE });
  const alice = (await api.call('GET', `/Users?${eq('userName', 'alice')}`)).json().Resources[0];
  const live = () =>
    api.db
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', alice.id)
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
  t.equal(Number((await live()).n), 1);
  const res = await api.call('PATCH', `/Users/${alice.id}`, {
    body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] },
  });
  t.equal(res.statusCode, 200);
  t.equal(res.json().active, false);
  t.equal(res.json().userName, 'alice', 'the rest of the user is left as it was');
  t.equal(Number((await live()).n), 0, 'issue 20: deprovisioning ends their sessions');
  const row = await api.db.selectFrom('users').select('disabled_at').where('id', '=', alice.id).executeTakeFirstOrThrow();
  t.ok(row.disabled_at, 'the user is disabled');
  const events = await api.db.selectFrom('admin_audit_records').select('event').where('target_id', '=', alice.id).execute();
  t.ok(
    events.some((e) => e.event === 'admin.user.disabled'),
    'disabled through the admin domain function',
  );
  const both = encodeURIComponent('userName eq "alice" and active eq false');
  const inactive = (await api.call('GET', `/Users?filter=${both}`)).json();
  t.equal(inactive.totalResults, 1, 'and filters by active');
  const reactivated = await api.call('PATCH', `/Users/${alice.id}`, {
    body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: true } }] },
  });
  t.equal(reactivated.json().active, true, 'active true enables them again');
});

t.test('Okta pushes a group: create, rename, add and remove members, delete (RFC 7644 3.3, 3.5.2, 3.6)', async (t) => {
  const created = await api.call('POST', '/Groups', { body: { schemas: [GROUP_SCHEMA], displayName: 'Test SCIMv2', members: [] } });
  t.equal(created.statusCode, 201);
  const group = created.json();
  t.same(group.schemas, [GROUP_SCHEMA]);
  t.equal(group.displayName, 'Test SCIMv2');
  t.same(group.members, []);
  t.equal(group.meta.resourceType, 'Group');
  t.equal(group.meta.location, `${BASE}/Groups/${group.id}`);
  t.equal(created.headers.location, group.meta.location);

  const found = (await api.call('GET', `/Groups?${eq('displayName', 'test scimv2')}&startIndex=1&count=100`)).json();
  t.equal(found.totalResults, 1);
  t.equal(found.Resources[0].id, group.id);

  const renamed = await api.call('PATCH', `/Groups/${group.id}`, {
    body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { id: group.id, displayName: 'Test SCIMv2 renamed' } }] },
  });
  t.equal(renamed.statusCode, 200);
  t.equal(renamed.json().displayName, 'Test SCIMv2 renamed');

  api.advance(2);
  const added = await api.call('PATCH', `/Groups/${group.id}`, {
    body: {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: userId, display: 'test.user@okta.local' }] }],
    },
  });
  t.equal(added.statusCode, 200);
  t.same(added.json().members, [{ value: userId, display: 'test.user@okta.local', $ref: `${BASE}/Users/${userId}` }]);
  t.ok(
    Date.parse(added.json().meta.lastModified) > Date.parse(renamed.json().meta.lastModified),
    'RFC 7643 3.1: a member added changes lastModified',
  );

  const removed = await api.call('PATCH', `/Groups/${group.id}`, {
    body: { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: `members[value eq "${userId}"]` }] },
  });
  t.equal(removed.statusCode, 200);
  t.same(removed.json().members, []);
  const events = await api.db
    .selectFrom('admin_audit_records')
    .select(['event', 'actor_id'])
    .where('target_id', '=', group.id)
    .orderBy('occurred_at')
    .execute();
  t.same(
    events.map((e) => e.event),
    ['admin.group.created', 'admin.group.updated', 'admin.group.member_added', 'admin.group.member_removed'],
  );
  t.ok(events.every((e) => e.actor_id === 'okta'));

  const deleted = await api.call('DELETE', `/Groups/${group.id}`);
  t.equal(deleted.statusCode, 204);
  t.equal(deleted.body, '');
  t.equal((await api.call('GET', `/Groups/${group.id}`)).statusCode, 404);
});

t.test('Okta deletes the user (RFC 7644 3.6): 204, then 404', async (t) => {
  const res = await api.call('DELETE', `/Users/${userId}`);
  t.equal(res.statusCode, 204);
  const again = await api.call('GET', `/Users/${userId}`);
  t.equal(again.statusCode, 404);
});
