// The audience, lifetime, format and scope of an access token stored inside a grant's statement (RFC 8707 2.2,
// RFC 9068): SQL fragments shared by the code, refresh and device statements, decided in the statement itself so that
// each grant stays one round trip whatever resource its tokens are for.
//
// A token request that names no resource, of a client without a default resource, runs the statement's other shape
// (`resources: false`) first, with none of this: the plain token for this provider, at the cost it had before. That
// shape redeems only a grant that named no resources; for one that did, the grant runs the full shape next.
import { sql, type RawBuilder } from 'kysely';

/** The named values of every statement that stores an access token (reusable-query.ts: all present, null if unused). */
export interface AccessTokenTargetValues {
  /** RFC 8707 2.2: the token request's `resource`, already checked against the client's allowed resources; or null. */
  atResource: string | null;
  /** The client's default resource, for a grant that names none; or null. */
  atDefaultResource: string | null;
  /** The digest of the opaque value, stored when the token is opaque. */
  atOpaqueHash: string;
  /** The digest of "jwt:" and the jti, stored when the resource server wants JWTs (RFC 9068). */
  atJwtHash: string;
  /** The expiry of a token for this provider (ACCESS_TOKEN_TTL_SECONDS); a resource server sets its own. */
  atDefaultExpiresAt: Date;
  atIssuedAt: Date;
  /** RFC 9449 6: the thumbprint of the DPoP key the token is bound to; null: a bearer token. */
  atJkt: string | null;
}

/**
 * The resource the token is for: the one named, else the grant's only resource, else (a grant that named none) the
 * client's default; null: this provider. A grant of several resources must name one (see targetIssuable).
 */
export function audienceOf(v: AccessTokenTargetValues, grantResources: RawBuilder<string[]>, enabled = true): RawBuilder<string | null> {
  if (!enabled) return sql<string | null>`null::text`;
  return sql<
    string | null
  >`coalesce(${v.atResource}::text, case when cardinality(${grantResources}) = 1 then (${grantResources})[1] when cardinality(${grantResources}) = 0 then ${v.atDefaultResource}::text end)`;
}

/**
 * RFC 8707 2.2 as three conditions of each grant's table (grant-statement.ts), in the order a refusal names them: a
 * named resource must be one the grant was for (or the grant named none); a grant of several must name one; and the
 * audience must be a resource server still registered. The plain shape (`resources: false`) takes only a grant that
 * named no resources; for one that did, the grant runs the full shape next.
 */
export function targetConditions<V extends AccessTokenTargetValues, S extends { resources: boolean }>(
  grantResources: RawBuilder<string[]>,
) {
  return [
    {
      name: 'resource_granted',
      check: (v: V, shape: S) =>
        shape.resources
          ? sql<boolean>`(${v.atResource}::text is null or cardinality(${grantResources}) = 0 or ${v.atResource}::text = any(${grantResources}))`
          : sql<boolean>`(cardinality(${grantResources}) = 0)`,
    },
    {
      name: 'resource_named',
      check: (v: V, shape: S) =>
        shape.resources ? sql<boolean>`(${v.atResource}::text is not null or cardinality(${grantResources}) <= 1)` : null,
    },
    {
      name: 'audience_known',
      check: (v: V, shape: S) => {
        if (!shape.resources) return null;
        const audience = audienceOf(v, grantResources);
        return sql<boolean>`(${audience} is null or exists (select 1 from resource_servers rs_known where rs_known.identifier = ${audience}))`;
      },
    },
  ] as const;
}

/**
 * The columns of the access token row, selected from a source joined `left join resource_servers rs on
 * rs.identifier = audienceOf(...)`: the digest of its value (opaque) or of its jti (jwt), its audience, its scope
 * (for a resource server, the granted scopes it defines), its expiry.
 */
export function accessTokenTargetColumns(v: AccessTokenTargetValues, grantedScope: RawBuilder<string>, enabled = true) {
  if (!enabled) {
    return {
      token_hash: sql<string>`${v.atOpaqueHash}::text`.as('token_hash'),
      audience: sql<string | null>`null::text`.as('audience'),
      scope: sql<string>`${grantedScope}`.as('scope'),
      jkt: sql<string | null>`${v.atJkt}::text`.as('jkt'),
      expires_at: sql<Date>`${v.atDefaultExpiresAt}::timestamptz`.as('expires_at'),
    };
  }
  return {
    token_hash: sql<string>`case when rs.token_format = 'jwt' then ${v.atJwtHash}::text else ${v.atOpaqueHash}::text end`.as('token_hash'),
    audience: sql<string | null>`rs.identifier`.as('audience'),
    scope:
      sql<string>`case when rs.identifier is null then ${grantedScope} else array_to_string(array(select s from unnest(string_to_array(${grantedScope}, ' ')) s where s = any(rs.scopes)), ' ') end`.as(
        'scope',
      ),
    jkt: sql<string | null>`${v.atJkt}::text`.as('jkt'),
    expires_at:
      sql<Date>`case when rs.identifier is null then ${v.atDefaultExpiresAt}::timestamptz else ${v.atIssuedAt}::timestamptz + rs.access_token_ttl_seconds * interval '1 second' end`.as(
        'expires_at',
      ),
  };
}

/**
 * The statement's answer about the access token it stored (StoredAccessToken), from the CTE `issued` that stored it.
 * The plain shape returns none of these: every value is known beforehand (plainStoredAccessToken), and a column the
 * statement only echoes back is a value the driver parses for nothing on the hot path.
 */
export function storedAccessTokenColumns(enabled: boolean, issued: string) {
  if (!enabled) return [];
  const from = sql.table(issued);
  return [
    sql<string>`(select token_hash from ${from})`.as('at_hash'),
    sql<string | null>`(select audience from ${from})`.as('at_audience'),
    sql<string>`(select scope from ${from})`.as('at_scope'),
    sql<Date>`(select expires_at from ${from})`.as('at_expires_at'),
    sql<string | null>`(select rs.signing_alg from resource_servers rs where rs.identifier = (select audience from ${from}))`.as(
      'at_signing_alg',
    ),
  ];
}

/** What the plain shape stored, for `grantedScope`: the opaque token for this provider, as prepared. */
export function plainStoredAccessToken(v: Omit<AccessTokenTargetValues, 'atIssuedAt'>, grantedScope: string): StoredAccessToken {
  return { at_hash: v.atOpaqueHash, at_audience: null, at_scope: grantedScope, at_expires_at: v.atDefaultExpiresAt, at_signing_alg: null };
}

/** What the statement tells the grant of the token it stored. */
export interface StoredAccessToken {
  at_hash: string;
  at_audience: string | null;
  at_scope: string;
  at_expires_at: Date;
  at_signing_alg: string | null;
}
