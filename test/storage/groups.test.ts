// Groups of users (issue 20) on a real database: the admin's group actions, the seed file's groups section, users'
// roles and clients' allowed_groups, the group-name read that rides in token statements only with the groups scope,
// and the groups claim as the sorted union of local and mapped names.
import { sql } from 'kysely';
import pino from 'pino';
import t from 'tap';
import { groupsOf, MAX_GROUPS } from '../../src/domain/accounts/users.js';
import { PasswordPolicy } from '../../src/domain/accounts/password-policy.js';
import { type PasswordHasher } from '../../src/domain/accounts/passwords.js';
import type { AdminContext } from '../../src/domain/admin/admin.js';
import { AdminError } from '../../src/domain/admin-error.js';
import { applySeed, parseSeed, SeedError, type SeedFile } from '../../src/domain/admin/seed.js';
import { setRole, showUser } from '../../src/domain/admin/user-admin.js';
import { clientAdmits } from '../../src/domain/groups/allowed-groups.js';
import { addMember, createGroup, deleteGroup, listMembers, updateGroup } from '../../src/domain/groups/group-admin.js';
import { allowedGroupNames, findUserRole, localGroupNames } from '../../src/storage/groups.js';
import { ALICE, BOB, CONFIDENTIAL, testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';

const database = await createTestDatabase();
t.teardown(() => database.drop());
const db = database.handle.db;
const config = testConfig();
// Nobody signs in here: a stand-in for argon2 keeps the seed runs (each verifies every password) quick.
const passwords = {
  hash: async (plain: string) => `plain:${plain}`,
  verify: async (hash: string, plain: string) => hash === `plain:${plain}`,
} as unknown as PasswordHasher;
const ctx: AdminContext = {
  config,
  db,
  clock: () => new Date(),
  log: pino({ level: 'silent' }),
  passwords,
  passwordPolicy: new PasswordPolicy(config.passwordPolicy),
};
const HR = { ...CONFIDENTIAL, client_id: 'hr', allowed_groups: ['Staff'] };
const SEED: SeedFile = {
  clients: [CONFIDENTIAL, HR],
  users: [{ ...ALICE, role: 'admin' }, BOB],
  groups: [{ name: 'Staff', description: 'Employees', members: [ALICE.username] }, { name: 'Contractors' }],
};
const seed = (file: SeedFile) => applySeed(db, ctx.passwords, parseSeed(file));
const idOf = async (username: string) =>
  (await db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow()).id;

t.test('the groups claim is the sorted union of local and mapped names, capped, ignoring a mapped claim that is not names', async (t) => {
  t.same(groupsOf({ groups: ['zeta', 'Alpha'] }, ['beta', 'zeta']), ['Alpha', 'beta', 'zeta']);
  t.equal(groupsOf({}, []), undefined, 'no group: no claim');
  t.same(groupsOf({ groups: ['ok', 42] }, ['local']), ['local'], 'a mapped list with a non-name is not trusted');
  t.same(groupsOf({}, 'not-a-list'), undefined, 'what the database gave back is checked');
  const many = Array.from({ length: MAX_GROUPS + 20 }, (_, i) => `g${String(i).padStart(3, '0')}`);
  t.equal(groupsOf({ groups: many.slice(0, 60) }, many.slice(60))!.length, MAX_GROUPS);
});

t.test('the seed file stores groups, members, roles and allowed groups, and a second run changes nothing', async (t) => {
  const report = await seed(SEED);
  t.same(report.groups, { created: 2, updated: 0, unchanged: 0 });
  t.equal(await findUserRole(db, await idOf(ALICE.username)), 'admin');
  t.same(await allowedGroupNames(db, 'hr'), ['Staff']);
  t.same(
    (await listMembers(ctx, 'staff')).members.map((m) => m.username),
    [ALICE.username],
  );
  const again = await seed(SEED);
  t.same(again.groups, { created: 0, updated: 0, unchanged: 2 });
  t.same(again.users, { created: 0, updated: 0, unchanged: 2 });
  t.same(again.clients, { created: 0, updated: 0, unchanged: 2 });

  // Members listed are exactly the members; a role absent from the file is left alone, `none` takes it away.
  const moved = await seed({ ...SEED, users: [ALICE, BOB], groups: [{ name: 'staff', members: [BOB.username] }] });
  t.same(moved.groups, { created: 0, updated: 1, unchanged: 0 });
  t.same(
    (await listMembers(ctx, 'Staff')).members.map((m) => m.username),
    [BOB.username],
  );
  t.equal(await findUserRole(db, await idOf(ALICE.username)), 'admin', 'no role in the file: unchanged');
  await seed({ ...SEED, users: [{ ...ALICE, role: 'none' }, BOB] });
  t.equal(await findUserRole(db, await idOf(ALICE.username)), undefined);
  t.same(
    (await listMembers(ctx, 'Staff')).members.map((m) => m.username),
    [ALICE.username],
    'put back',
  );
});

t.test('the seed file refuses bad groups at once, and an unknown group or member when applied, writing nothing', async (t) => {
  t.throws(
    () => parseSeed({ clients: [], users: [], groups: [{ name: ' x' }, { name: 'A' }, { name: 'a', extra: 1 }] }),
    new SeedError([
      'groups[0]: name must not start or end with white space',
      'groups[2]: unknown field "extra"',
      'group "a" appears more than once',
    ]),
  );
  t.throws(() => parseSeed({ clients: [{ ...HR, allowed_groups: 'Staff' }], users: [] }), /allowed_groups must be a list of group names/);
  t.throws(() => parseSeed({ clients: [], users: [{ ...BOB, role: 'root' }] }), /role must be "admin", "auditor" or "none"/);

  const before = await db
    .selectFrom('groups')
    .select(sql<number>`count(*)::int`.as('n'))
    .executeTakeFirstOrThrow();
  await t.rejects(
    seed({ clients: [{ ...HR, allowed_groups: ['Ghosts'] }], users: [], groups: [{ name: 'New' }] }),
    new SeedError(['client "hr": allowed_groups names no group "Ghosts"']),
  );
  await t.rejects(
    seed({ clients: [], users: [], groups: [{ name: 'Newer', members: ['nobody'] }] }),
    new SeedError(['group "Newer": members names no user "nobody" (of the file or stored)']),
  );
  const after = await db
    .selectFrom('groups')
    .select(sql<number>`count(*)::int`.as('n'))
    .executeTakeFirstOrThrow();
  t.equal(after.n, before.n, 'neither file wrote a group');
});

t.test('group names are unique in any case; a rename to a taken name is refused', async (t) => {
  await t.rejects(createGroup(ctx, { name: 'STAFF' }), AdminError);
  await t.rejects(updateGroup(ctx, 'Contractors', { name: 'staff' }), /a group named "staff" exists already/);
  const renamed = await updateGroup(ctx, 'contractors', { name: 'Vendors', description: 'Outside help' });
  t.same(renamed.changed, ['description', 'name']);
  t.same((await showUser(ctx, BOB.username)).groups, []);
});

t.test('the client admits members and mapped names; deleting its last group leaves it admitting nobody', async (t) => {
  const limit = { clientId: 'hr', groupRestricted: true };
  const alice = await idOf(ALICE.username);
  const bob = await idOf(BOB.username);
  t.equal(await clientAdmits(ctx, limit, alice), true, 'a member');
  t.equal(await clientAdmits(ctx, limit, bob), false, 'not a member');
  t.equal(await clientAdmits(ctx, { clientId: 'hr', groupRestricted: false }, bob), true, 'no limit, no query');
  await db
    .updateTable('users')
    .set({ claims: JSON.stringify({ groups: ['STAFF'] }) as never })
    .where('id', '=', bob)
    .execute();
  t.equal(await clientAdmits(ctx, limit, bob), true, 'a mapped group name, in any case');

  await createGroup(ctx, { name: 'Temp' });
  await addMember(ctx, 'Temp', ALICE.username);
  await deleteGroup(ctx, 'Temp');
  await deleteGroup(ctx, 'Staff');
  t.same(await allowedGroupNames(db, 'hr'), []);
  const row = await db.selectFrom('clients').select('group_restricted').where('client_id', '=', 'hr').executeTakeFirstOrThrow();
  t.equal(row.group_restricted, true, 'still limited');
  t.equal(await clientAdmits(ctx, limit, alice), false, 'to nobody: the limit fails closed');
  await seed(SEED);
});

t.test('the local group names are read in a token statement only when its scope holds groups', async (t) => {
  const alice = await idOf(ALICE.username);
  const read = async (scope: string) =>
    (await db.selectNoFrom(localGroupNames(sql.val(scope), sql.val(alice)).as('names')).executeTakeFirstOrThrow()).names;
  t.same(await read('openid groups'), ['Staff']);
  t.equal(await read('openid profile'), null, 'not read without the scope');
  t.equal(await read('openid groupsx'), null, 'a whole scope value, not a prefix');
});

t.test('users set-role: admin, auditor, none; refused otherwise', async (t) => {
  const done = await setRole(ctx, BOB.username, 'auditor');
  t.match(done, { role: 'auditor', previous: 'none', changed: true });
  t.equal((await showUser(ctx, BOB.username)).role, 'auditor');
  t.match(await setRole(ctx, BOB.username, 'auditor'), { changed: false });
  await t.rejects(setRole(ctx, BOB.username, 'root' as never), /"root" is not a role/);
  await setRole(ctx, BOB.username, 'none');
  t.equal(await findUserRole(db, await idOf(BOB.username)), undefined);
});
