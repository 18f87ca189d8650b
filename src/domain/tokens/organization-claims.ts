// The claims of the organization a grant is for (issue 40): `org_id` (its id), `org_name` (its slug), and `org_roles`
// (the member's roles) when the `org_roles` scope was granted. The same in the ID token, at userinfo, in RFC 9068
// access tokens and in introspection (RFC 7662 2.2); read with the token by src/storage/user-claim-columns.ts.
import { findMembership, findOrganizationById } from '../../storage/organizations.js';
import type { Db } from '../../storage/database.js';
import { splitScope } from '../scope.js';

/** The scope that releases `org_roles`. */
export const ORG_ROLES_SCOPE = 'org_roles';

/** The claims advertised in discovery's claims_supported. */
export const ORGANIZATION_CLAIMS = ['org_id', 'org_name', 'org_roles'] as const;

/** The claims as the statement read them (a JSON object, or null), checked; none when there are none. */
export function organizationClaims(read: unknown): Record<string, unknown> {
  if (typeof read !== 'object' || read === null) return {};
  const { org_id: id, org_name: name, org_roles: roles } = read as Record<string, unknown>;
  if (typeof id !== 'string' || typeof name !== 'string') return {};
  const claims: Record<string, unknown> = { org_id: id, org_name: name };
  if (Array.isArray(roles) && roles.every((r) => typeof r === 'string')) claims.org_roles = roles;
  return claims;
}

/** Off the hot paths (introspection): the claims of a stored token's organization, read by its id. */
export async function organizationClaimsFor(
  db: Db,
  token: { organization_id: string | null; user_id: string | null; scope: string },
): Promise<Record<string, unknown>> {
  if (token.organization_id === null) return {};
  const organization = await findOrganizationById(db, token.organization_id);
  if (!organization) return {};
  const claims: Record<string, unknown> = { org_id: organization.id, org_name: organization.slug };
  if (token.user_id !== null && splitScope(token.scope).includes(ORG_ROLES_SCOPE))
    claims.org_roles = (await findMembership(db, organization.id, token.user_id))?.roles ?? [];
  return claims;
}
