// Repository for authorization codes: issued once, redeemed at most once, kept after use to detect replay.
import { expressionBuilder, sql, type QueryCreator } from 'kysely';
import { clientUnchanged } from './clients.js';
import { clientAdmitsUser } from './groups.js';
import type { Db } from './database.js';
import { reusableQuery } from './hot-path/reusable-query.js';
import type { AuthorizationCodeRow, Database } from './schema.js';
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
  newGrantIssuing,
  withIssuedTokens,
  type ConditionName,
  type IssuingValues,
  type NewGrantRefreshToken,
  type Taken,
} from './grant-statement.js';
import {
  USER_CLAIM_ALIASES,
  USER_CLAIM_COLUMNS,
  organizationClaimsOf,
  userLocalGroupsColumn,
  type UserClaimColumns,
} from './user-claim-columns.js';

export interface NewCode {
  codeHash: string;
  clientId: string;
  redirectUri: string;
  redirectUriInRequest: boolean;
  scope: string;
  nonce: string | null;
  codeChallenge: string | null;
  issuedAt: Date;
  expiresAt: Date;
  /** RFC 8707 2.1: the resources the request named. */
  resources: string[];
  /** The claims request parameter, reduced (OIDC Core 5.5); null: none. */
  claims: string | null;
  /** RFC 9449 10: the thumbprint of the DPoP key the code is bound to; null: none. */
  dpopJkt: string | null;
  /** Issue 40: the organization the sign-in was for; null or absent: none. */
  organizationId?: string | null;
}

/** The columns a code is written with (the statements that issue one list their values in this order). */
const CODE_COLUMNS = [
  'code_hash',
  'client_id',
  'user_id',
  'redirect_uri',
  'redirect_uri_in_request',
  'scope',
  'nonce',
  'code_challenge',
  'auth_time',
  'issued_at',
  'expires_at',
  'sid',
  'amr',
  'acr',
  'resources',
  'claims',
  'dpop_jkt',
  'organization_id',
] as const;

/** Inserts a code issued in session `sid` and records that the session signed in to the code's client. */
export async function insertCode(
  db: Db,
  code: NewCode & { userId: string; authTime: Date; sid: string; amr: string[]; acr: string | null },
): Promise<void> {
  await db
    .with('code', (qb) =>
      qb
        .insertInto('authorization_codes')
        .values(Object.assign(codeValues(code, code.userId, code.authTime, code.sid), { amr: code.amr, acr: code.acr }))
        .returning(['sid', 'client_id']),
    )
    .with('seen', (qb) => recordSessionClient(qb, code.issuedAt))
    .selectFrom('code')
    .select('code.client_id')
    .execute();
}

/** What completeConsentedInteraction found: whether the user had consented, and whether this request completed it. */
export interface ConsentedCompletion {
  consented: boolean;
  completed: boolean;
}

/**
 * After a sign-in, in one statement: when the user has already granted the client every scope of `scopes`, completes
 * the interaction (only if no other request did) and issues its code in the signed-in session (recording the session's
 * client as insertCode does). Nothing is written without that consent, nor when the interaction was already complete;
 * the caller learns which. The statement the two-step path ran as a read, then a transaction of three.
 */
export async function completeConsentedInteraction(
  db: Db,
  interactionId: string,
  code: NewCode & { userId: string; authTime: Date; sid: string; amr: string[]; acr: string | null },
  scopes: string[],
): Promise<ConsentedCompletion> {
  const v = Object.assign(codeValues(code, code.userId, code.authTime, code.sid), { amr: code.amr, acr: code.acr });
  const row = await db
    // Every requested scope granted before (none requested: nothing to grant), as hasConsent decides it.
    .with('consented', (qb) =>
      qb.selectNoFrom(sql<boolean>`true`.as('ok')).where((eb) =>
        eb.or([
          sql<boolean>`cardinality(${scopes}::text[]) = 0`,
          eb.exists(
            eb
              .selectFrom('consents')
              .select('consents.user_id')
              .where('consents.user_id', '=', code.userId)
              .where('consents.client_id', '=', code.clientId)
              .where(sql<boolean>`consents.scopes @> ${scopes}::text[]`),
          ),
        ]),
      ),
    )
    .with('done', (qb) =>
      qb
        .updateTable('interactions')
        .set({ completed_at: code.issuedAt })
        .where('interactions.id', '=', interactionId)
        .where('interactions.completed_at', 'is', null)
        .where((eb) => eb.exists(eb.selectFrom('consented').select('consented.ok')))
        .returning('interactions.id'),
    )
    .with('code', (qb) =>
      qb
        .insertInto('authorization_codes')
        .columns(CODE_COLUMNS)
        .expression(
          sql`SELECT ${v.code_hash}::text, ${v.client_id}::text, ${v.user_id}::uuid, ${v.redirect_uri}::text,
                     ${v.redirect_uri_in_request}::boolean, ${v.scope}::text, ${v.nonce}::text, ${v.code_challenge}::text,
                     ${v.auth_time}::timestamptz, ${v.issued_at}::timestamptz, ${v.expires_at}::timestamptz, ${v.sid}::text,
                     ${v.amr}::text[], ${v.acr}::text, ${v.resources}::text[], ${v.claims}::text, ${v.dpop_jkt}::text,
                     ${v.organization_id}::uuid
                FROM done`,
        )
        .returning(['sid', 'client_id']),
    )
    .with('seen', (qb) => recordSessionClient(qb, code.issuedAt))
    .selectNoFrom((eb) => [
      eb.exists(eb.selectFrom('consented').select('consented.ok')).as('consented'),
      eb.exists(eb.selectFrom('code').select('code.client_id')).as('completed'),
    ])
    .executeTakeFirstOrThrow();
  return { consented: row.consented === true, completed: row.completed === true };
}

/**
 * The session behind a code has signed in to the code's client: a row for Back-Channel Logout, written in
 * the statement that issues the code (the `code` CTE), and only once per session and client.
 */
function recordSessionClient<DB extends Database & { code: { sid: string | null; client_id: string } }>(qb: QueryCreator<DB>, now: Date) {
  const db = qb as unknown as QueryCreator<Database & { code: { sid: string | null; client_id: string } }>;
  return db
    .insertInto('session_clients')
    .columns(['sid', 'client_id', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('code')
        .select(['code.sid', 'code.client_id', eb.cast(eb.val(now), 'timestamptz').as('created_at')])
        .where('code.sid', 'is not', null),
    )
    .onConflict((oc) => oc.doNothing())
    .returning('session_clients.sid');
}

/** The values of insertCodeForConsentedSession's statement; every key present, null when unused (reusable-query.ts). */
type ConsentedCodeValues = NewCode & {
  idHash: string;
  scopes: string[];
  now: Date;
  minAuthTime: Date | null;
  userId: string | null;
  clientRevision: number;
};

/**
 * The shape of insertCodeForConsentedSession's statement: the conditions on minAuthTime and userId are in it only
 * when they are set, and the group check only for a client limited to groups (storage/groups.ts clientAdmitsUser).
 */
type ConsentedCodeShape = { minAuthTime: boolean; userId: boolean; groups: boolean; mfa: boolean };

/** One compiled statement per shape. */
const consentedCodeQuery = reusableQuery((db: Db, v: ConsentedCodeValues, shape: ConsentedCodeShape) =>
  db
    .with('code', (qb) =>
      qb
        .insertInto('authorization_codes')
        .columns(CODE_COLUMNS)
        .expression((eb) =>
          eb
            .selectFrom('sessions as s')
            .innerJoin('users as u', 'u.id', 's.user_id')
            .innerJoin('consents as c', (join) => join.onRef('c.user_id', '=', 's.user_id').on('c.client_id', '=', v.clientId))
            // Parameters in a SELECT list have no column type to infer from: each is cast explicitly.
            .select([
              eb.cast(eb.val(v.codeHash), 'text').as('code_hash'),
              eb.cast(eb.val(v.clientId), 'text').as('client_id'),
              's.user_id',
              eb.cast(eb.val(v.redirectUri), 'text').as('redirect_uri'),
              eb.cast(eb.val(v.redirectUriInRequest), 'boolean').as('redirect_uri_in_request'),
              eb.cast(eb.val(v.scope), 'text').as('scope'),
              eb.cast(eb.val(v.nonce), 'text').as('nonce'),
              eb.cast(eb.val(v.codeChallenge), 'text').as('code_challenge'),
              's.auth_time',
              eb.cast(eb.val(v.issuedAt), 'timestamptz').as('issued_at'),
              eb.cast(eb.val(v.expiresAt), 'timestamptz').as('expires_at'),
              's.sid',
              's.amr',
              's.acr',
              eb.cast(eb.val(v.resources), sql.raw('text[]')).as('resources'),
              eb.cast(eb.val(v.claims), 'text').as('claims'),
              eb.cast(eb.val(v.dpopJkt), 'text').as('dpop_jkt'),
              // A request for an organization never takes this path (authorize.ts): no parameter for it.
              sql<null>`null::uuid`.as('organization_id'),
            ])
            .where('s.id_hash', '=', v.idHash)
            .where('s.expires_at', '>', v.now)
            .where('s.revoked_at', 'is', null)
            .where('u.disabled_at', 'is', null)
            .$if(shape.minAuthTime, (qb) => qb.where('s.auth_time', '>=', v.minAuthTime!))
            // Only this user's session will do (id_token_hint); compared as text, since a hint's sub need not be a uuid.
            .$if(shape.userId, (qb) => qb.where(sql<string>`s.user_id::text`, '=', v.userId!))
            .where(sql<boolean>`c.scopes @> ${sql.val(v.scopes)}::text[]`)
            .$if(shape.groups, (qb) => qb.where(clientAdmitsUser(sql.val(v.clientId), sql.ref('u.id'), sql.ref('u.claims'))))
            // A client that requires a second factor: RFC 8176 `mfa` among the sign-in's methods.
            .$if(shape.mfa, (qb) => qb.where(sql<boolean>`'mfa' = any(s.amr)`))
            .where((eb) => clientUnchanged(eb as never, v.clientId, v.clientRevision)),
        )
        .returning(['code_hash', 'sid', 'client_id']),
    )
    .with('seen', (qb) => recordSessionClient(qb, v.issuedAt))
    .selectFrom('code')
    .select('code.code_hash'),
);

/**
 * The authorize hot path in one round trip: inserts the code only when the session is live, its user
 * enabled, the user has already granted every scope in `scopes` and the client still has `clientRevision`,
 * and records that the session signed in to this client. Returns false when any of that is missing (or the
 * sign-in is older than minAuthTime, or the session is not userId's), and the caller falls back to the
 * sign-in or consent pages. For a client limited to groups (`groupRestricted`), the user must also be admitted.
 */
export async function insertCodeForConsentedSession(
  db: Db,
  code: NewCode,
  session: {
    idHash: string;
    scopes: string[];
    now: Date;
    minAuthTime: Date | null;
    userId?: string | undefined;
    clientRevision: number;
    groupRestricted: boolean;
    /** The client requires a second factor: only a session whose amr says `mfa` will do. */
    requireMfa: boolean;
  },
): Promise<boolean> {
  const { groupRestricted, requireMfa, ...values } = session;
  const rows = await consentedCodeQuery.execute(db, Object.assign({}, code, values, { userId: session.userId ?? null }), {
    minAuthTime: session.minAuthTime !== null,
    userId: session.userId !== undefined,
    groups: groupRestricted,
    mfa: requireMfa,
  });
  return rows.length > 0;
}

export interface Redemption {
  codeHash: string;
  clientId: string;
  /** The revision of the client as authenticated: nothing is redeemed if the client changed since. */
  clientRevision: number;
  /** The redirect_uri of the token request, or null when it had none. */
  redirectUri: string | null;
  /** BASE64URL(SHA256(code_verifier)), or null when the request had no verifier. */
  challengeOfVerifier: string | null;
  now: Date;
  /** Where the access token goes and how it is stored (src/storage/access-token-target.ts). */
  accessToken: Omit<AccessTokenTargetValues, 'atIssuedAt'>;
  /** The client can target a resource server: the statement's shape with the resource rules (access-token-target.ts). */
  resources: boolean;
  /**
   * A refresh token to store with the access token when the granted scope holds `onlyWithScope`;
   * null when the client may not have one.
   */
  refreshToken: NewGrantRefreshToken | null;
}

/** The columns of the redeemed code that the token response is made of (only these: each one is parsed on the hot path). */
const REDEEMED_COLUMNS = ['user_id', 'scope', 'nonce', 'auth_time', 'sid', 'amr', 'acr', 'claims'] as const;

/**
 * The redeemed code, the refresh token family issued with it (null when none was), the access token stored, and the
 * user's claim columns (read by the same statement, which joins the user to check they are enabled).
 */
export type RedeemedCode = Pick<AuthorizationCodeRow, (typeof REDEEMED_COLUMNS)[number]> & {
  refresh_family_id: string | null;
} & StoredAccessToken &
  UserClaimColumns;

/** A Redemption flattened into the named values of the reusable statement. */
type RedemptionValues = Omit<Redemption, 'accessToken' | 'refreshToken' | 'resources'> & IssuingValues;

type RedemptionShape = { redirectUri: boolean; verifier: boolean; refresh: boolean; resources: boolean };

/** What a code must be for tokens to be issued from it, in the order a refusal names the first that fails. */
export const CODE_CONDITIONS = grantConditions<RedemptionValues, RedemptionShape>()([
  // RFC 6749 4.1.3: "ensure that the authorization code was issued to the authenticated confidential client".
  { name: 'client', check: (v) => sql<boolean>`authorization_codes.client_id = ${v.clientId}` },
  // RFC 6749 4.1.2: "If an authorization code is used more than once, the authorization server MUST deny the request".
  { name: 'unused', check: () => sql<boolean>`authorization_codes.consumed_at is null` },
  { name: 'unexpired', check: (v) => sql<boolean>`authorization_codes.expires_at > ${v.now}` },
  // RFC 6749 4.1.3: redirect_uri is required, and identical, "if the redirect_uri parameter was included in the
  // authorization request".
  {
    name: 'redirect_uri',
    check: (v, shape) =>
      shape.redirectUri
        ? sql<boolean>`authorization_codes.redirect_uri = ${v.redirectUri}`
        : sql<boolean>`authorization_codes.redirect_uri_in_request = false`,
  },
  // RFC 7636 4.5, 4.6: a code issued with a code_challenge is redeemed only with the code_verifier that matches it.
  { name: 'verifier_sent', check: (_, shape) => (shape.verifier ? null : sql<boolean>`authorization_codes.code_challenge is null`) },
  // RFC 9700 2.1.1: a code_verifier for a code issued without a code_challenge is refused (PKCE downgrade).
  { name: 'challenge_made', check: (_, shape) => (shape.verifier ? sql<boolean>`authorization_codes.code_challenge is not null` : null) },
  {
    name: 'verifier_matches',
    check: (v, shape) => (shape.verifier ? sql<boolean>`authorization_codes.code_challenge = ${v.challengeOfVerifier}` : null),
  },
  // RFC 9449 10: "the authorization server computes the JWK Thumbprint of the proof-of-possession public key in the
  // DPoP proof and verifies that it matches the dpop_jkt parameter value in the authorization request".
  {
    name: 'dpop_key',
    check: (v) => sql<boolean>`(authorization_codes.dpop_jkt is null or authorization_codes.dpop_jkt = ${v.atJkt}::text)`,
  },
  ...targetConditions<RedemptionValues, RedemptionShape>(sql`authorization_codes.resources`),
  // A user disabled after signing in gets no tokens from a code still in flight.
  { name: 'user_enabled', check: () => sql<boolean>`users.disabled_at is null` },
  { name: 'client_unchanged', check: (v) => clientUnchanged(expressionBuilder<Database, never>(), v.clientId, v.clientRevision) },
]);

/** Why a code was not redeemed: the first of CODE_CONDITIONS it failed, or 'unknown'. */
export type CodeRefusal = ConditionName<typeof CODE_CONDITIONS> | 'unknown';

const redeemQuery = reusableQuery((db: Db, v: RedemptionValues, shape: RedemptionShape) =>
  withIssuedTokens(
    db.with('taken', (qb) =>
      qb
        .updateTable('authorization_codes')
        .from('users')
        .set({ consumed_at: v.now })
        .where('authorization_codes.code_hash', '=', v.codeHash)
        .whereRef('users.id', '=', 'authorization_codes.user_id')
        .where(allHold(CODE_CONDITIONS, v, shape))
        .returningAll('authorization_codes')
        .returning(USER_CLAIM_COLUMNS)
        .returning(userLocalGroupsColumn('authorization_codes.scope', 'users.id'))
        .returning(
          organizationClaimsOf('authorization_codes.scope', 'authorization_codes.organization_id', 'users.id').as('user_organization'),
        ),
    ),
    v,
    {
      refresh: shape.refresh ? 'new' : 'none',
      resources: shape.resources,
      scope: sql<string>`taken.scope`,
      codeHash: true,
      claims: true,
      organization: true,
    },
  )
    .selectFrom('taken')
    .select(REDEEMED_COLUMNS.map((column) => `taken.${column}` as const))
    .select(USER_CLAIM_ALIASES.map((column) => `taken.${column}` as const))
    .select('taken.user_organization')
    .select((eb) => [
      eb.selectFrom('issued_refresh').select('issued_refresh.family_id').as('refresh_family_id'),
      // What was stored: known beforehand in the plain shape; read back from the CTE that stored it in the other.
      ...storedAccessTokenColumns(shape.resources, 'issued'),
    ]),
);

/**
 * The token hot path in one round trip: consumes the code only if it meets every condition of CODE_CONDITIONS, and in
 * the same statement stores the access token issued from it (and the refresh token, when one is due). Without a
 * resource named (or a default one) the plain shape runs first, which redeems only a code of no resources; one whose
 * authorization named some is redeemed by the shape with the resource rules (access-token-target.ts). When neither
 * redeems it, the refusal names the first condition the code fails. Concurrent redemptions serialise on the row:
 * exactly one sees consumed_at still null.
 */
export async function redeemCode(db: Db, r: Redemption): Promise<Taken<RedeemedCode, CodeRefusal>> {
  const values: RedemptionValues = Object.assign(newGrantIssuing(r.now, r.accessToken, r.refreshToken), {
    codeHash: r.codeHash,
    clientId: r.clientId,
    clientRevision: r.clientRevision,
    redirectUri: r.redirectUri,
    challengeOfVerifier: r.challengeOfVerifier,
  });
  const shape = {
    redirectUri: r.redirectUri !== null,
    verifier: r.challengeOfVerifier !== null,
    refresh: r.refreshToken !== null,
    resources: true,
  };
  for (const resources of r.resources ? [true] : [false, true]) {
    const rows = await redeemQuery.execute(db, values, { ...shape, resources });
    const row = rows[0] as (Omit<RedeemedCode, keyof StoredAccessToken> & Partial<StoredAccessToken>) | undefined;
    // The access token is stored whenever the code is redeemed (same statement), so its columns are never null then.
    if (row) return { row: resources ? (row as RedeemedCode) : Object.assign(row, plainStoredAccessToken(r.accessToken, row.scope)) };
  }
  const key = sql<boolean>`authorization_codes.code_hash = ${r.codeHash}`;
  return { refused: await firstFailedCondition(db, { table: 'authorization_codes', key }, CODE_CONDITIONS, values, shape) };
}

export function findCode(db: Db, codeHash: string): Promise<AuthorizationCodeRow | undefined> {
  return db.selectFrom('authorization_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
}

/**
 * RFC 6749 4.1.2: a replayed code revokes every token issued from it: its access token, and the refresh token
 * family issued with it together with every access token of that family. Returns how many access tokens were revoked.
 */
export async function revokeTokensFromCode(db: Db, codeHash: string, now: Date): Promise<number> {
  const result = await db
    .with('families', (qb) =>
      qb
        .selectFrom('access_tokens')
        .select('refresh_family_id')
        .where('code_hash', '=', codeHash)
        .where('refresh_family_id', 'is not', null),
    )
    .with('refresh', (qb) =>
      qb
        .updateTable('refresh_tokens')
        .set({ revoked_at: now })
        .where('family_id', 'in', (eb) =>
          eb.selectFrom('families').select('families.refresh_family_id').$narrowType<{ refresh_family_id: string }>(),
        )
        .where('revoked_at', 'is', null)
        .returning('token_hash'),
    )
    .updateTable('access_tokens')
    .set({ revoked_at: now })
    .where((eb) =>
      eb.or([
        eb('code_hash', '=', codeHash),
        eb('refresh_family_id', 'in', eb.selectFrom('families').select('families.refresh_family_id')),
      ]),
    )
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

function codeValues(code: NewCode, userId: string, authTime: Date, sid: string) {
  return {
    code_hash: code.codeHash,
    client_id: code.clientId,
    user_id: userId,
    redirect_uri: code.redirectUri,
    redirect_uri_in_request: code.redirectUriInRequest,
    scope: code.scope,
    nonce: code.nonce,
    code_challenge: code.codeChallenge,
    auth_time: authTime,
    issued_at: code.issuedAt,
    expires_at: code.expiresAt,
    sid,
    resources: code.resources,
    claims: code.claims,
    dpop_jkt: code.dpopJkt,
    organization_id: code.organizationId ?? null,
  };
}
