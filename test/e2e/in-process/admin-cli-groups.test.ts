// `sso-admin groups ...`, `users set-role` and `clients --allowed-groups` (issue 20) as an operator runs them.
import t from 'tap';
import { adminStore, events, json, runAdmin } from '../../helpers/admin-cli.js';

const store = await adminStore(t);
const admin = (args: string[], input?: string) => runAdmin(args, store.env, input === undefined ? {} : { input });

t.before(async () => {
  for (const name of ['alice', 'bob']) {
    const created = await admin(['users', 'create', name, '--password-stdin'], `${name}-long-passphrase`);
    if (created.code !== 0) throw new Error(created.stderr);
  }
});

t.test('groups add, list, show, update and remove; names are unique in any case; bad input exits 1 or 2', async (t) => {
  const added = await admin(['groups', 'add', 'Staff', '--description', 'Everyone employed', '--json']);
  t.equal(added.code, 0, added.stderr);
  t.match(json(added), { name: 'Staff', description: 'Everyone employed', members: 0 });
  t.same(events(added), ['admin.group.created']);

  const taken = await admin(['groups', 'add', 'STAFF']);
  t.equal(taken.code, 1);
  t.equal(taken.message, 'sso-admin groups add: a group named "STAFF" exists already (names are unique, in any case)');
  const blank = await admin(['groups', 'add', ' padded']);
  t.equal(blank.code, 1);
  t.match(blank.message, /name must not start or end with white space/);
  const nothing = await admin(['groups', 'update', 'staff']);
  t.equal(nothing.code, 2, 'nothing to change is a usage error');

  const renamed = await admin(['groups', 'update', 'staff', '--name', 'Employees', '--description', '', '--json']);
  t.equal(renamed.code, 0, renamed.stderr);
  t.match(json(renamed), { name: 'Employees', description: null, changed: ['description', 'name'] });
  t.same(events(renamed), ['admin.group.updated']);

  await admin(['groups', 'add', 'Contractors']);
  const list = await admin(['groups', 'list']);
  t.match(list.stdout, /Contractors[\s\S]*Employees/, 'listed by name');
  const shown = await admin(['groups', 'show', 'employees']);
  t.match(shown.stdout, /name\s+Employees/);

  const refused = await admin(['groups', 'remove', 'contractors']);
  t.equal(refused.code, 2, 'remove asks first, and without a terminal needs --yes');
  const removed = await admin(['groups', 'remove', 'contractors', '--yes', '--json']);
  t.equal(removed.code, 0, removed.stderr);
  t.same(events(removed), ['admin.group.deleted']);
  t.equal((await admin(['groups', 'show', 'Contractors'])).code, 1);
});

t.test('add-member, members, remove-member; users show lists the groups; adding twice changes nothing', async (t) => {
  const added = await admin(['groups', 'add-member', 'Employees', 'alice', '--json']);
  t.match(json(added), { group: 'Employees', username: 'alice', added: true });
  t.same(events(added), ['admin.group.member_added']);
  const again = await admin(['groups', 'add-member', 'employees', 'ALICE']);
  t.equal(again.stdout.trim(), '"alice" was already in group "Employees"');
  t.same(events(again), [], 'nothing written, nothing logged');

  const members = json<{ members: Array<{ username: string }> }>(await admin(['groups', 'members', 'Employees', '--json']));
  t.same(
    members.members.map((m) => m.username),
    ['alice'],
  );
  t.match(json(await admin(['users', 'show', 'alice', '--json'])), { groups: ['Employees'], role: 'none' });
  const unknownUser = await admin(['groups', 'add-member', 'Employees', 'nobody']);
  t.equal(unknownUser.code, 1);
  t.match(unknownUser.message, /no user "nobody"/);

  await admin(['groups', 'add-member', 'Employees', 'bob']);
  const out = await admin(['groups', 'remove-member', 'Employees', 'bob', '--json']);
  t.match(json(out), { removed: true });
  t.same(events(out), ['admin.group.member_removed']);
  t.match((await admin(['groups', 'remove-member', 'Employees', 'bob'])).stdout, /"bob" was not in group "Employees"/);
});

t.test('users set-role gives and takes the console roles admin and auditor', async (t) => {
  const set = await admin(['users', 'set-role', 'bob', 'auditor', '--json']);
  t.equal(set.code, 0, set.stderr);
  t.match(json(set), { username: 'bob', role: 'auditor', previous_role: 'none', changed: true });
  t.same(events(set), ['admin.user.role_set']);
  t.equal((await admin(['users', 'set-role', 'bob', 'auditor'])).stdout.trim(), 'role of "bob" was already auditor: unchanged');
  t.match((await admin(['users', 'show', 'bob'])).stdout, /role\s+auditor/);
  const none = json(await admin(['users', 'set-role', 'bob', 'none', '--json']));
  t.match(none, { role: 'none', previous_role: 'auditor' });
  const bad = await admin(['users', 'set-role', 'bob', 'root']);
  t.equal(bad.code, 2);
  t.match(bad.message, /the role must be one of admin, auditor, none/);
});

t.test('clients take --allowed-groups (a name no group has is refused), show them, and --remove lifts the limit', async (t) => {
  const base = ['--redirect-uri', 'https://app.example/cb', '--token-endpoint-auth-method', 'none'];
  const unknown = await admin(['clients', 'create', 'hr', ...base, '--allowed-groups', 'Nobody']);
  t.equal(unknown.code, 1);
  t.match(unknown.message, /no group "Nobody"/);
  t.equal((await admin(['clients', 'show', 'hr'])).code, 1, 'nothing was written');

  const created = await admin(['clients', 'create', 'hr', ...base, '--allowed-groups', 'employees', '--json']);
  t.equal(created.code, 0, created.stderr);
  t.match(json(created), { client_id: 'hr', allowed_groups: ['Employees'] });
  t.match((await admin(['clients', 'show', 'hr'])).stdout, /allowed_groups\s+Employees/);
  const same = json(await admin(['clients', 'update', 'hr', '--allowed-groups', 'EMPLOYEES', '--json']));
  t.same(same.changed, [], 'the same group in another case is no change');

  const lifted = json(await admin(['clients', 'update', 'hr', '--remove', 'allowed_groups', '--json']));
  t.same(lifted.changed, ['allowed_groups']);
  t.notOk('allowed_groups' in lifted);
  await store.withDb(async (db) => {
    const row = await db.selectFrom('clients').select('group_restricted').where('client_id', '=', 'hr').executeTakeFirstOrThrow();
    t.equal(row.group_restricted, false);
  });

  await admin(['clients', 'update', 'hr', '--allowed-groups', 'Employees']);
  await admin(['groups', 'remove', 'Employees', '--yes']);
  t.match(
    json(await admin(['clients', 'show', 'hr', '--json'])),
    { allowed_groups: [] },
    'the last group deleted leaves the client limited to none: it admits nobody (fails closed)',
  );
});
