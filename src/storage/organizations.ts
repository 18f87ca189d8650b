// Repository for organizations (issue 40): the organization rows, their roles, members, domains and invitations.
// Rules (who may do what, what a valid slug or domain is) are in src/domain/organizations/; here is only SQL.
import { sql, type Insertable } from 'kysely';
import type { Db } from './database.js';
import type {
  MembershipSource,
  OrganizationDomainRow,
  OrganizationInvitationRow,
  OrganizationMemberRow,
  OrganizationRoleRow,
  OrganizationRow,
  OrganizationsTable,
} from './schema.js';

/** An organization with how many members it has. */
export type OrganizationWithCount = OrganizationRow & { members: number };

/** A member as an admin lists them. */
export interface OrganizationMemberListRow {
  user_id: string;
  username: string;
  email: string | null;
  roles: string[];
  source: MembershipSource;
  joined_at: Date;
}

/** One of a user's memberships, with the organization's names. */
export interface MembershipOfUserRow {
  organization_id: string;
  slug: string;
  display_name: string;
  roles: string[];
  source: MembershipSource;
  joined_at: Date;
}

/** Organizations by slug, `limit` at a time after `afterSlug`, with their member counts. */
export function listOrganizationRows(db: Db, page: { afterSlug?: string | undefined; limit: number }): Promise<OrganizationWithCount[]> {
  let query = db
    .selectFrom('organizations as o')
    .selectAll('o')
    .select(sql<number>`(SELECT count(*)::int FROM organization_members m WHERE m.organization_id = o.id)`.as('members'))
    .orderBy('o.slug')
    .limit(page.limit);
  if (page.afterSlug !== undefined) query = query.where('o.slug', '>', page.afterSlug);
  return query.execute();
}

export function findOrganizationById(db: Db, id: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findOrganizationBySlug(db: Db, slug: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('slug', '=', slug).executeTakeFirst();
}

export function countOrganizationMembers(db: Db, organizationId: string): Promise<number> {
  return db
    .selectFrom('organization_members')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow()
    .then((r) => r.n);
}

/** A new organization's row, its branding and policies as their columns hold them (organization-settings.ts). */
export type NewOrganizationRow = Insertable<OrganizationsTable>;

/** Inserts the organization unless its slug is taken; false when it was. */
export async function insertOrganizationIfAbsent(db: Db, row: NewOrganizationRow): Promise<boolean> {
  const inserted = await db
    .insertInto('organizations')
    .values(row)
    .onConflict((oc) => oc.column('slug').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Changes what is given; undefined when there is no such organization. A taken slug throws a unique violation. */
export function updateOrganizationRow(
  db: Db,
  id: string,
  changes: {
    slug?: string;
    display_name?: string;
    branding?: string;
    policies?: string;
    updated_at: Date;
  },
): Promise<OrganizationRow | undefined> {
  return db.updateTable('organizations').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Deletes the organization with everything that hangs off it (ON DELETE CASCADE). False when there was none. */
export async function deleteOrganizationRow(db: Db, id: string): Promise<boolean> {
  return (await db.deleteFrom('organizations').where('id', '=', id).returning('id').executeTakeFirst()) !== undefined;
}

// --- roles the organization defines ---

export function listOrganizationRoleRows(db: Db, organizationId: string): Promise<OrganizationRoleRow[]> {
  return db.selectFrom('organization_roles').selectAll().where('organization_id', '=', organizationId).orderBy('name').execute();
}

/** Inserts the role unless the organization has it; false when it had. */
export async function insertOrganizationRole(db: Db, row: OrganizationRoleRow): Promise<boolean> {
  const inserted = await db
    .insertInto('organization_roles')
    .values(row)
    .onConflict((oc) => oc.columns(['organization_id', 'name']).doNothing())
    .returning('name')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Deletes the role and takes it from every member who had it; false when the organization had no such role. */
export async function deleteOrganizationRole(db: Db, organizationId: string, name: string): Promise<boolean> {
  const deleted = await db
    .deleteFrom('organization_roles')
    .where('organization_id', '=', organizationId)
    .where('name', '=', name)
    .returning('name')
    .executeTakeFirst();
  if (!deleted) return false;
  await db
    .updateTable('organization_members')
    .set({ roles: sql<string[]>`array_remove(roles, ${name})` })
    .where('organization_id', '=', organizationId)
    .where(sql<boolean>`${name} = ANY(roles)`)
    .execute();
  return true;
}

// --- members ---

export function listOrganizationMemberRows(
  db: Db,
  organizationId: string,
  page: { afterUsername?: string | undefined; limit: number },
): Promise<OrganizationMemberListRow[]> {
  let query = db
    .selectFrom('organization_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'u.username', 'u.email', 'm.roles', 'm.source', 'm.joined_at'])
    .where('m.organization_id', '=', organizationId)
    .orderBy('u.username')
    .limit(page.limit);
  if (page.afterUsername !== undefined) query = query.where('u.username', '>', page.afterUsername);
  return query.execute();
}

export function findMembership(db: Db, organizationId: string, userId: string): Promise<OrganizationMemberRow | undefined> {
  return db
    .selectFrom('organization_members')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** The user's memberships, by the organizations' slugs. */
export function listMembershipsOfUser(db: Db, userId: string): Promise<MembershipOfUserRow[]> {
  return db
    .selectFrom('organization_members as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .select(['m.organization_id', 'o.slug', 'o.display_name', 'm.roles', 'm.source', 'm.joined_at'])
    .where('m.user_id', '=', userId)
    .orderBy('o.slug')
    .execute();
}

/** Inserts the membership unless it exists; false when it did (nothing written). */
export async function insertMembership(db: Db, row: OrganizationMemberRow): Promise<boolean> {
  const inserted = await db
    .insertInto('organization_members')
    .values(row)
    .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doNothing())
    .returning('user_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Sets the member's roles; undefined when they are not a member. */
export function updateMembershipRoles(
  db: Db,
  organizationId: string,
  userId: string,
  roles: string[],
): Promise<OrganizationMemberRow | undefined> {
  return db
    .updateTable('organization_members')
    .set({ roles })
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteMembership(db: Db, organizationId: string, userId: string): Promise<boolean> {
  const deleted = await db
    .deleteFrom('organization_members')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .returning('user_id')
    .executeTakeFirst();
  return deleted !== undefined;
}

/** How many members hold the role (the last admin is kept from leaving an organization with none). */
export function countMembersWithRole(db: Db, organizationId: string, role: string): Promise<number> {
  return db
    .selectFrom('organization_members')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('organization_id', '=', organizationId)
    .where(sql<boolean>`${role} = ANY(roles)`)
    .executeTakeFirstOrThrow()
    .then((r) => r.n);
}

// --- domains ---

export function listOrganizationDomainRows(db: Db, organizationId: string): Promise<OrganizationDomainRow[]> {
  return db.selectFrom('organization_domains').selectAll().where('organization_id', '=', organizationId).orderBy('domain').execute();
}

export function findOrganizationDomain(db: Db, organizationId: string, domain: string): Promise<OrganizationDomainRow | undefined> {
  return db
    .selectFrom('organization_domains')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('domain', '=', domain)
    .executeTakeFirst();
}

/** The organization holding the domain verified, if one does: home-realm discovery. One index lookup. */
export function findVerifiedDomain(db: Db, domain: string): Promise<OrganizationDomainRow | undefined> {
  return db
    .selectFrom('organization_domains')
    .selectAll()
    .where('domain', '=', domain)
    .where('verified_at', 'is not', null)
    .executeTakeFirst();
}

/** Inserts the claim unless the organization has it; false when it had. */
export async function insertOrganizationDomain(db: Db, row: OrganizationDomainRow): Promise<boolean> {
  const inserted = await db
    .insertInto('organization_domains')
    .values(row)
    .onConflict((oc) => oc.columns(['organization_id', 'domain']).doNothing())
    .returning('domain')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Records a check of the domain's TXT record: verified (verified_at kept or set, failures back to 0) or not (failures
 * counted; verified_at cleared when `unverify`). A second organization verifying a domain another holds throws a
 * unique violation (organization_domains_verified_key).
 */
export function recordDomainCheck(
  db: Db,
  organizationId: string,
  domain: string,
  result: { found: boolean; now: Date; unverify: boolean },
): Promise<OrganizationDomainRow | undefined> {
  const set = result.found
    ? { verified_at: sql<Date>`coalesce(verified_at, ${result.now})`, checked_at: result.now, check_failures: 0 }
    : {
        checked_at: result.now,
        check_failures: sql<number>`check_failures + 1`,
        ...(result.unverify ? { verified_at: null } : {}),
      };
  return db
    .updateTable('organization_domains')
    .set(set)
    .where('organization_id', '=', organizationId)
    .where('domain', '=', domain)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteOrganizationDomain(db: Db, organizationId: string, domain: string): Promise<boolean> {
  const deleted = await db
    .deleteFrom('organization_domains')
    .where('organization_id', '=', organizationId)
    .where('domain', '=', domain)
    .returning('domain')
    .executeTakeFirst();
  return deleted !== undefined;
}

/** Verified domains checked longest ago (or never), up to `limit`, for the periodic re-check. */
export function domainsDueForCheck(db: Db, checkedBefore: Date, limit: number): Promise<OrganizationDomainRow[]> {
  return db
    .selectFrom('organization_domains')
    .selectAll()
    .where('verified_at', 'is not', null)
    .where((eb) => eb.or([eb('checked_at', 'is', null), eb('checked_at', '<', checkedBefore)]))
    .orderBy('checked_at')
    .limit(limit)
    .execute();
}

// --- invitations ---

export function insertInvitation(db: Db, row: OrganizationInvitationRow): Promise<void> {
  return db
    .insertInto('organization_invitations')
    .values(row)
    .execute()
    .then(() => undefined);
}

export function listInvitationRows(db: Db, organizationId: string): Promise<OrganizationInvitationRow[]> {
  return db
    .selectFrom('organization_invitations')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('created_at', 'desc')
    .execute();
}

export function findInvitation(db: Db, organizationId: string, id: string): Promise<OrganizationInvitationRow | undefined> {
  return db
    .selectFrom('organization_invitations')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findInvitationByTokenHash(db: Db, tokenHash: string): Promise<OrganizationInvitationRow | undefined> {
  return db.selectFrom('organization_invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/**
 * Marks the invitation accepted by the user, if it is still open at `now` (not accepted, revoked or expired):
 * single use even when two requests race. Undefined when it was not open.
 */
export function acceptInvitationRow(db: Db, id: string, userId: string, now: Date): Promise<OrganizationInvitationRow | undefined> {
  return db
    .updateTable('organization_invitations')
    .set({ accepted_at: now, accepted_by: userId })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/** Revokes the invitation if still open; undefined when it was not. */
export function revokeInvitationRow(db: Db, organizationId: string, id: string, now: Date): Promise<OrganizationInvitationRow | undefined> {
  return db
    .updateTable('organization_invitations')
    .set({ revoked_at: now })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Replaces an open invitation's token and expiry (resend); undefined when it was not open. */
export function renewInvitationRow(
  db: Db,
  organizationId: string,
  id: string,
  change: { tokenHash: string; expiresAt: Date },
): Promise<OrganizationInvitationRow | undefined> {
  return db
    .updateTable('organization_invitations')
    .set({ token_hash: change.tokenHash, expires_at: change.expiresAt })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** A verified domain claimed for its periodic re-check, with when it had been checked before the claim. */
export type ClaimedDomainCheck = OrganizationDomainRow & { previous_checked_at: Date | null };

/**
 * Claims up to `limit` verified domains checked at `checkedBefore` or earlier (or never), longest ago first, in one
 * statement: their checked_at moves to `now`, so that another instance's round passes them by (SKIP LOCKED, then
 * no longer due) and each domain is checked by one instance at a time.
 */
export function claimDomainsDueForCheck(db: Db, checkedBefore: Date, now: Date, limit: number): Promise<ClaimedDomainCheck[]> {
  return db
    .with('due', (qb) =>
      qb
        .selectFrom('organization_domains')
        .select(['organization_id', 'domain', 'checked_at as previous_checked_at'])
        .where('verified_at', 'is not', null)
        .where((eb) => eb.or([eb('checked_at', 'is', null), eb('checked_at', '<=', checkedBefore)]))
        .orderBy(sql`checked_at asc nulls first`)
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .updateTable('organization_domains')
    .from('due')
    .set({ checked_at: now })
    .whereRef('organization_domains.organization_id', '=', 'due.organization_id')
    .whereRef('organization_domains.domain', '=', 'due.domain')
    .returningAll('organization_domains')
    .returning('due.previous_checked_at')
    .execute();
}

/** Gives back a claimed check that learnt nothing (the DNS did not answer): checked_at as before, unless checked since. */
export async function releaseDomainCheck(db: Db, claimed: ClaimedDomainCheck): Promise<void> {
  await db
    .updateTable('organization_domains')
    .set({ checked_at: claimed.previous_checked_at })
    .where('organization_id', '=', claimed.organization_id)
    .where('domain', '=', claimed.domain)
    .where('checked_at', '=', claimed.checked_at)
    .execute();
}
