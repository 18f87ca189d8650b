// Repository for refresh tokens: stored by digest, rotated at most once each, kept after rotation to detect replay.
import { expressionBuilder, sql } from 'kysely';
import { clientUnchanged } from './clients.js';
import type { Db } from './database.js';
import { reusableQuery } from './hot-path/reusable-query.js';
import type { Database, RefreshTokenRow } from './schema.js';
import {
  storedAccessTokenColumns,
  plainStoredAccessToken,
  targetConditions,
  type AccessTokenTargetValues,
  type StoredAccessToken,
} from './access-token-target.js';
import {
  allHold,
  firstFailedCondition,
  grantConditions,
  withIssuedTokens,
  type ConditionName,
  type IssuingValues,
  type Taken,
} from './grant-statement.js';
import {
  USER_CLAIM_ALIASES,
  USER_CLAIM_COLUMNS,
  organizationClaimsOf,
  userLocalGroupsColumn,
  type UserClaimColumns,
} from './user-claim-columns.js';

export interface Rotation {
  tokenHash: string;
  clientId: string;
  /** The revision of the client as authenticated: nothing is rotated if the client changed since. */
  clientRevision: number;
  now: Date;
  /** The narrower scope asked for, or null to keep the granted one; the granted scope must hold every value. */
  scope: string[] | null;
  /** The refresh token that replaces this one, in the same family with the same scope. */
  next: { tokenHash: string; expiresAt: Date };
  /** Where the access token goes and how it is stored (src/storage/access-token-target.ts). */
  accessToken: Omit<AccessTokenTargetValues, 'atIssuedAt'>;
  /** The client can target a resource server: the statement's shape with the resource rules (access-token-target.ts). */
  resources: boolean;
}

type RotationValues = IssuingValues & {
  tokenHash: string;
  clientId: string;
  clientRevision: number;
  scope: string[] | null;
  scopeText: string | null;
};

type RotationShape = { narrower: boolean; resources: boolean };

/** What a refresh token must be for it to be rotated, in the order a refusal names the first that fails. */
export const REFRESH_CONDITIONS = grantConditions<RotationValues, RotationShape>()([
  // RFC 6749 6: "validate the refresh token and ensure that it was issued to the authenticated client".
  { name: 'client', check: (v) => sql<boolean>`refresh_tokens.client_id = ${v.clientId}` },
  // RFC 9700 4.14.2: with rotation, a refresh token presented again after it was rotated is a replay.
  { name: 'unrotated', check: () => sql<boolean>`refresh_tokens.rotated_at is null` },
  { name: 'unrevoked', check: () => sql<boolean>`refresh_tokens.revoked_at is null` },
  { name: 'unexpired', check: (v) => sql<boolean>`refresh_tokens.expires_at > ${v.now}` },
  { name: 'user_enabled', check: () => sql<boolean>`users.disabled_at is null` },
  // Issue 40: a grant for an organization lasts as long as the membership: removed from it, the person's refresh
  // tokens for it are refused (RFC 6749 5.2 invalid_grant: the grant "was issued to another client" or is "revoked").
  {
    name: 'member',
    check: () => sql<boolean>`(refresh_tokens.organization_id is null or exists (select 1 from organization_members m
      where m.organization_id = refresh_tokens.organization_id and m.user_id = refresh_tokens.user_id))`,
  },
  // RFC 9449 5: a bound refresh token is taken only with a proof by its key.
  { name: 'dpop_key', check: (v) => sql<boolean>`(refresh_tokens.jkt is null or refresh_tokens.jkt = ${v.atJkt}::text)` },
  // RFC 6749 6: "The requested scope MUST NOT include any scope not originally granted by the resource owner".
  {
    name: 'scope_granted',
    check: (v, shape) => (shape.narrower ? sql<boolean>`string_to_array(refresh_tokens.scope, ' ') @> ${v.scope}::text[]` : null),
  },
  ...targetConditions<RotationValues, RotationShape>(sql`refresh_tokens.resources`),
  { name: 'client_unchanged', check: (v) => clientUnchanged(expressionBuilder<Database, never>(), v.clientId, v.clientRevision) },
]);

/** Why a refresh token was not rotated: the first of REFRESH_CONDITIONS it failed, or 'unknown'. */
export type RefreshRefusal = ConditionName<typeof REFRESH_CONDITIONS> | 'unknown';

/** The columns of the rotated token that the token response is made of (only these: each one is parsed on the hot path). */
const ROTATED_COLUMNS = ['user_id', 'scope', 'auth_time', 'sid', 'amr', 'acr', 'claims'] as const;

/** The rotated token, the access token stored with its successor, and the user's claim columns. */
export type RotatedRefreshToken = Pick<RefreshTokenRow, (typeof ROTATED_COLUMNS)[number]> & StoredAccessToken & UserClaimColumns;

const rotateQuery = reusableQuery((db: Db, v: RotationValues, shape: RotationShape) =>
  withIssuedTokens(
    db.with('taken', (qb) =>
      qb
        .updateTable('refresh_tokens')
        .from('users')
        .set({ rotated_at: v.now })
        .where('refresh_tokens.token_hash', '=', v.tokenHash)
        .whereRef('users.id', '=', 'refresh_tokens.user_id')
        .where(allHold(REFRESH_CONDITIONS, v, shape))
        .returningAll('refresh_tokens')
        .returning(USER_CLAIM_COLUMNS)
        .returning(userLocalGroupsColumn('refresh_tokens.scope', 'users.id'))
        .returning(organizationClaimsOf('refresh_tokens.scope', 'refresh_tokens.organization_id', 'users.id').as('user_organization')),
    ),
    v,
    {
      refresh: 'successor',
      resources: shape.resources,
      scope: shape.narrower ? sql<string>`${v.scopeText}::text` : sql<string>`taken.scope`,
      codeHash: false,
      claims: true,
      organization: true,
    },
  )
    .selectFrom('taken')
    .select(ROTATED_COLUMNS.map((column) => `taken.${column}` as const))
    .select(USER_CLAIM_ALIASES.map((column) => `taken.${column}` as const))
    .select('taken.user_organization')
    .select(storedAccessTokenColumns(shape.resources, 'issued')),
);

/**
 * The refresh hot path in one round trip: marks the token rotated only if it meets every condition of
 * REFRESH_CONDITIONS, and in the same statement stores its successor and the new access token. As at code exchange,
 * the plain shape first, then the one with the resource rules for a grant that named resources. Returns the rotated
 * row, or the first condition the token failed. Concurrent refreshes serialise on the row: exactly one sees
 * rotated_at null.
 */
export async function rotateRefreshToken(db: Db, r: Rotation): Promise<Taken<RotatedRefreshToken, RefreshRefusal>> {
  const values: RotationValues = {
    tokenHash: r.tokenHash,
    clientId: r.clientId,
    clientRevision: r.clientRevision,
    now: r.now,
    scope: r.scope,
    scopeText: r.scope?.join(' ') ?? null,
    refreshTokenHash: r.next.tokenHash,
    refreshExpiresAt: r.next.expiresAt,
    refreshFamilyId: null,
    refreshOnlyWithScope: null,
    refreshJkt: null,
    ...r.accessToken,
    atIssuedAt: r.now,
  };
  const shape = { narrower: r.scope !== null, resources: true };
  for (const resources of r.resources ? [true] : [false, true]) {
    const rows = await rotateQuery.execute(db, values, { ...shape, resources });
    const row = rows[0] as (Omit<RotatedRefreshToken, keyof StoredAccessToken> & Partial<StoredAccessToken>) | undefined;
    // The access token is stored whenever the token is rotated (same statement), so its columns are never null then.
    if (row) {
      const stored = resources ? undefined : plainStoredAccessToken(r.accessToken, r.scope?.join(' ') ?? row.scope);
      return { row: stored ? Object.assign(row, stored) : (row as RotatedRefreshToken) };
    }
  }
  const key = sql<boolean>`refresh_tokens.token_hash = ${r.tokenHash}`;
  return { refused: await firstFailedCondition(db, { table: 'refresh_tokens', key }, REFRESH_CONDITIONS, values, shape) };
}

/** The refresh token and whether its user is disabled (null when the user is enabled). */
export type RefreshTokenWithUser = RefreshTokenRow & { user_disabled_at: Date | null };

export function findRefreshToken(db: Db, tokenHash: string): Promise<RefreshTokenWithUser | undefined> {
  return db
    .selectFrom('refresh_tokens as r')
    .innerJoin('users as u', 'u.id', 'r.user_id')
    .selectAll('r')
    .select('u.disabled_at as user_disabled_at')
    .where('r.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/**
 * Revokes every refresh token of a family and every access token issued with them, in one statement
 * (RFC 9700 4.14.2 on replay; RFC 7009 2.1 on revocation). Returns how many access tokens were revoked.
 */
export async function revokeRefreshFamily(db: Db, familyId: string, now: Date): Promise<number> {
  const result = await db
    .with('family', (qb) =>
      qb
        .updateTable('refresh_tokens')
        .set({ revoked_at: now })
        .where('family_id', '=', familyId)
        .where('revoked_at', 'is', null)
        .returning('token_hash'),
    )
    .updateTable('access_tokens')
    .set({ revoked_at: now })
    .where('refresh_family_id', '=', familyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
