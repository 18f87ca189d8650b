// Okta's SCIM 2.0 provisioning, replayed as Okta's own reference shows it ("Okta and SCIM Version 2.0",
// developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20; read from okta/okta-developer-docs,
// docs/reference/scim/scim-20/index.md): the userName lookup, the POST of a new user, the GET of one user and of a
// page of users, the PUT that carries the whole user back, deactivation by a path-less PATCH, and a pushed group:
// POST, GET, rename by PATCH, members removed and added in one PATCH, the full member push (replace), DELETE.
// Request bodies are the documented ones (only ids are ours); each answer is checked field by field against what the
// document shows and against RFC 7643 (resources) and RFC 7644 (protocol). Okta sends no DELETE for users (the
// reference, "Delete Users"): deprovisioning is the PATCH of active false, so no DELETE of a user is replayed here.
import t from 'tap';
import pino from 'pino';
import { adminContext } from '../../../src/cli/command.js';
import { setPassword } from '../../../src/domain/admin/user-admin.js';
import { ALICE, BOB } from '../../helpers/app.js';
import { obtainCode } from '../../helpers/flow.js';
import { BASE, GROUP_SCHEMA, LIST_RESPONSE, PATCH_OP, scimApp, USER_SCHEMA } from './scim-app.js';

const api = await scimApp(t);

// "Create the User": the body Okta POSTs, as the reference shows it.
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
  // "Determine if the User already exists": the query string exactly as the reference writes it.
  const res = await api.call('GET', '/Users?filter=userName%20eq%20%22test.user%40okta.local%22&startIndex=1&count=100');
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^application\/scim\+json/, 'RFC 7644 8.1: application/scim+json');
  // The reference's answer, field for field; the counts are integers, as it asks.
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
  // The reference's answer also echoes locale and groups; locale is not kept here (RFC 7644 3.3 lets a service
  // provider leave out attributes it does not support), and groups is readOnly (RFC 7643 4.1.2) and not returned.
  t.notOk('locale' in user);
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
  // "Retrieve a specific User": GET /Users/{id}.
  const one = await api.call('GET', `/Users/${userId}`);
  t.equal(one.statusCode, 200);
  t.same(one.json(), list.Resources[0]);
  t.equal(one.headers.etag, one.json().meta.version);
});

t.test('Okta imports users page by page with count=100; the order holds across pages (RFC 7644 3.4.2.4)', async (t) => {
  // "Retrieve Users": GET /Users?startIndex=1&count=100, then startIndex+100 while totalResults is larger. The
  // reference asks for integer counts and the same order whatever startIndex and count are.
  const all = await api.call('GET', '/Users?startIndex=1&count=100');
  t.equal(all.statusCode, 200);
  const page = all.json();
  t.same(page.schemas, [LIST_RESPONSE]);
  t.equal(page.totalResults, 3, 'alice, bob and the new user');
  t.equal(page.startIndex, 1);
  t.equal(page.itemsPerPage, 3);
  t.ok([page.totalResults, page.startIndex, page.itemsPerPage].every(Number.isInteger), 'integers, not strings');
  const ids = page.Resources.map((u: { id: string }) => u.id);
  t.ok(ids.includes(userId));
  for (const [i, id] of ids.entries()) {
    const one = (await api.call('GET', `/Users?startIndex=${i + 1}&count=1`)).json();
    t.equal(one.startIndex, i + 1);
    t.equal(one.totalResults, 3);
    t.same(
      one.Resources.map((u: { id: string }) => u.id),
      [id],
      `startIndex=${i + 1}&count=1 is the same user as place ${i + 1} of the full page`,
    );
  }
  const past = (await api.call('GET', '/Users?startIndex=101&count=100')).json();
  t.same([past.totalResults, past.startIndex, past.itemsPerPage, past.Resources], [3, 101, 0, []], 'a page past the end is empty');
});

t.test('Okta updates the user with the PUT of the whole User (RFC 7644 3.5.1); absent attributes are cleared', async (t) => {
  // "Update a specific User (PUT)": Okta GETs the user, changes what changed and PUTs the whole body back. This is
  // the reference's PUT body, with our id: it carries id, meta, groups and a display sub-attribute on the address,
  // and leaves out displayName, externalId and locale.
  const put = await api.call('PUT', `/Users/${userId}`, {
    body: {
      schemas: [USER_SCHEMA],
      id: userId,
      userName: 'test.user@okta.local',
      name: { givenName: 'Another', middleName: 'Excited', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work', display: 'test.user@okta.local' }],
      active: true,
      groups: [],
      meta: { resourceType: 'User' },
    },
  });
  t.equal(put.statusCode, 200);
  const user = put.json();
  t.equal(user.id, userId);
  t.equal(user.userName, 'test.user@okta.local');
  // middleName is not kept here (RFC 7644 3.3: an attribute the service provider does not support may be ignored).
  t.same(user.name, { familyName: 'User', givenName: 'Another' });
  t.same(user.emails, [{ value: 'test.user@okta.local', type: 'work', primary: true }]);
  t.equal(user.active, true);
  // RFC 7644 3.5.1: readWrite attributes left out of a PUT may be taken as cleared, and here they are.
  t.notOk('displayName' in user, 'displayName was left out, so it is cleared');
  t.notOk('externalId' in user, 'externalId was left out, so it is cleared');
  t.same(user.meta.resourceType, 'User');
  t.equal(put.headers.etag, user.meta.version);
  const again = (await api.call('GET', `/Users/${userId}`)).json();
  t.same(again, user, 'what the PUT answered is what is kept');
});

t.test('Okta deactivates with a path-less replace (RFC 7644 3.5.2.3): disabled, sessions ended', async (t) => {
  // The user Okta provisioned signs in first (with a password an admin gave them), so that deprovisioning has a
  // session to end. Okta changes only the users it provisioned (issue 38, scim-reach.test.ts).
  const password = 'okta-user-password-123';
  await setPassword(adminContext(api.config, pino({ level: 'silent' }), api.db), userId, password);
  await obtainCode(api.app, {}, { user: { username: 'test.user@okta.local', password } });
  const provisioned = (await api.call('GET', `/Users?${eq('userName', 'test.user@okta.local')}`)).json().Resources[0];
  const live = () =>
    api.db
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
  t.equal(Number((await live()).n), 1);
  // "Update a specific User (PATCH)": the body Okta sends when a user is deactivated.
  const res = await api.call('PATCH', `/Users/${userId}`, {
    body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] },
  });
  t.equal(res.statusCode, 200);
  t.equal(res.json().active, false);
  t.equal(res.json().userName, 'test.user@okta.local', 'the rest of the user is left as it was');
  t.same(res.json().emails, provisioned.emails);
  t.equal(Number((await live()).n), 0, 'issue 20: deprovisioning ends their sessions');
  const row = await api.db.selectFrom('users').select('disabled_at').where('id', '=', userId).executeTakeFirstOrThrow();
  t.ok(row.disabled_at, 'the user is disabled');
  const events = await api.db.selectFrom('admin_audit_records').select('event').where('target_id', '=', userId).execute();
  t.ok(
    events.some((e) => e.event === 'admin.user.disabled'),
    'disabled through the admin domain function',
  );
  const found = (await api.call('GET', `/Users?${eq('userName', 'test.user@okta.local')}&startIndex=1&count=100`)).json();
  t.equal(found.totalResults, 1, 'a deactivated user is still found by the lookup (Okta matches it again)');
  t.equal(found.Resources[0].active, false);
  const both = encodeURIComponent('userName eq "test.user@okta.local" and active eq false');
  const inactive = (await api.call('GET', `/Users?filter=${both}`)).json();
  t.equal(inactive.totalResults, 1, 'and filters by active');
  // The reference lists activating a user among the PATCH requests without showing its body; it is taken to be the
  // deactivation's body with true.
  const reactivated = await api.call('PATCH', `/Users/${userId}`, {
    body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: true } }] },
  });
  t.equal(reactivated.json().active, true, 'active true enables them again');
});

t.test('Okta pushes a group: create, read, rename, members, full push, delete (RFC 7644 3.3, 3.4, 3.5.2, 3.6)', async (t) => {
  // "Create Groups": the body Okta POSTs.
  const created = await api.call('POST', '/Groups', { body: { schemas: [GROUP_SCHEMA], displayName: 'Test SCIMv2', members: [] } });
  t.equal(created.statusCode, 201);
  const group = created.json();
  t.same(group.schemas, [GROUP_SCHEMA]);
  t.match(group.id, /^[0-9a-f-]{36}$/);
  t.equal(group.displayName, 'Test SCIMv2');
  t.same(group.members, []);
  t.equal(group.meta.resourceType, 'Group');
  t.equal(group.meta.location, `${BASE}/Groups/${group.id}`);
  t.equal(created.headers.location, group.meta.location);

  // "Retrieve Groups" and "Retrieve specific Groups".
  const page = (await api.call('GET', '/Groups?startIndex=1&count=100')).json();
  t.same([page.totalResults, page.startIndex, page.itemsPerPage], [1, 1, 1]);
  t.equal(page.Resources[0].id, group.id);
  const one = await api.call('GET', `/Groups/${group.id}`);
  t.equal(one.statusCode, 200);
  t.same(one.json(), page.Resources[0]);

  // "Update a specific Group name": a path-less replace that carries the group's id with the new name.
  const renamed = await api.call('PATCH', `/Groups/${group.id}`, {
    body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { id: group.id, displayName: 'Test SCIMv20' } }] },
  });
  t.equal(renamed.statusCode, 200);
  t.equal(renamed.json().id, group.id);
  t.equal(renamed.json().displayName, 'Test SCIMv20');

  const alice = (await api.call('GET', `/Users?${eq('userName', ALICE.username)}`)).json().Resources[0];
  const bob = (await api.call('GET', `/Users?${eq('userName', BOB.username)}`)).json().Resources[0];
  const member = (u: { id: string; userName: string }) => ({ value: u.id, display: u.userName, $ref: `${BASE}/Users/${u.id}` });
  const byValue = (a: { value: string }, b: { value: string }) => a.value.localeCompare(b.value);

  // "Update specific Group membership", the full push: replace with the whole member list.
  api.advance(2);
  const pushed = await api.call('PATCH', `/Groups/${group.id}`, {
    body: {
      schemas: [PATCH_OP],
      Operations: [
        {
          op: 'replace',
          path: 'members',
          value: [
            { value: userId, display: 'test.user@okta.local' },
            { value: alice.id, display: 'test.user@okta.local' },
          ],
        },
      ],
    },
  });
  t.equal(pushed.statusCode, 200);
  t.same(
    [...pushed.json().members].sort(byValue),
    [member({ id: userId, userName: 'test.user@okta.local' }), member(alice)].sort(byValue),
    "display is the server's (readOnly): the username, whatever Okta sent",
  );
  t.ok(
    Date.parse(pushed.json().meta.lastModified) > Date.parse(renamed.json().meta.lastModified),
    'RFC 7643 3.1: a change of members changes lastModified',
  );

  // The same section's PATCH: one member removed by a value filter and another added, in one request.
  const moved = await api.call('PATCH', `/Groups/${group.id}`, {
    body: {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'remove', path: `members[value eq "${alice.id}"]` },
        { op: 'add', path: 'members', value: [{ value: bob.id, display: 'test.user@okta.local' }] },
      ],
    },
  });
  t.equal(moved.statusCode, 200);
  t.equal(moved.json().displayName, 'Test SCIMv20', 'the rest of the group is left as it was');
  t.same([...moved.json().members].sort(byValue), [member({ id: userId, userName: 'test.user@okta.local' }), member(bob)].sort(byValue));

  const events = await api.db.selectFrom('admin_audit_records').select(['event', 'actor_id']).where('target_id', '=', group.id).execute();
  // Sorted: records written in one request share their time.
  t.same(
    events.map((e) => e.event).sort(),
    [
      'admin.group.created',
      'admin.group.member_added',
      'admin.group.member_added',
      'admin.group.member_added',
      'admin.group.member_removed',
      'admin.group.updated',
    ],
    'one record per change: the rename, three members added, one removed',
  );
  t.ok(events.every((e) => e.actor_id === 'okta'));

  // "Delete a specific Group": 204 with an empty body; the members stay users.
  const deleted = await api.call('DELETE', `/Groups/${group.id}`);
  t.equal(deleted.statusCode, 204);
  t.equal(deleted.body, '');
  t.equal((await api.call('GET', `/Groups/${group.id}`)).statusCode, 404);
  t.equal((await api.call('GET', `/Users/${bob.id}`)).statusCode, 200);
});
