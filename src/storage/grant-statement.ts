// The statement every grant for a user issues its tokens with (code exchange, refresh, device poll), written once:
// the grant's row is taken (a CTE named `taken`) under the grant's table of conditions, and the refresh token and the
// access token are stored from it, in one round trip. A grant's conditions are one table (name, SQL): the statement
// requires them all, and when it takes nothing, firstFailedCondition evaluates the same table over the row to name the
// first that failed, so the domain explains a refusal without restating a rule.
import { sql, type Expression, type QueryCreator, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from './database.js';
import type { Database } from './schema.js';
import { accessTokenTargetColumns, audienceOf, type AccessTokenTargetValues } from './access-token-target.js';

/** One condition a grant's row must meet for tokens to be issued from it. */
export interface GrantCondition<V, S> {
  /** What a refusal reports when this is the first condition that failed. */
  readonly name: string;
  /** The check, in SQL over the grant's table (by its own name) and `users`; null where the shape makes it hold. */
  readonly check: (v: V, shape: S) => Expression<SqlBool> | null;
}

/** A grant's table of conditions, in the order a refusal is explained; `as const` keeps each name's literal. */
export function grantConditions<V, S>() {
  return <const N extends string>(table: readonly { readonly name: N; readonly check: GrantCondition<V, S>['check'] }[]) => table;
}

/** The names of a table made by grantConditions. */
export type ConditionName<T extends readonly { name: string }[]> = T[number]['name'];

/** The statement took the row and issued from it, or the first condition it failed ('unknown': there is no such row). */
export type Taken<R, N extends string> = { row: R; refused?: undefined } | { row?: undefined; refused: N | 'unknown' };

/** Every condition of the table that this shape checks, as one SQL conjunction for the statement's WHERE. */
export function allHold<V, S>(table: readonly GrantCondition<V, S>[], v: V, shape: S): RawBuilder<boolean> {
  const checks = table.map((c) => c.check(v, shape)).filter((check) => check !== null);
  return checks.length === 0 ? sql<boolean>`true` : sql<boolean>`(${sql.join(checks, sql` and `)})`;
}

/**
 * Off the hot path, after the statement took nothing: each condition of `table` evaluated with the statement's own
 * values and shape over the row found by `key`, and the name of the first that fails. 'unknown' when there is no such
 * row, or when every condition holds now (another request changed the row meanwhile: nothing to tell).
 */
export async function firstFailedCondition<V, S, N extends string>(
  db: Db,
  source: { table: 'authorization_codes' | 'refresh_tokens' | 'device_authorizations'; key: RawBuilder<boolean> },
  table: readonly { name: N; check: GrantCondition<V, S>['check'] }[],
  v: V,
  shape: S,
): Promise<N | 'unknown'> {
  const checked = table.flatMap((c) => {
    const check = c.check(v, shape);
    return check === null ? [] : [{ name: c.name, check }];
  });
  const row = await db
    .selectFrom(source.table)
    .leftJoin('users', (join) => join.on(sql<boolean>`users.id = ${sql.ref(`${source.table}.user_id`)}`))
    .select(checked.map((c, i) => sql<boolean>`${c.check}`.as(`c${i}`)))
    .where(source.key)
    .executeTakeFirst();
  if (!row) return 'unknown';
  const held = row as Record<string, boolean | null>;
  // A condition that is null (a comparison with a null column) failed, as the statement's WHERE took it.
  return checked.find((_, i) => held[`c${i}`] !== true)?.name ?? 'unknown';
}

/** The named values of the tokens an issuing statement stores (reusable-query.ts: all present, null if unused). */
export interface IssuingValues extends AccessTokenTargetValues {
  now: Date;
  /** The refresh token stored beside the access token: the digest of its value and its expiry; null when none is due. */
  refreshTokenHash: string | null;
  refreshExpiresAt: Date | null;
  /** A new grant's family (code, device); null where the refresh token continues the taken one's (rotation). */
  refreshFamilyId: string | null;
  /** OIDC Core 11: a new grant's refresh token is stored only when its scope holds this (offline_access). */
  refreshOnlyWithScope: string | null;
  /** RFC 9449 5: the key a new refresh token is bound to; a rotated one keeps the taken one's. */
  refreshJkt: string | null;
}

/** A new grant's refresh token as the grant prepared it (code, device): stored when its scope holds onlyWithScope. */
export interface NewGrantRefreshToken {
  tokenHash: string;
  familyId: string;
  expiresAt: Date;
  onlyWithScope: string;
  jkt: string | null;
}

/** The issuing values of a new grant (code, device): its access token and, when the client may have one, its refresh token. */
export function newGrantIssuing(
  now: Date,
  accessToken: Omit<AccessTokenTargetValues, 'atIssuedAt'>,
  refresh: NewGrantRefreshToken | null,
): IssuingValues {
  return Object.assign({}, accessToken, {
    now,
    atIssuedAt: now,
    refreshTokenHash: refresh?.tokenHash ?? null,
    refreshFamilyId: refresh?.familyId ?? null,
    refreshExpiresAt: refresh?.expiresAt ?? null,
    refreshOnlyWithScope: refresh?.onlyWithScope ?? null,
    refreshJkt: refresh?.jkt ?? null,
  });
}

/** How a grant's statement stores its tokens from the taken row. */
export interface Issuing {
  /**
   * The refresh token: none; a new grant's (code, device: when the granted scope holds refreshOnlyWithScope), or the
   * taken one's successor (rotation: same family, same key).
   */
  refresh: 'none' | 'new' | 'successor';
  /** The statement's shape with the resource rules (access-token-target.ts). */
  resources: boolean;
  /** The access token's scope: the taken row's, or the narrower one the request asked for. */
  scope: RawBuilder<string>;
  /** RFC 6749 4.1.2: the access token keeps the code it came from, so that a replayed code revokes it. */
  codeHash: boolean;
  /** OIDC Core 5.5: the taken row carries the authorization's claims request, which the tokens keep. */
  claims: boolean;
  /** Tokens are stored only when this holds of the taken row (a device request: once it is approved). */
  onlyWhen?: RawBuilder<boolean>;
  /** Issue 40: the taken row carries the organization the sign-in was for (code, refresh), which the tokens keep. */
  organization: boolean;
}

/** The grant's row as the `taken` CTE returns it, as far as the tokens issued from it read it. */
interface TakenRow {
  client_id: string;
  user_id: string;
  scope: string;
  auth_time: Date;
  sid: string | null;
  amr: string[] | null;
  acr: string | null;
  resources: string[];
  claims: string | null;
  family_id: string;
  jkt: string | null;
  code_hash: string;
  organization_id: string | null;
}

/** The CTEs withIssuedTokens adds: the refresh token stored (when one was) and the access token stored. */
export interface IssuedTokens {
  issued_refresh: { family_id: string };
  issued: { token_hash: string; audience: string | null; scope: string; expires_at: Date };
}

/**
 * After the grant's `taken` CTE: `issued_refresh` stores the refresh token and `issued` the access token, both from
 * the taken row, in the same statement. Nothing is stored when nothing was taken.
 */
export function withIssuedTokens<DB extends Database>(
  qc: QueryCreator<DB>,
  v: IssuingValues,
  issuing: Issuing,
): QueryCreator<DB & IssuedTokens> {
  const q = qc as unknown as QueryCreator<Database & { taken: TakenRow } & IssuedTokens>;
  const onlyWhen = issuing.onlyWhen;
  // A successor is always stored; a new grant's refresh token only when its scope holds refreshOnlyWithScope.
  const refreshDue =
    issuing.refresh === 'new'
      ? sql<boolean>`${v.refreshOnlyWithScope} = any(string_to_array(taken.scope, ' '))`
      : issuing.refresh === 'none'
        ? sql<boolean>`false`
        : undefined;
  const successor = issuing.refresh === 'successor';
  return q
    .with('issued_refresh', (qb) =>
      qb
        .insertInto('refresh_tokens')
        .columns(REFRESH_TOKEN_COLUMNS)
        .expression((eb) =>
          eb
            .selectFrom('taken')
            .select([
              eb.cast(eb.val(v.refreshTokenHash), 'text').as('token_hash'),
              successor ? 'taken.family_id' : eb.cast(eb.val(v.refreshFamilyId), 'uuid').as('family_id'),
              'taken.client_id',
              'taken.user_id',
              'taken.scope',
              'taken.auth_time',
              eb.cast(eb.val(v.now), 'timestamptz').as('issued_at'),
              eb.cast(eb.val(v.refreshExpiresAt), 'timestamptz').as('expires_at'),
              'taken.sid',
              'taken.amr',
              'taken.acr',
              'taken.resources',
              issuing.claims ? 'taken.claims' : sql<string | null>`null::text`.as('claims'),
              successor ? 'taken.jkt' : eb.cast(eb.val(v.refreshJkt), 'text').as('jkt'),
              issuing.organization ? 'taken.organization_id' : sql<string | null>`null::uuid`.as('organization_id'),
            ])
            .$if(onlyWhen !== undefined, (qb) => qb.where(onlyWhen!))
            .$if(refreshDue !== undefined, (qb) => qb.where(refreshDue!)),
        )
        .returning('family_id'),
    )
    .with('issued', (qb) =>
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
          ...(issuing.codeHash ? (['code_hash'] as const) : []),
          ...(issuing.claims ? (['claims'] as const) : []),
          ...(issuing.organization ? (['organization_id'] as const) : []),
        ])
        .expression((eb) => {
          const target = accessTokenTargetColumns(v, issuing.scope, issuing.resources);
          return eb
            .selectFrom('taken')
            .$if(issuing.resources, (qb) =>
              qb.leftJoin('resource_servers as rs', (join) =>
                join.on(sql<boolean>`rs.identifier = ${audienceOf(v, sql`taken.resources`)}`),
              ),
            )
            .select([
              target.token_hash,
              target.audience,
              target.scope,
              target.expires_at,
              target.jkt,
              'taken.client_id',
              'taken.user_id',
              eb.cast(eb.val(v.now), 'timestamptz').as('issued_at'),
              successor
                ? 'taken.family_id as refresh_family_id'
                : eb.selectFrom('issued_refresh').select('issued_refresh.family_id').as('refresh_family_id'),
            ])
            .$if(issuing.codeHash, (qb) => qb.select('taken.code_hash'))
            .$if(issuing.claims, (qb) => qb.select('taken.claims'))
            .$if(issuing.organization, (qb) => qb.select('taken.organization_id'))
            .$if(onlyWhen !== undefined, (qb) => qb.where(onlyWhen!));
        })
        .returning(['token_hash', 'audience', 'scope', 'expires_at']),
    ) as unknown as QueryCreator<DB & IssuedTokens>;
}

/**
 * The columns of a refresh token a grant's statement stores, the same whether a code, a device or a rotation issues
 * it: the token, its family, who and what it is for (scope, resources, the claims request), the sign-in it stands on,
 * its DPoP key, the organization it was for (issue 40).
 */
const REFRESH_TOKEN_COLUMNS = [
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
  'organization_id',
] as const;
