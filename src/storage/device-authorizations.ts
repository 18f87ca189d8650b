// Repository for device authorization requests (RFC 8628): requested by a device, bound to the browser that typed
// the user code, decided by the user, and redeemed at most once by the device's polling, each step one statement.
import { sql } from 'kysely';
import { clientUnchanged } from './clients.js';
import {
  accessTokenTargetColumns,
  storedAccessTokenColumns,
  audienceOf,
  targetIssuable,
  type AccessTokenTargetValues,
  type StoredAccessToken,
} from './access-token-target.js';
import type { Db } from './database.js';
import { reusableQuery } from './hot-path/reusable-query.js';
import type { DeviceAuthorizationRow } from './schema.js';
import { clientAdmitsUser } from './groups.js';
import { REFRESH_TOKEN_COLUMNS } from './refresh-tokens.js';
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
  refreshToken: { tokenHash: string; familyId: string; expiresAt: Date; onlyWithScope: string; jkt: string | null } | null;
}

/**
 * The polled row, as the poll left it. `issued_access_token_hash` equals the poll's access token digest exactly
 * when this poll redeemed it; `last_poll_too_fast` says whether this poll came too soon.
 */
export type PolledDeviceAuthorization = DeviceAuthorizationRow & { refresh_family_id: string | null } & Partial<StoredAccessToken> &
  Nullable<UserClaimColumns>;

type Nullable<T> = { [K in keyof T]: T[K] | null };

type PollValues = AccessTokenTargetValues & {
  deviceCodeHash: string;
  clientId: string;
  clientRevision: number;
  now: Date;
  refreshTokenHash: string | null;
  refreshFamilyId: string | null;
  refreshExpiresAt: Date | null;
  refreshOnlyWithScope: string | null;
  refreshJkt: string | null;
};

const pollQuery = reusableQuery((db: Db, v: PollValues, shape: { refresh: boolean }) => {
  const now = sql<Date>`${v.now}::timestamptz`;
  // Every column named in a SET expression is the row as it was before this poll.
  const tooFast = sql<boolean>`(device_authorizations.status = 'pending'
    AND device_authorizations.last_polled_at IS NOT NULL
    AND device_authorizations.last_polled_at > ${now} - device_authorizations.interval_seconds * interval '1 second')`;
  const redeemed = sql<boolean>`(device_authorizations.status = 'approved')`;
  // The resources the request named (RFC 8707 2.1); none: the client's default resource, when it has one.
  const audience = audienceOf(v, sql<string[]>`device_authorizations.resources`);
  const issuedHash = sql<string>`(CASE WHEN (SELECT rs_f.token_format FROM resource_servers rs_f WHERE rs_f.identifier = ${audience}) = 'jwt' THEN ${v.atJwtHash}::text ELSE ${v.atOpaqueHash}::text END)`;
  return db
    .with('polled', (qb) =>
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
        .where('device_authorizations.client_id', '=', v.clientId)
        .where('device_authorizations.status', 'in', ['pending', 'approved'])
        .where('device_authorizations.consumed_at', 'is', null)
        .where('device_authorizations.expires_at', '>', now)
        // A user disabled after approving gets no tokens from it. Said as "no disabled user" rather than "no user, or
        // an enabled one": an EXISTS under OR may be planned as a hashed subplan that reads every user.
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('users')
                .select('users.id')
                .whereRef('users.id', '=', 'device_authorizations.user_id')
                .where('users.disabled_at', 'is not', null),
            ),
          ),
        )
        .where((eb) => clientUnchanged(eb as never, v.clientId, v.clientRevision))
        .where(targetIssuable(v, sql<string[]>`device_authorizations.resources`))
        .returningAll(),
    )
    .with('issued_refresh', (qb) =>
      qb
        .insertInto('refresh_tokens')
        .columns(REFRESH_TOKEN_COLUMNS)
        .expression((eb) =>
          eb
            .selectFrom('polled')
            .select([
              eb.cast(eb.val(v.refreshTokenHash), 'text').as('token_hash'),
              eb.cast(eb.val(v.refreshFamilyId), 'uuid').as('family_id'),
              'polled.client_id',
              sql<string>`polled.user_id`.as('user_id'),
              'polled.scope',
              sql<Date>`polled.auth_time`.as('auth_time'),
              now.as('issued_at'),
              eb.cast(eb.val(v.refreshExpiresAt), 'timestamptz').as('expires_at'),
              'polled.sid',
              'polled.amr',
              'polled.acr',
              // A device authorization keeps the resources it named, and no claims request.
              'polled.resources',
              sql<string | null>`null::text`.as('claims'),
              eb.cast(eb.val(v.refreshJkt), 'text').as('jkt'),
            ])
            .where(sql<boolean>`polled.issued_access_token_hash IN (${v.atOpaqueHash}::text, ${v.atJwtHash}::text)`)
            .where(shape.refresh ? sql<boolean>`${v.refreshOnlyWithScope} = any(string_to_array(polled.scope, ' '))` : sql.lit(false)),
        )
        .returning('family_id'),
    )
    .with('issued', (qb) =>
      qb
        .insertInto('access_tokens')
        .columns(['token_hash', 'audience', 'scope', 'expires_at', 'jkt', 'client_id', 'user_id', 'issued_at', 'refresh_family_id'])
        .expression((eb) => {
          const target = accessTokenTargetColumns(v, sql<string>`polled.scope`);
          return eb
            .selectFrom('polled')
            .leftJoin('resource_servers as rs', (join) =>
              join.on(sql<boolean>`rs.identifier = ${audienceOf(v, sql<string[]>`polled.resources`)}`),
            )
            .select([
              target.token_hash,
              target.audience,
              target.scope,
              target.expires_at,
              target.jkt,
              'polled.client_id',
              'polled.user_id',
              now.as('issued_at'),
              eb.selectFrom('issued_refresh').select('issued_refresh.family_id').as('refresh_family_id'),
            ])
            .where(sql<boolean>`polled.issued_access_token_hash IN (${v.atOpaqueHash}::text, ${v.atJwtHash}::text)`);
        })
        .returning(['token_hash', 'audience', 'scope', 'expires_at']),
    )
    .selectFrom('polled')
    .leftJoin('users', 'users.id', 'polled.user_id')
    .selectAll('polled')
    .select((eb) => [
      eb.selectFrom('issued_refresh').select('issued_refresh.family_id').as('refresh_family_id'),
      // Null while the request is pending: `issued` stored nothing.
      ...storedAccessTokenColumns(true, 'issued'),
    ])
    .select(USER_CLAIM_COLUMNS)
    .select(userLocalGroupsColumn('polled.scope', 'polled.user_id'));
});

/**
 * The polling hot path in one round trip. For this client's (still at `clientRevision`) unexpired, unused request
 * that is pending or approved: records the poll, raising the interval by 5 seconds when it came too soon; and
 * when approved, marks it used and stores the access token (and the refresh token, when one is due) in the same
 * statement. Returns nothing when there is no such request (the caller asks why). Concurrent polls serialise on
 * the row: at most one redeems it, and each sees the poll before it. The approving user's claim columns come along
 * for the ID token (null while nobody approved).
 */
export async function pollDeviceAuthorization(db: Db, p: Poll): Promise<PolledDeviceAuthorization | undefined> {
  const refresh = p.refreshToken;
  const rows = await pollQuery.execute(
    db,
    {
      deviceCodeHash: p.deviceCodeHash,
      clientId: p.clientId,
      clientRevision: p.clientRevision,
      now: p.now,
      ...p.accessToken,
      atIssuedAt: p.now,
      refreshTokenHash: refresh?.tokenHash ?? null,
      refreshFamilyId: refresh?.familyId ?? null,
      refreshExpiresAt: refresh?.expiresAt ?? null,
      refreshOnlyWithScope: refresh?.onlyWithScope ?? null,
      refreshJkt: refresh?.jkt ?? null,
    },
    { refresh: refresh !== null },
  );
  return rows[0] as PolledDeviceAuthorization | undefined;
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
