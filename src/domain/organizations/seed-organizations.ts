// The seed file's `organizations` section (issue 40): checked with the rest of the file, applied in its
// transaction, after the users its members name. An organization is matched by its slug: created when absent, its
// display name, branding and policies made the file's when present. Its roles, members and domains listed in the
// file are added (a member's roles made the file's); those missing from the file are left alone, so that applying
// the file again removes nobody who joined by invitation or by domain (sso-admin orgs ... remove ends one).
import { randomUUID } from 'node:crypto';
import type { Db } from '../../storage/database.js';
import {
  findMembership,
  findOrganizationBySlug,
  insertMembership,
  insertOrganizationDomain,
  insertOrganizationIfAbsent,
  insertOrganizationRole,
  listOrganizationDomainRows,
  listOrganizationRoleRows,
  updateMembershipRoles,
  updateOrganizationRow,
} from '../../storage/organizations.js';
import { findUserByUsername } from '../../storage/users.js';
import { AdminError } from '../admin-error.js';
import { randomToken } from '../secrets.js';
import { checkOrganizationInput } from './organization-admin.js';
import { BUILT_IN_ROLES, MAX_ROLES, MEMBER_ROLE, normalizeDomain, roleNameProblem } from './organization-names.js';
import {
  DEFAULT_BRANDING,
  DEFAULT_POLICIES,
  applyBranding,
  applyPolicies,
  readSettings,
  writeBranding,
  writePolicies,
} from './organization-settings.js';

export interface SeedOrganization {
  slug: string;
  display_name: string;
  branding?: Record<string, unknown>;
  policies?: Record<string, unknown>;
  roles?: Array<{ name: string; description?: string | null }>;
  members?: Array<{ username: string; roles?: string[] }>;
  /** Normalised (lowercase, no trailing dot) once checked. */
  domains?: string[];
}

interface SeedCounts {
  created: number;
  updated: number;
  unchanged: number;
}

const FIELDS = ['slug', 'display_name', 'branding', 'policies', 'roles', 'members', 'domains'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `organizations`: entries checked as `sso-admin orgs add` checks them; slugs unique. Members are found when applied. */
export function checkOrganizations(raw: unknown, problems: string[]): SeedOrganization[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) {
    problems.push('"organizations" must be an array');
    return undefined;
  }
  const seen = new Set<string>();
  const checked: SeedOrganization[] = [];
  raw.forEach((entry: unknown, i) => {
    const where = `organizations[${i}]`;
    if (!isObject(entry)) {
      problems.push(`${where} must be an object`);
      return;
    }
    for (const key of Object.keys(entry)) if (!FIELDS.includes(key)) problems.push(`${where}: unknown field "${key}"`);
    try {
      checkOrganizationInput(
        { slug: entry.slug as string, display_name: entry.display_name as string, branding: entry.branding, policies: entry.policies },
        true,
      );
    } catch (err) {
      if (!(err instanceof AdminError)) throw err;
      problems.push(`${where}: ${err.message}`);
    }
    const own = new Set<string>();
    if (entry.roles !== undefined) {
      if (!Array.isArray(entry.roles)) problems.push(`${where}: roles must be a list of {name, description?}`);
      else
        entry.roles.forEach((r: unknown, j) => {
          if (!isObject(r) || Object.keys(r).some((k) => k !== 'name' && k !== 'description')) {
            problems.push(`${where}.roles[${j}] must be {name, description?}`);
            return;
          }
          const p = roleNameProblem(r.name);
          if (p) problems.push(`${where}.roles[${j}]: ${p}`);
          else if ((BUILT_IN_ROLES as readonly string[]).includes(r.name as string))
            problems.push(`${where}.roles[${j}]: "${String(r.name)}" is a role every organization has`);
          else own.add(r.name as string);
          if (r.description !== undefined && r.description !== null && (typeof r.description !== 'string' || r.description.length > 500))
            problems.push(`${where}.roles[${j}]: description must be text of at most 500 characters`);
        });
      if (own.size > MAX_ROLES) problems.push(`${where}: an organization defines at most ${MAX_ROLES} roles`);
    }
    if (entry.members !== undefined) {
      if (!Array.isArray(entry.members)) problems.push(`${where}: members must be a list of {username, roles?}`);
      else
        entry.members.forEach((m: unknown, j) => {
          if (
            !isObject(m) ||
            Object.keys(m).some((k) => k !== 'username' && k !== 'roles') ||
            typeof m.username !== 'string' ||
            m.username === '' ||
            (m.roles !== undefined && !(Array.isArray(m.roles) && m.roles.every((r) => typeof r === 'string')))
          )
            problems.push(`${where}.members[${j}] must be {username, roles?: [role, ...]}`);
        });
    }
    let domains: string[] | undefined;
    if (entry.domains !== undefined) {
      if (!Array.isArray(entry.domains)) problems.push(`${where}: domains must be a list of domain names`);
      else
        domains = entry.domains.map((d: unknown, j) => {
          const domain = typeof d === 'string' ? normalizeDomain(d) : undefined;
          if (!domain) problems.push(`${where}.domains[${j}]: ${JSON.stringify(d)} is not a domain name`);
          return domain ?? '';
        });
    }
    if (typeof entry.slug === 'string') {
      if (seen.has(entry.slug)) problems.push(`organization "${entry.slug}" appears more than once`);
      seen.add(entry.slug);
    }
    checked.push({ ...(entry as unknown as SeedOrganization), ...(domains ? { domains } : {}) });
  });
  return checked;
}

/**
 * Stores each organization and what the file lists of it. `problems` names the members no user has and the roles no
 * role is: the caller then refuses the file (and rolls its transaction back).
 */
export async function seedOrganizations(
  db: Db,
  organizations: readonly SeedOrganization[],
  now: Date,
): Promise<{ counts: SeedCounts; problems: string[] }> {
  const counts: SeedCounts = { created: 0, updated: 0, unchanged: 0 };
  const problems: string[] = [];
  for (const entry of organizations) {
    const existing = await findOrganizationBySlug(db, entry.slug);
    const current = existing ? readSettings(existing) : undefined;
    const base = current && !('problem' in current) ? current : { branding: DEFAULT_BRANDING, policies: DEFAULT_POLICIES };
    // Checked in checkOrganizations: the file's settings apply over the stored ones (or the defaults).
    const branding =
      entry.branding === undefined
        ? base.branding
        : (applyBranding(base.branding, entry.branding) as { branding: typeof base.branding }).branding;
    const policies =
      entry.policies === undefined
        ? base.policies
        : (applyPolicies(base.policies, entry.policies) as { policies: typeof base.policies }).policies;
    const columns = { display_name: entry.display_name.trim(), branding: writeBranding(branding), policies: writePolicies(policies) };
    let id: string;
    let changed = false;
    if (!existing) {
      id = randomUUID();
      await insertOrganizationIfAbsent(db, { id, slug: entry.slug, ...columns, created_at: now, updated_at: now });
    } else {
      id = existing.id;
      // Compared as read, not as stored: PostgreSQL's jsonb keeps its keys in an order of its own.
      changed =
        existing.display_name !== columns.display_name ||
        current === undefined ||
        'problem' in current ||
        JSON.stringify(current.branding) !== JSON.stringify(branding) ||
        JSON.stringify(current.policies) !== JSON.stringify(policies);
      if (changed) await updateOrganizationRow(db, id, { ...columns, updated_at: now });
    }
    const roles = new Set((await listOrganizationRoleRows(db, id)).map((r) => r.name));
    for (const role of entry.roles ?? []) {
      if (roles.has(role.name)) continue;
      await insertOrganizationRole(db, { organization_id: id, name: role.name, description: role.description ?? null, created_at: now });
      roles.add(role.name);
      changed = true;
    }
    for (const member of entry.members ?? []) {
      const user = await findUserByUsername(db, member.username);
      if (!user) {
        problems.push(`organization "${entry.slug}": members names no user "${member.username}" (of the file or stored)`);
        continue;
      }
      const unknown = (member.roles ?? []).filter((r) => !(BUILT_IN_ROLES as readonly string[]).includes(r) && !roles.has(r));
      if (unknown.length > 0) {
        problems.push(`organization "${entry.slug}": member "${member.username}" names no role "${unknown.join('", "')}"`);
        continue;
      }
      const wanted = [...new Set([MEMBER_ROLE, ...(member.roles ?? [])])];
      const membership = await findMembership(db, id, user.id);
      if (!membership) {
        await insertMembership(db, { organization_id: id, user_id: user.id, roles: wanted, source: 'admin', joined_at: now });
        changed = true;
      } else if (JSON.stringify([...membership.roles].sort()) !== JSON.stringify([...wanted].sort())) {
        await updateMembershipRoles(db, id, user.id, wanted);
        changed = true;
      }
    }
    const domains = new Set((await listOrganizationDomainRows(db, id)).map((d) => d.domain));
    for (const domain of new Set(entry.domains ?? [])) {
      if (domains.has(domain)) continue;
      await insertOrganizationDomain(db, {
        organization_id: id,
        domain,
        verification_token: randomToken(24),
        verified_at: null,
        checked_at: null,
        check_failures: 0,
        created_at: now,
      });
      changed = true;
    }
    if (!existing) counts.created += 1;
    else if (changed) counts.updated += 1;
    else counts.unchanged += 1;
  }
  return { counts, problems };
}
