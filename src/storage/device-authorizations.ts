// Repository for device authorization requests (RFC 8628): requested by a device, bound to the browser that typed
// the user code, decided by the user, and redeemed at most once by the device's polling, each step one statement.
import { expressionBuilder, sql } from 'kysely';
import { clientUnchanged } from './clients.js';
import {
  storedAccessTokenColumns,
  audienceOf,
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
import type { Db } from './database.js';
import { reusableQuery } from './hot-path/reusable-query.js';
import type { Database, DeviceAuthorizationRow } from './schema.js';
import { clientAdmitsUser } from './groups.js';
import { USER_CLAIM_COLUMNS, userLocalGroupsColumn, type UserClaimColumns } from './user-claim-columns.js';

export interface NewDeviceAuthorization {
  deviceCodeHash: string;
  userCodeHash: string;
  clientId: string;
  scope: string;
  deviceLabel: string;
  requestedAt: Date;
  expiresAt: Date;
  intervalSeconds: number;
  /** RFC 8707 2.1: the resources the request named. */
  resources: string[];
}

/** Inserts the request; false (and nothing written) when its user code digest is already taken. */
export async function insertDeviceAuthorization(db: Db, d: NewDeviceAuthorization): Promise<boolean> {
  const row = await db
    .insertInto('device_authorizations')
    .values({
      device_code_hash: d.deviceCodeHash,
      user_code_hash: d.userCodeHash,
      client_id: d.clientId,
      scope: d.scope,
      device_label: d.deviceLabel,
      requested_at: d.requestedAt,
      expires_at: d.expiresAt,
      interval_seconds: d.intervalSeconds,
      resources: d.resources,
    })
    .onConflict((oc) => oc.column('user_code_hash').doNothing())
    .returning('device_code_hash')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Binds the pending, unexpired request with this user code to one browser (the digest of its cookie), replacing
 * any earlier binding: the browser that typed the code last is the one that may decide. False when there is no
 * such request.
 */
export async function bindByUserCode(db: Db, b: { userCodeHash: string; bindingHash: string; now: Date }): Promise<boolean> {
  const row = await db
    .updateTable('device_authorizations')
    .set({ binding_hash: b.bindingHash })
    .where('user_code_hash', '=', b.userCodeHash)
    .where('status', '=', 'pending')
    .where('expires_at', '>', b.now)
    .returning('device_code_hash')
    .executeTakeFirst();
  return row !== undefined;
}

export interface BoundDeviceAuthorization {
  client_id: string;
  /** RFC 8707 2.1: the resources the request named. */
  resources: string[];
  client_name: string | null;
  self_registered: boolean;
  scope: string;
  device_label: string;
  requested_at: Date;
  expires_at: Date;
}

/** The pending, unexpired request bound to this browser, with its client's name and whether it registered itself. */
export function findBoundDeviceAuthorization(db: Db, bindingHash: string, now: Date): Promise<BoundDeviceAuthorization | undefined> {
  return db
    .selectFrom('device_authorizations as d')
    .innerJoin('clients as c', 'c.client_id', 'd.client_id')
    .select([
      'd.client_id',
      'c.client_name',
      'c.self_registered',
      'd.scope',
      'd.device_label',
      'd.requested_at',
      'd.expires_at',
      'd.resources',
    ])
    .where('d.binding_hash', '=', bindingHash)
    .where('d.status', '=', 'pending')
    .where('d.expires_at', '>', now)
    .executeTakeFirst();
}

export interface Decision {
  bindingHash: string;
  now: Date;
  approve: boolean;
  /** The signed-in session that decides: its user, sid, sign-in time, amr and acr go to the ID token. */
  session: { userId: string; sid: string; authTime: Date; amr: string[]; acr: string | null };
}

/**
 * Records the user's decision on the pending, unexpired request bound to this browser, and unbinds it; an
 * approval also records that the session signed in to the client (for Back-Channel Logout), in the same
 * statement. An approval for a client limited to groups that does not admit the user (storage/groups.ts
 * clientAdmitsUser) is recorded as a denial. Returns the client id and the status recorded, or undefined when there
 * was no such request (expired, decided meanwhile).
 */
export async function decideDeviceAuthorization(
  db: Db,
  d: Decision,
): Promise<{ clientId: string; status: 'approved' | 'denied' } | undefined> {
  const userId = sql<string>`${d.session.userId}::uuid`;
  const admitted = sql<boolean>`(NOT (SELECT c.group_restricted FROM clients c WHERE c.client_id = device_authorizations.client_id)
    OR ${clientAdmitsUser(sql.ref('device_authorizations.client_id'), userId, sql`(SELECT u.claims FROM users u WHERE u.id = ${userId})`)})`;
  const rows = await db
    .with('decided', (qb) =>
      qb
        .updateTable('device_authorizations')
        .set({
          status: d.approve ? sql<'approved' | 'denied'>`CASE WHEN ${admitted} THEN 'approved' ELSE 'denied' END` : 'denied',
          user_id: d.session.userId,
          sid: d.session.sid,
          auth_time: d.session.authTime,
          amr: d.session.amr,
          acr: d.session.acr,
          decided_at: d.now,
          binding_hash: null,
        })
        .where('binding_hash', '=', d.bindingHash)
        .where('status', '=', 'pending')
        .where('expires_at', '>', d.now)
        .returning(['client_id', 'sid', 'status']),
    )
    .with('seen', (qb) =>
      qb
        .insertInto('session_clients')
        .columns(['sid', 'client_id', 'created_at'])
        .expression((eb) =>
          eb
            .selectFrom('decided')
            .select([sql<string>`decided.sid`.as('sid'), 'decided.client_id', eb.cast(eb.val(d.now), 'timestamptz').as('created_at')])
            .where('decided.status', '=', 'approved'),
        )
        .onConflict((oc) => oc.doNothing())
        .returning('session_clients.sid'),
    )
    .selectFrom('decided')
    .select(['decided.client_id', 'decided.status'])
    .execute();
  const row = rows[0];
  return row && { clientId: row.client_id, status: row.status === 'approved' ? 'approved' : 'denied' };
}

export interface Poll {
  deviceCodeHash: string;
  clientId: string;
  /** The revision of the client as authenticated: nothing is polled if the client changed since. */
  clientRevision: number;
  now: Date;
  /** Where the access token goes and how it is stored (src/storage/access-token-target.ts); never a named resource here. */
  accessToken: Omit<AccessTokenTargetValues, 'atIssuedAt'>;
  /** A refresh token to store when the granted scope holds `onlyWithScope`; null when the client may not have one. */
  refreshToken: NewGrantRefreshToken | null;
}

/**
 * The polled row, as the poll left it. `issued_access_token_hash` equals the poll's access token digest exactly
 * when this poll redeemed it; `last_poll_too_fast` says whether this poll came too soon.
 */
export type PolledDeviceAuthorization = DeviceAuthorizationRow & { refresh_family_id: string | null } & Partial<StoredAccessToken> &
  Nullable<UserClaimColumns>;

type Nullable<T> = { [K in keyof T]: T[K] | null };

type PollValues = IssuingValues & {
  deviceCodeHash: string;
  clientId: string;
  clientRevision: number;
};

type PollShape = { refresh: boolean; resources: boolean };

/** What a device request must be for a poll to be answered from it, in the order a refusal names the first that fails. */
export const DEVICE_CONDITIONS = grantConditions<PollValues, PollShape>()([
  // RFC 6749 5.2 invalid_grant: the grant "was issued to another client"; that client's request is left alone.
  { name: 'client', check: (v) => sql<boolean>`device_authorizations.client_id = ${v.clientId}` },
  // A device code gives tokens once; presented again, it is treated like a replayed authorization code (RFC 6749 4.1.2).
  { name: 'unused', check: () => sql<boolean>`device_authorizations.consumed_at is null` },
  // RFC 8628 3.5 access_denied: "The authorization request was denied."
  { name: 'undenied', check: () => sql<boolean>`device_authorizations.status in ('pending', 'approved')` },
  // RFC 8628 3.5 expired_token: "The device_code has expired, and the device authorization session has concluded."
  { name: 'unexpired', check: (v) => sql<boolean>`device_authorizations.expires_at > ${v.now}::timestamptz` },
  ...targetConditions<PollValues, PollShape>(sql`device_authorizations.resources`),
  // A user disabled after approving gets no tokens from it. Said as "no disabled user" rather than "no user, or an
  // enabled one": an EXISTS under OR may be planned as a hashed subplan that reads every user.
  {
    name: 'user_enabled',
    check: () =>
      sql<boolean>`not exists (select users.id from users where users.id = device_authorizations.user_id and users.disabled_at is not null)`,
  },
  { name: 'client_unchanged', check: (v) => clientUnchanged(expressionBuilder<Database, never>(), v.clientId, v.clientRevision) },
]);

/** Why a poll found no request to answer from: the first of DEVICE_CONDITIONS the request failed, or 'unknown'. */
export type DeviceRefusal = ConditionName<typeof DEVICE_CONDITIONS> | 'unknown';

const pollQuery = reusableQuery((db: Db, v: PollValues, shape: PollShape) => {
  const now = sql<Date>`${v.now}::timestamptz`;
  // Every column named in a SET expression is the row as it was before this poll.
  const tooFast = sql<boolean>`(device_authorizations.status = 'pending'
    AND device_authorizations.last_polled_at IS NOT NULL
    AND device_authorizations.last_polled_at > ${now} - device_authorizations.interval_seconds * interval '1 second')`;
  const redeemed = sql<boolean>`(device_authorizations.status = 'approved')`;
  // The resources the request named (RFC 8707 2.1); none: the client's default resource, when it has one.
  const audience = audienceOf(v, sql<string[]>`device_authorizations.resources`);
  const issuedHash = sql<string>`(CASE WHEN (SELECT rs_f.token_format FROM resource_servers rs_f WHERE rs_f.identifier = ${audience}) = 'jwt' THEN ${v.atJwtHash}::text ELSE ${v.atOpaqueHash}::text END)`;
  return withIssuedTokens(
    db.with('taken', (qb) =>
      qb
        .updateTable('device_authorizations')
        .set({
          last_polled_at: now,
          last_poll_too_fast: tooFast,
          interval_seconds: sql<number>`CASE WHEN ${tooFast} THEN device_authorizations.interval_seconds + 5 ELSE device_authorizations.interval_seconds END`,
          consumed_at: sql<Date | null>`CASE WHEN ${redeemed} THEN ${now} END`,
          issued_access_token_hash: sql<string | null>`CASE WHEN ${redeemed} THEN ${issuedHash} END`,
        })
        .where('device_authorizations.device_code_hash', '=', v.deviceCodeHash)
        .where(allHold(DEVICE_CONDITIONS, v, shape))
        .returningAll(),
    ),
    v,
    {
      refresh: shape.refresh ? 'new' : 'none',
      resources: true,
      scope: sql<string>`taken.scope`,
      codeHash: false,
      // A device authorization has no claims request, and is for no organization.
      claims: false,
      organization: false,
      // Tokens only from the poll that redeemed an approved request.
      onlyWhen: sql<boolean>`taken.issued_access_token_hash IN (${v.atOpaqueHash}::text, ${v.atJwtHash}::text)`,
    },
  )
    .selectFrom('taken')
    .leftJoin('users', 'users.id', 'taken.user_id')
    .selectAll('taken')
    .select((eb) => [
      eb.selectFrom('issued_refresh').select('issued_refresh.family_id').as('refresh_family_id'),
      // Null while the request is pending: `issued` stored nothing.
      ...storedAccessTokenColumns(true, 'issued'),
    ])
    .select(USER_CLAIM_COLUMNS)
    .select(userLocalGroupsColumn('taken.scope', 'taken.user_id'));
});

/**
 * The polling hot path in one round trip. For a request that meets every condition of DEVICE_CONDITIONS (this
 * client's, still at `clientRevision`; unused, pending or approved, unexpired): records the poll, raising the interval
 * by 5 seconds when it came too soon; and when approved, marks it used and stores the access token (and the refresh
 * token, when one is due) in the same statement. Otherwise returns the first condition the request failed. Concurrent
 * polls serialise on the row: at most one redeems it, and each sees the poll before it. The approving user's claim
 * columns come along for the ID token (null while nobody approved).
 */
export async function pollDeviceAuthorization(db: Db, p: Poll): Promise<Taken<PolledDeviceAuthorization, DeviceRefusal>> {
  const values: PollValues = Object.assign(newGrantIssuing(p.now, p.accessToken, p.refreshToken), {
    deviceCodeHash: p.deviceCodeHash,
    clientId: p.clientId,
    clientRevision: p.clientRevision,
  });
  const shape = { refresh: p.refreshToken !== null, resources: true };
  const [row] = await pollQuery.execute(db, values, shape);
  if (row) return { row: row as PolledDeviceAuthorization };
  const key = sql<boolean>`device_authorizations.device_code_hash = ${p.deviceCodeHash}`;
  return { refused: await firstFailedCondition(db, { table: 'device_authorizations', key }, DEVICE_CONDITIONS, values, shape) };
}

export function findDeviceAuthorization(db: Db, deviceCodeHash: string): Promise<DeviceAuthorizationRow | undefined> {
  return db.selectFrom('device_authorizations').selectAll().where('device_code_hash', '=', deviceCodeHash).executeTakeFirst();
}

/**
 * A replayed device code revokes what it was redeemed for: its access token, and the refresh token family issued
 * with it together with every access token of that family, in one statement. Returns how many access tokens went.
 */
export async function revokeTokensFromDeviceCode(db: Db, deviceCodeHash: string, now: Date): Promise<number> {
  const result = await db
    .with('issued', (qb) =>
      qb
        .selectFrom('device_authorizations')
        .select('issued_access_token_hash')
        .where('device_code_hash', '=', deviceCodeHash)
        .where('issued_access_token_hash', 'is not', null),
    )
    .with('families', (qb) =>
      qb
        .selectFrom('access_tokens')
        .select('refresh_family_id')
        .where('token_hash', 'in', (eb) =>
          eb.selectFrom('issued').select('issued.issued_access_token_hash').$narrowType<{ issued_access_token_hash: string }>(),
        )
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
        eb(
          'token_hash',
          'in',
          eb.selectFrom('issued').select('issued.issued_access_token_hash').$narrowType<{ issued_access_token_hash: string }>(),
        ),
        eb('refresh_family_id', 'in', eb.selectFrom('families').select('families.refresh_family_id')),
      ]),
    )
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
