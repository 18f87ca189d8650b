// Organizations (issue 40) on a real database: the admin's organization actions, roles, members and domain claims,
// and the isolation of an organization-scoped actor (an organization's admin, an organization-scoped token): outside
// its organization nothing exists, and what only a provider-wide admin may do is refused.
import t, { type Test } from 'tap';
import type { AdminContext } from '../../src/domain/admin/admin.js';
import { AdminError } from '../../src/domain/admin-error.js';
import { applySeed, parseSeed } from '../../src/domain/admin/seed.js';
import {
  addOrganizationDomain,
  addOrganizationMember,
  createOrganization,
  createOrganizationRole,
  deleteOrganization,
  deleteOrganizationRoleByName,
  listOrganizationDomains,
  listOrganizationMembers,
  listOrganizations,
  organizationsOfUser,
  removeOrganizationMember,
  setOrganizationMemberRoles,
  showOrganization,
  updateOrganization,
} from '../../src/domain/organizations/organization-admin.js';
import { normalizeDomain } from '../../src/domain/organizations/organization-names.js';
import { addWebhook } from '../../src/domain/webhooks/webhook-admin.js';
import { emitWebhookEvent } from '../../src/domain/webhooks/emit.js';
import { isUniqueViolation } from '../../src/storage/database-errors.js';
import { findVerifiedDomain, recordDomainCheck } from '../../src/storage/organizations.js';
import { ALICE, BOB, testConfig } from '../helpers/app.js';
import { adminContext, PLAIN_PASSWORDS } from '../helpers/admin-context.js';
import { createTestDatabase } from '../helpers/database.js';

const database = await createTestDatabase();
t.teardown(() => database.drop());
const db = database.handle.db;
const config = testConfig();
const passwords = PLAIN_PASSWORDS;
const ctx = adminContext(db, config);
await applySeed(db, passwords, parseSeed({ users: [ALICE, BOB] }));

const refused = async (t: Test, p: Promise<unknown>, kind: string, what: string) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof AdminError, `${what}: refused`);
  t.equal((err as AdminError).kind, kind, `${what}: ${kind}`);
};

t.test('an organization is made, named by id or slug, changed, and its settings are checked', async (t) => {
  const acme = await createOrganization(ctx, { slug: 'acme', display_name: 'Acme Corp', policies: { require_second_factor: true } });
  t.equal(acme.policies.requireSecondFactor, true);
  t.same(acme.policies.signInMethods, ['password', 'passkey', 'connection'], 'every method unless limited');
  t.equal((await showOrganization(ctx, acme.id)).slug, 'acme');
  t.equal((await showOrganization(ctx, 'acme')).id, acme.id);
  await refused(t, createOrganization(ctx, { slug: 'acme', display_name: 'Another' }), 'conflict', 'a taken slug');
  await refused(t, createOrganization(ctx, { slug: 'Bad Slug', display_name: 'x' }), 'invalid', 'a slug with spaces');
  await refused(
    t,
    createOrganization(ctx, { slug: 'ok', display_name: 'x', branding: { logo_url: 'http://x.example/l.png' } }),
    'invalid',
    'a logo over http',
  );
  await refused(
    t,
    createOrganization(ctx, { slug: 'ok', display_name: 'x', policies: { join: 'anyone' } }),
    'invalid',
    'an unknown join policy',
  );
  const { organization, changed } = await updateOrganization(ctx, 'acme', { branding: { primary_color: '#AA0000' } });
  t.same(changed, ['branding']);
  t.equal(organization.branding.primaryColor, '#aa0000');
  t.same(
    (await updateOrganization(ctx, 'acme', { branding: { primary_color: '#aa0000' } })).changed,
    [],
    'the same value: nothing written',
  );
  const audit = await db
    .selectFrom('admin_audit_records')
    .select(['event', 'organization_id'])
    .where('organization_id', '=', acme.id)
    .execute();
  t.same(
    audit.map((a) => a.event).sort(),
    ['admin.organization.created', 'admin.organization.updated'],
    'audit records carry the organization',
  );
});

t.test('members hold roles the organization has; the last admin stays; a role deleted leaves every member', async (t) => {
  const org = await createOrganization(ctx, { slug: 'globex', display_name: 'Globex' });
  await createOrganizationRole(ctx, 'globex', 'billing', 'Sees invoices');
  await refused(t, createOrganizationRole(ctx, 'globex', 'admin'), 'conflict', 'a built-in role again');
  await refused(t, addOrganizationMember(ctx, 'globex', ALICE.username, { roles: ['owner'] }), 'invalid', 'a role it does not have');
  t.equal((await addOrganizationMember(ctx, 'globex', ALICE.username, { roles: ['admin'] })).added, true);
  t.equal((await addOrganizationMember(ctx, 'globex', ALICE.username)).added, false, 'a member already: nothing written');
  await addOrganizationMember(ctx, 'globex', BOB.username, { roles: ['billing'], source: 'invitation' });
  const members = await listOrganizationMembers(ctx, 'globex', { limit: 10 });
  t.same(
    members.map((m) => [m.username, m.roles, m.source]),
    [
      [ALICE.username, ['member', 'admin'], 'admin'],
      [BOB.username, ['member', 'billing'], 'invitation'],
    ],
  );
  // The organization's own admin cannot leave it without one; a provider-wide admin can.
  const orgAdmin: AdminContext = { ...ctx, organizationScope: org.id };
  await refused(t, setOrganizationMemberRoles(orgAdmin, 'globex', ALICE.username, []), 'conflict', 'the last admin dropping the role');
  await refused(t, removeOrganizationMember(orgAdmin, 'globex', ALICE.username), 'conflict', 'the last admin leaving');
  await deleteOrganizationRoleByName(ctx, 'globex', 'billing');
  t.same((await listOrganizationMembers(ctx, 'globex', { limit: 10 }))[1]!.roles, ['member'], 'the deleted role is gone from its holders');
  t.same(
    (await organizationsOfUser(ctx, BOB.username)).map((o) => o.slug),
    ['globex'],
  );
  t.equal((await removeOrganizationMember(ctx, 'globex', BOB.username)).removed, true);
});

t.test('an organization-scoped actor reaches its own organization only, and can neither make nor delete one', async (t) => {
  const own = await createOrganization(ctx, { slug: 'initech', display_name: 'Initech' });
  const other = await createOrganization(ctx, { slug: 'umbrella', display_name: 'Umbrella' });
  const scoped: AdminContext = { ...ctx, organizationScope: own.id };
  t.same(
    (await listOrganizations(scoped, { limit: 100 })).map((o) => o.slug),
    ['initech'],
    'the list holds its own organization only',
  );
  for (const ref of ['umbrella', other.id]) {
    await refused(t, showOrganization(scoped, ref), 'not_found', `show ${ref}`);
    await refused(t, updateOrganization(scoped, ref, { display_name: 'Taken over' }), 'not_found', `update ${ref}`);
    await refused(t, addOrganizationMember(scoped, ref, BOB.username), 'not_found', `add a member to ${ref}`);
    await refused(t, addOrganizationDomain(scoped, ref, 'umbrella.example'), 'not_found', `claim a domain for ${ref}`);
    await refused(t, createOrganizationRole(scoped, ref, 'spy'), 'not_found', `define a role in ${ref}`);
  }
  await refused(t, showOrganization(scoped, 'no-such-org'), 'not_found', 'one that exists nowhere gets the same answer');
  await refused(t, createOrganization(scoped, { slug: 'mine', display_name: 'Mine' }), 'forbidden', 'making an organization');
  await refused(t, deleteOrganization(scoped, 'initech'), 'forbidden', 'deleting even its own');
  t.equal((await showOrganization(ctx, 'umbrella')).displayName, 'Umbrella', 'nothing changed in the other');
  t.same(await listOrganizationMembers(ctx, 'umbrella', { limit: 10 }), []);
});

t.test('domains: normalised, claimed by several, verified by one only; deleting the organization takes what hangs off it', async (t) => {
  t.equal(normalizeDomain('Example.COM.'), 'example.com');
  t.equal(normalizeDomain('bücher.example'), 'xn--bcher-kva.example');
  for (const bad of ['localhost', '*.example.com', '10.0.0.1', 'http://x.example', '-a.example'])
    t.equal(normalizeDomain(bad), undefined, bad);
  const a = await createOrganization(ctx, { slug: 'hooli', display_name: 'Hooli' });
  const b = await createOrganization(ctx, { slug: 'piedpiper', display_name: 'Pied Piper' });
  const claim = await addOrganizationDomain(ctx, 'hooli', 'Hooli.Example');
  t.equal(claim.record.name, '_sso-verify.hooli.example');
  t.match(claim.record.value, /^sso-verify=[A-Za-z0-9_-]{32}$/);
  await refused(t, addOrganizationDomain(ctx, 'hooli', 'hooli.example'), 'conflict', 'the same claim twice');
  await addOrganizationDomain(ctx, 'piedpiper', 'hooli.example');
  const now = new Date();
  await recordDomainCheck(db, a.id, 'hooli.example', { found: true, now, unverify: false });
  t.equal((await findVerifiedDomain(db, 'hooli.example'))?.organization_id, a.id);
  const second = await recordDomainCheck(db, b.id, 'hooli.example', { found: true, now, unverify: false }).catch((e: unknown) => e);
  t.ok(isUniqueViolation(second), 'a domain verified by one organization cannot be verified by another');
  t.same(
    (await listOrganizationDomains(ctx, 'piedpiper')).map((d) => d.verifiedAt),
    [null],
  );
  await addOrganizationMember(ctx, 'hooli', ALICE.username);
  await deleteOrganization(ctx, 'hooli');
  t.equal(await findVerifiedDomain(db, 'hooli.example'), undefined, 'its domains went with it');
  t.same((await organizationsOfUser(ctx, ALICE.username)).map((o) => o.slug).includes('hooli'), false, 'its memberships went with it');
  t.ok(await db.selectFrom('users').select('id').where('username', '=', ALICE.username).executeTakeFirst(), 'the users stay');
});

t.test("a webhook subscription limited to an organization gets that organization's events only", async (t) => {
  const a = await createOrganization(ctx, { slug: 'wh-a', display_name: 'A' });
  await createOrganization(ctx, { slug: 'wh-b', display_name: 'B' });
  const hook = (id: string, organization?: string) =>
    addWebhook(ctx, {
      id,
      url: 'https://hooks.example/in',
      events: ['organization.member_added', 'user.updated'],
      ...(organization === undefined ? {} : { organization }),
    });
  t.equal((await hook('wh-only-a', 'wh-a')).subscription.organizationId, a.id);
  await hook('wh-all');
  await refused(t, hook('wh-none', 'no-such-org'), 'not_found', 'an organization that does not exist');
  await refused(
    t,
    addWebhook(
      { ...ctx, organizationScope: a.id },
      { id: 'wh-b-spy', url: 'https://hooks.example/in', events: ['*'], organization: 'wh-b' },
    ),
    'not_found',
    "another organization's events, for a scoped actor",
  );
  await addOrganizationMember(ctx, 'wh-a', ALICE.username);
  await addOrganizationMember(ctx, 'wh-b', ALICE.username);
  await emitWebhookEvent(ctx, db, 'user.updated', { user_id: 'u1' });
  const delivered = async (subscription: string) =>
    (
      await db
        .selectFrom('webhook_deliveries')
        .select(['event_type', 'payload'])
        .where('subscription_id', '=', subscription)
        .orderBy('position')
        .execute()
    ).map((d) => `${d.event_type} ${(d.payload as { organization_id?: string }).organization_id ?? '-'}`);
  t.same(
    await delivered('wh-only-a'),
    [`organization.member_added ${a.id}`],
    'its own organization only: not the other, not provider-wide events',
  );
  t.equal((await delivered('wh-all')).length, 3, 'an unlimited subscription gets every event');
});
