// Repository for refresh tokens: stored by digest, rotated at most once each, kept after rotation to detect replay.
import { sql } from 'kysely';
import { clientUnchanged } from './clients.js';
import type { Db } from './database.js';
import { reusableQuery } from './hot-path/reusable-query.js';
import type { RefreshTokenRow } from './schema.js';
import {
  storedAccessTokenColumns,
  plainStoredAccessToken,
  accessTokenTargetColumns,
  audienceOf,
  targetIssuable,
  type AccessTokenTargetValues,
  type StoredAccessToken,
} from './access-token-target.js';
import { USER_CLAIM_ALIASES, USER_CLAIM_COLUMNS, userLocalGroupsColumn, type UserClaimColumns } from './user-claim-columns.js';

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

type RotationValues = AccessTokenTargetValues & {
  tokenHash: string;
  clientId: string;
  clientRevision: number;
  now: Date;
  scope: string[] | null;
  scopeText: string | null;
  nextTokenHash: string;
  nextExpiresAt: Date;
};

/**
 * The columns of a refresh token a grant's statement stores, the same whether a code or a rotation issues it: the
 * token, its family, who and what it is for (scope, resources, the claims request), the sign-in it stands on, its
 * DPoP key.
 */
export const REFRESH_TOKEN_COLUMNS = [
  'token_hash',
  'family_id',
  'client_id',
  'user_id',
  'scope',
  'auth_time',
  'issued_at',
  'expires_at',
  'sid',
  'amr',
  'acr',
  'resources',
  'claims',
  'jkt',
] as const;

/** The columns of the rotated token that the token response is made of (only these: each one is parsed on the hot path). */
const ROTATED_COLUMNS = ['user_id', 'scope', 'auth_time', 'sid', 'amr', 'acr', 'claims'] as const;

/** The rotated token, the access token stored with its successor, and the user's claim columns. */
export type RotatedRefreshToken = Pick<RefreshTokenRow, (typeof ROTATED_COLUMNS)[number]> & StoredAccessToken & UserClaimColumns;

const rotateQuery = reusableQuery((db: Db, v: RotationValues, shape: { narrower: boolean; resources: boolean }) =>
  db
    .with('rotated', (qb) =>
      qb
        .updateTable('refresh_tokens')
        .from('users')
        .set({ rotated_at: v.now })
        .where('refresh_tokens.token_hash', '=', v.tokenHash)
        .where('refresh_tokens.rotated_at', 'is', null)
        .where('refresh_tokens.revoked_at', 'is', null)
        .where('refresh_tokens.expires_at', '>', v.now)
        .where('refresh_tokens.client_id', '=', v.clientId)
        .whereRef('users.id', '=', 'refresh_tokens.user_id')
        .where('users.disabled_at', 'is', null)
        .where((eb) => clientUnchanged(eb as never, v.clientId, v.clientRevision))
        .$if(shape.narrower, (qb) => qb.where(sql<boolean>`string_to_array(refresh_tokens.scope, ' ') @> ${sql.val(v.scope)}::text[]`))
        .where(targetIssuable(v, sql`refresh_tokens.resources`, shape.resources))
        // RFC 9449 5: a bound refresh token is taken only with a proof by its key.
        .where(sql<boolean>`(refresh_tokens.jkt IS NULL OR refresh_tokens.jkt = ${v.atJkt}::text)`)
        .returningAll('refresh_tokens')
        .returning(USER_CLAIM_COLUMNS)
        .returning(userLocalGroupsColumn('refresh_tokens.scope', 'users.id')),
    )
    .with('next_refresh', (qb) =>
      qb
        .insertInto('refresh_tokens')
        .columns(REFRESH_TOKEN_COLUMNS)
        .expression((eb) =>
          eb
            .selectFrom('rotated')
            .select([
              eb.cast(eb.val(v.nextTokenHash), 'text').as('token_hash'),
              'rotated.family_id',
              'rotated.client_id',
              'rotated.user_id',
              'rotated.scope',
              'rotated.auth_time',
              eb.cast(eb.val(v.now), 'timestamptz').as('issued_at'),
              eb.cast(eb.val(v.nextExpiresAt), 'timestamptz').as('expires_at'),
              'rotated.sid',
              'rotated.amr',
              'rotated.acr',
              'rotated.resources',
              'rotated.claims',
              'rotated.jkt',
            ]),
        )
        .returning('token_hash'),
    )
    .with('next_access', (qb) =>
      qb
        .insertInto('access_tokens')
        .columns([
          'token_hash',
          'audience',
          'scope',
          'expires_at',
          'jkt',
          'client_id',
          'user_id',
          'issued_at',
          'refresh_family_id',
          'claims',
        ])
        .expression((eb) => {
          const target = accessTokenTargetColumns(
            v,
            shape.narrower ? sql<string>`${v.scopeText}::text` : sql<string>`rotated.scope`,
            shape.resources,
          );
          return eb
            .selectFrom('rotated')
            .$if(shape.resources, (qb) =>
              qb.leftJoin('resource_servers as rs', (join) =>
                join.on(sql<boolean>`rs.identifier = ${audienceOf(v, sql`rotated.resources`)}`),
              ),
            )
            .select([
              target.token_hash,
              target.audience,
              target.scope,
              target.expires_at,
              target.jkt,
              'rotated.client_id',
              'rotated.user_id',
              eb.cast(eb.val(v.now), 'timestamptz').as('issued_at'),
              'rotated.family_id as refresh_family_id',
              'rotated.claims',
            ]);
        })
        .returning(['token_hash', 'audience', 'scope', 'expires_at']),
    )
    .selectFrom('rotated')
    .select(ROTATED_COLUMNS.map((column) => `rotated.${column}` as const))
    .select(USER_CLAIM_ALIASES.map((column) => `rotated.${column}` as const))
    .select(storedAccessTokenColumns(shape.resources, 'next_access')),
);

/**
 * The refresh hot path in one round trip: marks the token rotated only if it is not rotated, not revoked,
 * unexpired, issued to this client (which still has `clientRevision`), its user enabled and its scope a superset of
 * the one asked for; and in the
 * same statement stores its successor and the new access token. Returns the rotated row, or nothing when any
 * condition fails (the caller asks why). Concurrent refreshes serialise on the row: exactly one sees rotated_at null.
 */
export async function rotateRefreshToken(db: Db, r: Rotation): Promise<RotatedRefreshToken | undefined> {
  const rows = await rotateQuery.execute(
    db,
    {
      tokenHash: r.tokenHash,
      clientId: r.clientId,
      clientRevision: r.clientRevision,
      now: r.now,
      scope: r.scope,
      scopeText: r.scope?.join(' ') ?? null,
      nextTokenHash: r.next.tokenHash,
      nextExpiresAt: r.next.expiresAt,
      ...r.accessToken,
      atIssuedAt: r.now,
    },
    { narrower: r.scope !== null, resources: r.resources },
  );
  const row = rows[0] as (Omit<RotatedRefreshToken, keyof StoredAccessToken> & Partial<StoredAccessToken>) | undefined;
  if (!row) return undefined;
  // The access token is stored whenever the token is rotated (same statement), so its columns are never null then.
  return r.resources
    ? (row as RotatedRefreshToken)
    : Object.assign(row, plainStoredAccessToken(r.accessToken, r.scope?.join(' ') ?? row.scope));
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
