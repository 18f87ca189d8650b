// The user columns a token statement returns beside its own row: the ID token's claims need no second query.
import { sql, type Expression, type RawBuilder } from 'kysely';
import { localGroupNames } from './groups.js';
import { readVersioned, type VersionedShapes } from './json-shape.js';
import type { UserRow } from './schema.js';

/**
 * What the claims of a user are made of (src/domain/accounts/users.ts claimValue). `local_groups`: the names of
 * their groups here, read only when the `groups` scope was granted (null or absent otherwise).
 */
export type ClaimsUser = Pick<UserRow, 'id' | 'username' | 'email' | 'email_verified' | 'claims' | 'updated_at' | 'locale'> & {
  local_groups?: unknown;
  /**
   * Issue 40: the claims of the organization the grant is for (org_id, org_name, and org_roles when the scope asks),
   * read with the token (organizationClaimsColumn); null or absent: none. Checked where released.
   */
  organization?: unknown;
  /** Why the stored claims were not read (a path or version, never a value); `claims` is then empty. */
  claims_unreadable?: string;
};

/**
 * The user's stored claims read through `shapes`: the claims, or none when they do not fit (written by another
 * version), with the reason beside them.
 */
export function readUserClaims(
  stored: unknown,
  shapes: VersionedShapes<Record<string, unknown>>,
): Pick<ClaimsUser, 'claims' | 'claims_unreadable'> {
  const read = readVersioned(stored, shapes, '$.claims');
  return read.ok ? { claims: read.value } : { claims: {}, claims_unreadable: read.reason };
}

/** The users columns a token statement reads. */
export const USER_CLAIM_FIELDS = ['username', 'email', 'email_verified', 'claims', 'updated_at', 'locale'] as const;

/** The users columns of a token statement, prefixed so that they cannot collide with the token row's own. */
export const USER_CLAIM_COLUMNS = USER_CLAIM_FIELDS.map((field) => `users.${field} as user_${field}` as const);

/**
 * The user's local group names beside those columns (`user_local_groups`), read in the same statement only when the
 * token's `scope` column holds `groups` (storage/groups.ts localGroupNames): no round trip of its own.
 */
export function userLocalGroupsColumn(scope: string, userId: string) {
  return localGroupNames(sql.ref(scope) as Expression<string>, sql.ref(userId) as Expression<string>).as('user_local_groups');
}

/**
 * Issue 40: the claims of the organization a token row is for (`org_id` its id, `org_name` its slug, and `org_roles` the
 * member's roles when `scope` holds org_roles), as one JSON object read in the same statement: no round trip of its
 * own, and for a row with no organization nothing is read (NULL).
 */
export function organizationClaimsOf(scope: string, organizationId: string, userId: string): RawBuilder<unknown> {
  return sql<unknown>`CASE WHEN ${sql.ref(organizationId)} IS NOT NULL THEN (
    SELECT jsonb_build_object('org_id', o.id, 'org_name', o.slug) ||
           CASE WHEN 'org_roles' = ANY(string_to_array(${sql.ref(scope)}, ' '))
             THEN jsonb_build_object('org_roles', coalesce((SELECT to_jsonb(m.roles) FROM organization_members m
                                                            WHERE m.organization_id = o.id AND m.user_id = ${sql.ref(userId)}), '[]'::jsonb))
             ELSE '{}'::jsonb END
      FROM organizations o WHERE o.id = ${sql.ref(organizationId)}) END`;
}

/** The names those columns have in the statement's answer. */
export const USER_CLAIM_ALIASES = [...USER_CLAIM_FIELDS.map((field) => `user_${field}` as const), 'user_local_groups' as const];

export interface UserClaimColumns {
  user_username: string;
  user_email: string | null;
  user_email_verified: boolean;
  user_claims: Record<string, unknown>;
  user_updated_at: Date;
  user_locale: string | null;
  /** Checked when read (src/domain/accounts/users.ts groupsOf). */
  user_local_groups: unknown;
  /** Issue 40 (organizationClaimsOf): absent from the statements of grants that have no organization (device). */
  user_organization?: unknown;
}

/** The user a token row's `user_id` and prefixed columns describe, their claims read through `shapes`. */
export function claimsUserOf(userId: string, row: UserClaimColumns, shapes: VersionedShapes<Record<string, unknown>>): ClaimsUser {
  return {
    id: userId,
    username: row.user_username,
    email: row.user_email,
    email_verified: row.user_email_verified,
    ...readUserClaims(row.user_claims, shapes),
    updated_at: row.user_updated_at,
    locale: row.user_locale,
    local_groups: row.user_local_groups,
    organization: row.user_organization ?? null,
  };
}
