// Managing organizations (issue 40): create, change, delete; the roles each defines; members and their roles; the
// domains each claims. For every surface alike (command line, seed file, management API, console), provider-wide or
// delegated: an organization-scoped actor reaches its own organization only (organization-scope.ts).
import { randomUUID } from 'node:crypto';
import { isUniqueViolation } from '../../storage/database-errors.js';
import {
  countMembersWithRole,
  countOrganizationMembers,
  deleteMembership,
  deleteOrganizationDomain,
  deleteOrganizationRole,
  deleteOrganizationRow,
  findMembership,
  insertMembership,
  insertOrganizationDomain,
  insertOrganizationIfAbsent,
  insertOrganizationRole,
  listMembershipsOfUser,
  listOrganizationDomainRows,
  listOrganizationMemberRows,
  listOrganizationRoleRows,
  listOrganizationRows,
  updateMembershipRoles,
  updateOrganizationRow,
} from '../../storage/organizations.js';
import type { MembershipSource, OrganizationDomainRow, OrganizationRow } from '../../storage/schema.js';
import type { NewOrganizationRow } from '../../storage/organizations.js';
import { findUserByRef, inAdminTransaction, logAdminAction, type AdminContext } from '../admin/admin.js';
import { AdminError } from '../admin-error.js';
import { randomToken } from '../secrets.js';
import { emitWebhookEvent } from '../webhooks/emit.js';
import {
  ADMIN_ROLE,
  BUILT_IN_ROLES,
  MAX_ROLES,
  MEMBER_ROLE,
  displayNameProblem,
  normalizeDomain,
  roleNameProblem,
  slugProblem,
} from './organization-names.js';
import { organizationInScope, requireProviderWide } from './organization-scope.js';
import {
  DEFAULT_BRANDING,
  DEFAULT_POLICIES,
  applyBranding,
  applyPolicies,
  readSettings,
  writeBranding,
  writePolicies,
  brandingView,
  policiesView,
  type OrganizationBranding,
  type OrganizationPolicies,
} from './organization-settings.js';

export interface Organization {
  id: string;
  slug: string;
  displayName: string;
  branding: OrganizationBranding;
  policies: OrganizationPolicies;
  /** Why the branding or policies cannot be read (a newer version wrote them): sign-ins for it are refused. */
  problem: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface OrganizationSummary extends Organization {
  members: number;
}

/** An organization as the API, seed file and command line write it. */
export interface OrganizationInput {
  slug?: string;
  display_name?: string;
  branding?: unknown;
  policies?: unknown;
}

export interface OrganizationMember {
  userId: string;
  username: string;
  email: string | null;
  roles: string[];
  source: MembershipSource;
  joinedAt: Date;
}

export interface OrganizationDomain {
  domain: string;
  /** The TXT record to publish: its name and value. */
  record: { name: string; value: string };
  verifiedAt: Date | null;
  checkedAt: Date | null;
}

/** The name of the TXT record that proves a domain (issue 40): `_sso-verify.{domain}`. */
export const verificationRecordName = (domain: string): string => `_sso-verify.${domain}`;
/** The value the TXT record must hold: the claim's token, prefixed so that it reads as what it is. */
export const verificationRecordValue = (token: string): string => `sso-verify=${token}`;

export function organizationOf(row: OrganizationRow): Organization {
  const settings = readSettings(row);
  return {
    id: row.id,
    slug: row.slug,
    displayName: row.display_name,
    ...('problem' in settings
      ? { branding: DEFAULT_BRANDING, policies: DEFAULT_POLICIES, problem: settings.problem }
      : { ...settings, problem: null }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export const domainOf = (row: OrganizationDomainRow): OrganizationDomain => ({
  domain: row.domain,
  record: { name: verificationRecordName(row.domain), value: verificationRecordValue(row.verification_token) },
  verifiedAt: row.verified_at,
  checkedAt: row.checked_at,
});

const taken = (slug: string) => new AdminError(`an organization with the slug "${slug}" exists already`, 'conflict');

/** The organization's settings from `input` over `base`, or an AdminError naming every problem. */
function settingsFrom(
  input: OrganizationInput,
  base: { slug?: string; displayName?: string; branding: OrganizationBranding; policies: OrganizationPolicies },
) {
  const problems: string[] = [];
  if (input.slug !== undefined || base.slug === undefined) {
    const p = slugProblem(input.slug);
    if (p) problems.push(p);
  }
  if (input.display_name !== undefined || base.displayName === undefined) {
    const p = displayNameProblem(input.display_name);
    if (p) problems.push(p);
  }
  let branding = base.branding;
  if (input.branding !== undefined) {
    const b = applyBranding(base.branding, input.branding);
    if ('problems' in b) problems.push(...b.problems);
    else branding = b.branding;
  }
  let policies = base.policies;
  if (input.policies !== undefined) {
    const p = applyPolicies(base.policies, input.policies);
    if ('problems' in p) problems.push(...p.problems);
    else policies = p.policies;
  }
  if (problems.length > 0) throw new AdminError(`the organization was refused: ${problems.join('; ')}`);
  return {
    slug: input.slug ?? base.slug!,
    displayName: (input.display_name ?? base.displayName!).trim(),
    branding,
    policies,
  };
}

/** Refuses an organization the seed file would refuse; for checking a command line before the database opens. */
export function checkOrganizationInput(input: OrganizationInput, creating: boolean): void {
  settingsFrom(
    input,
    creating
      ? { branding: DEFAULT_BRANDING, policies: DEFAULT_POLICIES }
      : { slug: '-', displayName: '-', branding: DEFAULT_BRANDING, policies: DEFAULT_POLICIES },
  );
}

/** Organizations by slug, a page at a time; an organization-scoped actor sees only its own. */
export async function listOrganizations(
  ctx: AdminContext,
  page: { afterSlug?: string | undefined; limit: number },
): Promise<OrganizationSummary[]> {
  if (ctx.organizationScope !== undefined) {
    const own = await organizationInScope(ctx, ctx.organizationScope);
    if (page.afterSlug !== undefined && own.slug <= page.afterSlug) return [];
    return [{ ...organizationOf(own), members: await countOrganizationMembers(ctx.db, own.id) }];
  }
  return (await listOrganizationRows(ctx.db, page)).map((row) => ({ ...organizationOf(row), members: row.members }));
}

export async function showOrganization(ctx: AdminContext, ref: string): Promise<OrganizationSummary> {
  const row = await organizationInScope(ctx, ref);
  return { ...organizationOf(row), members: await countOrganizationMembers(ctx.db, row.id) };
}

export async function createOrganization(ctx: AdminContext, input: OrganizationInput): Promise<Organization> {
  requireProviderWide(ctx, 'create an organization');
  const s = settingsFrom(input, { branding: DEFAULT_BRANDING, policies: DEFAULT_POLICIES });
  const now = ctx.clock();
  const row: NewOrganizationRow = {
    id: randomUUID(),
    slug: s.slug,
    display_name: s.displayName,
    branding: writeBranding(s.branding),
    policies: writePolicies(s.policies),
    created_at: now,
    updated_at: now,
  };
  await inAdminTransaction(ctx, async (trx) => {
    if (!(await insertOrganizationIfAbsent(trx, row))) throw taken(row.slug);
    await logAdminAction(ctx, trx, {
      event: 'admin.organization.created',
      target: { type: 'organization', id: row.id },
      changes: { slug: row.slug, display_name: row.display_name, branding: brandingView(s.branding), policies: policiesView(s.policies) },
      log: { organizationId: row.id, slug: row.slug },
      organizationId: row.id,
    });
  });
  return {
    id: row.id,
    slug: s.slug,
    displayName: s.displayName,
    branding: s.branding,
    policies: s.policies,
    problem: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** Changes what `input` gives; `changed` names the fields that changed (none: nothing written). */
export async function updateOrganization(
  ctx: AdminContext,
  ref: string,
  input: OrganizationInput,
): Promise<{ organization: Organization; changed: string[] }> {
  const current = organizationOf(await organizationInScope(ctx, ref));
  const s = settingsFrom(input, current);
  const set: { slug?: string; display_name?: string; branding?: string; policies?: string } = {};
  const changes: Record<string, unknown> = {};
  if (s.slug !== current.slug) changes.slug = set.slug = s.slug;
  if (s.displayName !== current.displayName) changes.display_name = set.display_name = s.displayName;
  if (current.problem !== null || JSON.stringify(s.branding) !== JSON.stringify(current.branding)) {
    set.branding = writeBranding(s.branding);
    changes.branding = brandingView(s.branding);
  }
  if (current.problem !== null || JSON.stringify(s.policies) !== JSON.stringify(current.policies)) {
    set.policies = writePolicies(s.policies);
    changes.policies = policiesView(s.policies);
  }
  const changed = Object.keys(set).sort();
  if (changed.length === 0) return { organization: current, changed };
  try {
    const row = await inAdminTransaction(ctx, async (trx) => {
      const updated = await updateOrganizationRow(trx, current.id, { ...set, updated_at: ctx.clock() });
      if (!updated) throw new AdminError(`no organization "${ref}"`, 'not_found');
      await logAdminAction(ctx, trx, {
        event: 'admin.organization.updated',
        target: { type: 'organization', id: current.id },
        changes,
        log: { organizationId: current.id, fields: changed },
        organizationId: current.id,
      });
      return updated;
    });
    return { organization: organizationOf(row), changed };
  } catch (err) {
    if (isUniqueViolation(err)) throw taken(s.slug);
    throw err;
  }
}

/**
 * Deletes the organization and what hangs off it: memberships, roles, domains, invitations, its connections, and the
 * grants made for it (codes, refresh and access tokens: a token for an organization that is gone is no token).
 * The users stay.
 */
export async function deleteOrganization(ctx: AdminContext, ref: string): Promise<Organization> {
  requireProviderWide(ctx, 'delete an organization');
  const org = organizationOf(await organizationInScope(ctx, ref));
  await inAdminTransaction(ctx, async (trx) => {
    if (!(await deleteOrganizationRow(trx, org.id))) throw new AdminError(`no organization "${ref}"`, 'not_found');
    await logAdminAction(ctx, trx, {
      event: 'admin.organization.deleted',
      target: { type: 'organization', id: org.id },
      changes: { slug: org.slug },
      log: { organizationId: org.id },
      organizationId: org.id,
    });
  });
  return org;
}

// --- roles ---

/** The roles a member of the organization may hold: the two built in, then its own. */
export async function listOrganizationRoles(
  ctx: AdminContext,
  ref: string,
): Promise<{ name: string; description: string | null; builtIn: boolean }[]> {
  const org = await organizationInScope(ctx, ref);
  const own = await listOrganizationRoleRows(ctx.db, org.id);
  return [
    ...BUILT_IN_ROLES.map((name) => ({ name, description: null, builtIn: true })),
    ...own.map((r) => ({ name: r.name, description: r.description, builtIn: false })),
  ];
}

export async function createOrganizationRole(
  ctx: AdminContext,
  ref: string,
  name: string,
  description: string | null = null,
): Promise<void> {
  const problem = roleNameProblem(name);
  if (problem) throw new AdminError(problem);
  if ((BUILT_IN_ROLES as readonly string[]).includes(name)) throw new AdminError(`"${name}" is a role every organization has`, 'conflict');
  if (description !== null && description.length > 500) throw new AdminError('a role description is at most 500 characters');
  const org = await organizationInScope(ctx, ref);
  await inAdminTransaction(ctx, async (trx) => {
    if ((await listOrganizationRoleRows(trx, org.id)).length >= MAX_ROLES)
      throw new AdminError(`an organization defines at most ${MAX_ROLES} roles`);
    if (!(await insertOrganizationRole(trx, { organization_id: org.id, name, description, created_at: ctx.clock() })))
      throw new AdminError(`the organization has a role "${name}" already`, 'conflict');
    await logAdminAction(ctx, trx, {
      event: 'admin.organization.role_created',
      target: { type: 'organization', id: org.id },
      changes: { role: name },
      organizationId: org.id,
    });
  });
}

/** Deletes one of the organization's own roles and takes it from every member. */
export async function deleteOrganizationRoleByName(ctx: AdminContext, ref: string, name: string): Promise<void> {
  if ((BUILT_IN_ROLES as readonly string[]).includes(name))
    throw new AdminError(`"${name}" is a role every organization has: it cannot be deleted`);
  const org = await organizationInScope(ctx, ref);
  await inAdminTransaction(ctx, async (trx) => {
    if (!(await deleteOrganizationRole(trx, org.id, name))) throw new AdminError(`the organization has no role "${name}"`, 'not_found');
    await logAdminAction(ctx, trx, {
      event: 'admin.organization.role_deleted',
      target: { type: 'organization', id: org.id },
      changes: { role: name },
      organizationId: org.id,
    });
  });
}

/** The roles as given, checked against the organization's: `member` always among them, no duplicates. */
export async function checkedRoles(ctx: AdminContext, organizationId: string, roles: readonly string[]): Promise<string[]> {
  const own = new Set((await listOrganizationRoleRows(ctx.db, organizationId)).map((r) => r.name));
  const unknown = roles.filter((r) => !(BUILT_IN_ROLES as readonly string[]).includes(r) && !own.has(r));
  if (unknown.length > 0) throw new AdminError(`the organization has no role ${unknown.map((r) => `"${r}"`).join(', ')}`);
  const set = [...new Set([MEMBER_ROLE, ...roles])];
  if (set.length > MAX_ROLES) throw new AdminError(`a member holds at most ${MAX_ROLES} roles`);
  return set;
}

// --- members ---

const memberOf = (row: {
  user_id: string;
  username: string;
  email: string | null;
  roles: string[];
  source: MembershipSource;
  joined_at: Date;
}): OrganizationMember => ({
  userId: row.user_id,
  username: row.username,
  email: row.email,
  roles: row.roles,
  source: row.source,
  joinedAt: row.joined_at,
});

export async function listOrganizationMembers(
  ctx: AdminContext,
  ref: string,
  page: { afterUsername?: string | undefined; limit: number },
): Promise<OrganizationMember[]> {
  const org = await organizationInScope(ctx, ref);
  return (await listOrganizationMemberRows(ctx.db, org.id, page)).map(memberOf);
}

/**
 * Makes the user a member with these roles (and `member`); `added` is false when they were one already (nothing
 * written: use setMemberRoles to change roles). `source` records how the membership came.
 */
export async function addOrganizationMember(
  ctx: AdminContext,
  ref: string,
  userRef: string,
  options: { roles?: readonly string[]; source?: MembershipSource } = {},
): Promise<{ organization: string; userId: string; added: boolean }> {
  const org = await organizationInScope(ctx, ref);
  // An organization's own admin brings people in by invitation, which the person accepts: adding an existing account
  // directly would let it pull in (and read) any user of the provider, and learn which usernames exist.
  if (ctx.organizationScope !== undefined)
    throw new AdminError(
      "an organization's admin invites people (organizations invitations); only a provider-wide admin adds an existing account",
      'forbidden',
    );
  const user = await findUserByRef(ctx.db, userRef);
  const roles = await checkedRoles(ctx, org.id, options.roles ?? []);
  const source = options.source ?? 'admin';
  const added = await inAdminTransaction(ctx, async (trx) => {
    const written = await insertMembership(trx, { organization_id: org.id, user_id: user.id, roles, source, joined_at: ctx.clock() });
    if (written) {
      await emitWebhookEvent(ctx, trx, 'organization.member_added', { organization_id: org.id, user_id: user.id, roles, source });
      await logAdminAction(ctx, trx, {
        event: 'admin.organization.member_added',
        target: { type: 'organization', id: org.id },
        changes: { member: user.id, roles, source },
        log: { organizationId: org.id, userId: user.id, source },
        organizationId: org.id,
      });
    }
    return written;
  });
  return { organization: org.slug, userId: user.id, added };
}

/** One member of the organization: their roles and how they came; not_found when the user is not one. */
export async function showOrganizationMember(ctx: AdminContext, ref: string, userRef: string): Promise<OrganizationMember> {
  const org = await organizationInScope(ctx, ref);
  const user = await findUserByRef(ctx.db, userRef).catch((err: unknown) => {
    throw err instanceof AdminError ? notAMember(userRef) : err;
  });
  const row = await findMembership(ctx.db, org.id, user.id);
  if (!row) throw notAMember(userRef);
  return memberOf({ ...row, username: user.username, email: user.email });
}

/** The same answer for a user who exists elsewhere and one who exists nowhere: a scoped actor learns nothing outside. */
const notAMember = (userRef: string) => new AdminError(`"${userRef}" is not a member of the organization`, 'not_found');

/** Keeps an organization from being left with no admin by a change an admin makes to themselves or another. */
async function keepAnAdmin(ctx: AdminContext, organizationId: string, userId: string, keepsAdmin: boolean): Promise<void> {
  if (keepsAdmin || ctx.organizationScope === undefined) return;
  const current = await findMembership(ctx.db, organizationId, userId);
  if (!current?.roles.includes(ADMIN_ROLE)) return;
  if ((await countMembersWithRole(ctx.db, organizationId, ADMIN_ROLE)) <= 1)
    throw new AdminError('the organization would be left with no admin', 'conflict');
}

/** Replaces the member's roles (`member` is always kept). */
export async function setOrganizationMemberRoles(
  ctx: AdminContext,
  ref: string,
  userRef: string,
  roles: readonly string[],
): Promise<string[]> {
  const org = await organizationInScope(ctx, ref);
  const user = await findUserByRef(ctx.db, userRef);
  const checked = await checkedRoles(ctx, org.id, roles);
  return inAdminTransaction(ctx, async (trx, tctx) => {
    await keepAnAdmin(tctx, org.id, user.id, checked.includes(ADMIN_ROLE));
    const updated = await updateMembershipRoles(trx, org.id, user.id, checked);
    if (!updated) throw new AdminError(`"${userRef}" is not a member of the organization`, 'not_found');
    await logAdminAction(ctx, trx, {
      event: 'admin.organization.member_updated',
      target: { type: 'organization', id: org.id },
      changes: { member: user.id, roles: checked },
      organizationId: org.id,
    });
    return checked;
  });
}

/** Ends the membership; `removed` is false when there was none. */
export async function removeOrganizationMember(
  ctx: AdminContext,
  ref: string,
  userRef: string,
): Promise<{ organization: string; userId: string; removed: boolean }> {
  const org = await organizationInScope(ctx, ref);
  const user = await findUserByRef(ctx.db, userRef);
  const removed = await inAdminTransaction(ctx, async (trx, tctx) => {
    await keepAnAdmin(tctx, org.id, user.id, false);
    const deleted = await deleteMembership(trx, org.id, user.id);
    if (deleted) {
      await emitWebhookEvent(ctx, trx, 'organization.member_removed', { organization_id: org.id, user_id: user.id });
      await logAdminAction(ctx, trx, {
        event: 'admin.organization.member_removed',
        target: { type: 'organization', id: org.id },
        changes: { member: user.id },
        organizationId: org.id,
      });
    }
    return deleted;
  });
  return { organization: org.slug, userId: user.id, removed };
}

/** The organizations the user belongs to, within the actor's reach. */
export async function organizationsOfUser(ctx: AdminContext, userRef: string) {
  const user = await findUserByRef(ctx.db, userRef);
  const rows = await listMembershipsOfUser(ctx.db, user.id);
  return rows
    .filter((r) => ctx.organizationScope === undefined || r.organization_id === ctx.organizationScope)
    .map((r) => ({
      organizationId: r.organization_id,
      slug: r.slug,
      displayName: r.display_name,
      roles: r.roles,
      source: r.source,
      joinedAt: r.joined_at,
    }));
}

// --- domains ---

export async function listOrganizationDomains(ctx: AdminContext, ref: string): Promise<OrganizationDomain[]> {
  const org = await organizationInScope(ctx, ref);
  return (await listOrganizationDomainRows(ctx.db, org.id)).map(domainOf);
}

/**
 * Claims the domain for the organization, unverified: the answer names the TXT record to publish. Several
 * organizations may claim a domain; only one can verify it (domain-verification.ts).
 */
export async function addOrganizationDomain(ctx: AdminContext, ref: string, input: string): Promise<OrganizationDomain> {
  const domain = normalizeDomain(input);
  if (!domain) throw new AdminError(`"${input}" is not a domain name (a host name of two labels or more, no wildcard)`);
  const org = await organizationInScope(ctx, ref);
  const row: OrganizationDomainRow = {
    organization_id: org.id,
    domain,
    verification_token: randomToken(24),
    verified_at: null,
    checked_at: null,
    check_failures: 0,
    created_at: ctx.clock(),
  };
  await inAdminTransaction(ctx, async (trx) => {
    if (!(await insertOrganizationDomain(trx, row))) throw new AdminError(`the organization claims "${domain}" already`, 'conflict');
    await logAdminAction(ctx, trx, {
      event: 'admin.organization.domain_added',
      target: { type: 'organization', id: org.id },
      changes: { domain },
      organizationId: org.id,
    });
  });
  return domainOf(row);
}

export async function removeOrganizationDomain(ctx: AdminContext, ref: string, input: string): Promise<void> {
  const domain = normalizeDomain(input) ?? input;
  const org = await organizationInScope(ctx, ref);
  await inAdminTransaction(ctx, async (trx) => {
    if (!(await deleteOrganizationDomain(trx, org.id, domain)))
      throw new AdminError(`the organization does not claim "${domain}"`, 'not_found');
    await logAdminAction(ctx, trx, {
      event: 'admin.organization.domain_removed',
      target: { type: 'organization', id: org.id },
      changes: { domain },
      organizationId: org.id,
    });
  });
}
