// Repository for opaque bearer access tokens, looked up by the digest of their value.
import { sql, type Expression } from 'kysely';
import { localGroupNames } from './groups.js';
import type { Db } from './database.js';
import { reusableQuery } from './hot-path/reusable-query.js';
import type { AccessTokenRow } from './schema.js';
import type { VersionedShapes } from './json-shape.js';
import { organizationClaimsOf, readUserClaims, USER_CLAIM_FIELDS, type ClaimsUser } from './user-claim-columns.js';

export interface AccessTokenWithUser {
  clientId: string;
  /** The resource server it is for; null: this provider. */
  audience: string | null;
  /** RFC 9449 6: the DPoP key it is bound to; null: a bearer token. */
  jkt: string | null;
  scope: string;
  expiresAt: Date;
  revokedAt: Date | null;
  /** The user's claims, and whether they are disabled: only what userinfo answers with (each column is parsed). */
  user: ClaimsUser & { disabled_at: Date | null };
  /** The claims request of the authorization the token came from (OIDC Core 5.5); null: none. */
  claims: string | null;
}

const tokenWithUserQuery = reusableQuery((db: Db, v: { tokenHash: string }) =>
  db
    .selectFrom('access_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['u.id', ...USER_CLAIM_FIELDS.map((field) => `u.${field}` as const), 'u.disabled_at'])
    // The user's groups ride along only when the token was granted the `groups` scope (storage/groups.ts).
    .select(localGroupNames(sql.ref('t.scope') as Expression<string>, sql.ref('u.id') as Expression<string>).as('local_groups'))
    // Issue 40: the organization's claims ride along in the same statement, only for a token that has one.
    .select(organizationClaimsOf('t.scope', 't.organization_id', 'u.id').as('organization'))
    .select([
      't.client_id as token_client_id',
      't.scope as token_scope',
      't.expires_at as token_expires_at',
      't.revoked_at as token_revoked_at',
      't.audience as token_audience',
      't.jkt as token_jkt',
      't.claims as token_claims',
    ])
    .where('t.token_hash', '=', v.tokenHash),
);

/** The token and its user in one round trip (the userinfo hot path), the user's claims read through `claimShapes`. */
export async function findAccessTokenWithUser(
  db: Db,
  claimShapes: VersionedShapes<Record<string, unknown>>,
  tokenHash: string,
): Promise<AccessTokenWithUser | undefined> {
  const [row] = await tokenWithUserQuery.execute(db, { tokenHash }, {});
  if (!row) return undefined;
  const { token_client_id, token_scope, token_expires_at, token_revoked_at, token_audience, token_jkt, token_claims, ...user } = row;
  return {
    clientId: token_client_id,
    audience: token_audience,
    jkt: token_jkt,
    scope: token_scope,
    expiresAt: token_expires_at,
    revokedAt: token_revoked_at,
    claims: token_claims,
    user: { ...user, ...readUserClaims(user.claims, claimShapes) },
  };
}

type ClientTokenValues = {
  tokenHash: string;
  clientId: string;
  clientRevision: number;
  scope: string;
  issuedAt: Date;
  expiresAt: Date;
  audience: string | null;
  jkt: string | null;
};

const clientTokenQuery = reusableQuery((db: Db, token: ClientTokenValues) =>
  db
    .insertInto('access_tokens')
    .columns(['token_hash', 'client_id', 'scope', 'issued_at', 'expires_at', 'audience', 'jkt'])
    .expression((eb) =>
      eb
        .selectFrom('clients')
        .select([
          eb.cast(eb.val(token.tokenHash), 'text').as('token_hash'),
          'clients.client_id',
          eb.cast(eb.val(token.scope), 'text').as('scope'),
          eb.cast(eb.val(token.issuedAt), 'timestamptz').as('issued_at'),
          eb.cast(eb.val(token.expiresAt), 'timestamptz').as('expires_at'),
          eb.cast(eb.val(token.audience), 'text').as('audience'),
          eb.cast(eb.val(token.jkt), 'text').as('jkt'),
        ])
        .where('clients.client_id', '=', token.clientId)
        .where('clients.revision', '=', token.clientRevision),
    )
    .returning('token_hash'),
);

/**
 * Stores a client_credentials access token (RFC 6749 4.4: no user, no code, no refresh token), only while the
 * client has `clientRevision`; false when it no longer does.
 */
export async function insertClientAccessToken(db: Db, token: ClientTokenValues): Promise<boolean> {
  return (await clientTokenQuery.execute(db, token, {})).length > 0;
}

/** The access token and whether its user (if it has one) is disabled. */
export type AccessTokenWithUserState = AccessTokenRow & { user_disabled_at: Date | null };

export function findAccessToken(db: Db, tokenHash: string): Promise<AccessTokenWithUserState | undefined> {
  return db
    .selectFrom('access_tokens as t')
    .leftJoin('users as u', 'u.id', 't.user_id')
    .selectAll('t')
    .select('u.disabled_at as user_disabled_at')
    .where('t.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function revokeAccessToken(db: Db, tokenHash: string, now: Date): Promise<void> {
  await db
    .updateTable('access_tokens')
    .set({ revoked_at: now })
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .execute();
}

/** An access token with the current registered scope of its client (null when the client is gone). */
export interface AccessTokenWithClientScope {
  client_id: string;
  user_id: string | null;
  scope: string;
  expires_at: Date;
  revoked_at: Date | null;
  client_exists: boolean;
  registered_scope: string | null;
}

/** For resource endpoints that accept client_credentials tokens: the token and what its client may still ask for. */
export async function findAccessTokenWithClientScope(db: Db, tokenHash: string): Promise<AccessTokenWithClientScope | undefined> {
  const row = await db
    .selectFrom('access_tokens as t')
    .leftJoin('clients as c', 'c.client_id', 't.client_id')
    .select(['t.client_id', 't.user_id', 't.scope', 't.expires_at', 't.revoked_at', 'c.client_id as current_client_id'])
    .select(sql<string | null>`c.metadata ->> 'scope'`.as('registered_scope'))
    .where('t.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const { current_client_id, ...token } = row;
  return Object.assign(token, { client_exists: current_client_id !== null });
}
