// The seed file's organizations section (issue 40, src/domain/organizations/seed-organizations.ts) on a real
// database: created by slug, applied again without change, refused entries named, nothing written of a refused file.
import t from 'tap';
import { type PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { applySeed, parseSeed, SeedError, type SeedFile } from '../../src/domain/admin/seed.js';
import { findOrganizationBySlug, listOrganizationDomainRows, listOrganizationRoleRows } from '../../src/storage/organizations.js';
import { ALICE, BOB } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';

const database = await createTestDatabase();
t.teardown(() => database.drop());
const db = database.handle.db;
// Nobody signs in here: a stand-in for argon2 keeps the seed runs quick.
const passwords = {
  hash: async (plain: string) => `plain:${plain}`,
  verify: async (hash: string, plain: string) => hash === `plain:${plain}`,
} as unknown as PasswordHasher;
const seed = (file: unknown) => applySeed(db, passwords, parseSeed(file));

const SEED: SeedFile = parseSeed({
  clients: [],
  users: [ALICE, BOB],
  organizations: [
    {
      slug: 'acme',
      display_name: 'Acme Corp',
      policies: { require_second_factor: true, join: 'domain' },
      branding: { primary_color: '#112233' },
      roles: [{ name: 'billing', description: 'Pays the bills' }],
      members: [{ username: ALICE.username, roles: ['admin', 'billing'] }, { username: BOB.username }],
      domains: ['Acme.Example'],
    },
    { slug: 'globex', display_name: 'Globex' },
  ],
});

const members = async (slug: string) => {
  const org = await findOrganizationBySlug(db, slug);
  return db
    .selectFrom('organization_members')
    .innerJoin('users', 'users.id', 'organization_members.user_id')
    .select(['users.username', 'organization_members.roles', 'organization_members.source'])
    .where('organization_id', '=', org!.id)
    .orderBy('users.username')
    .execute();
};

t.test('the seed file stores organizations, roles, members and domains; a second run changes nothing', async (t) => {
  const report = await seed(SEED);
  t.same(report.organizations, { created: 2, updated: 0, unchanged: 0 });
  const acme = (await findOrganizationBySlug(db, 'acme'))!;
  t.equal(acme.display_name, 'Acme Corp');
  t.same(
    (await listOrganizationRoleRows(db, acme.id)).map((r) => [r.name, r.description]),
    [['billing', 'Pays the bills']],
  );
  t.same(await members('acme'), [
    { username: ALICE.username, roles: ['member', 'admin', 'billing'], source: 'admin' },
    { username: BOB.username, roles: ['member'], source: 'admin' },
  ]);
  const domains = await listOrganizationDomainRows(db, acme.id);
  t.same(
    domains.map((d) => [d.domain, d.verified_at]),
    [['acme.example', null]],
    'claimed, normalised, unverified',
  );

  const again = await seed(SEED);
  t.same(again.organizations, { created: 0, updated: 0, unchanged: 2 }, 'idempotent');
  t.equal((await listOrganizationDomainRows(db, acme.id))[0]!.verification_token, domains[0]!.verification_token, 'the token stays');

  const changed = await seed({
    clients: [],
    users: [ALICE, BOB],
    organizations: [{ slug: 'acme', display_name: 'Acme', members: [{ username: BOB.username, roles: ['billing'] }] }],
  });
  t.same(changed.organizations, { created: 0, updated: 1, unchanged: 0 });
  t.same(
    (await members('acme')).map((m) => [m.username, m.roles]),
    [
      [ALICE.username, ['member', 'admin', 'billing']],
      [BOB.username, ['member', 'billing']],
    ],
    'a member missing from the file stays; a listed one takes the roles of the file',
  );
  const policies = (await findOrganizationBySlug(db, 'acme'))!.policies as { require_second_factor: boolean } | string;
  t.match(JSON.stringify(policies), /"require_second_factor":\s*true/, 'policies the file leaves out keep their values');
});

t.test('refused entries name their problem, and a refused file writes nothing', async (t) => {
  let refused: unknown;
  try {
    parseSeed({
      clients: [],
      users: [],
      organizations: [
        { slug: 'Bad Slug', display_name: 'x', extra: 1 },
        { slug: 'ok', display_name: 'Ok', roles: [{ name: 'admin' }], domains: ['*.example.com'], policies: { join: 'all' } },
        { slug: 'ok', display_name: 'Again', members: [{ name: 'alice' }] },
      ],
    });
  } catch (err) {
    refused = err;
  }
  t.ok(refused instanceof SeedError);
  const problems = (refused as SeedError).problems;
  t.match(problems, [
    'organizations[0]: unknown field "extra"',
    /^organizations\[0\]: the organization was refused: .*slug/,
    /^organizations\[1\]: the organization was refused: policies\.join/,
    'organizations[1].roles[0]: "admin" is a role every organization has',
    'organizations[1].domains[0]: "*.example.com" is not a domain name',
    'organizations[2].members[0] must be {username, roles?: [role, ...]}',
    'organization "ok" appears more than once',
  ]);
  await t.rejects(
    seed({ clients: [], users: [], organizations: [{ slug: 'initech', display_name: 'Initech', members: [{ username: 'nobody' }] }] }),
    new SeedError(['organization "initech": members names no user "nobody" (of the file or stored)']),
  );
  await t.rejects(
    seed({
      clients: [],
      users: [],
      organizations: [{ slug: 'initech', display_name: 'Initech', members: [{ username: ALICE.username, roles: ['pilot'] }] }],
    }),
    new SeedError([`organization "initech": member "${ALICE.username}" names no role "pilot"`]),
  );
  t.equal(await findOrganizationBySlug(db, 'initech'), undefined, 'nothing partial: the transaction rolled back');
});
