// The statements that fill a database the size of a real deployment (issue 21), each one INSERT … SELECT over
// generate_series inside PostgreSQL, and the distributions they draw (stated in docs/benchmarks-history.md, "A database
// the size of a real deployment"). Every value derives from the row's number through md5, so that a fill is the
// same every time, and every foreign key points at a row an earlier statement made.
import { sql, type RawBuilder } from 'kysely';

/** Rows per table at scale 1. */
export const LARGE_COUNTS = {
  users: 1_000_000,
  clients: 10_000,
  devices: 2_000_000,
  sessions: 1_000_000,
  authorization_codes: 200_000,
  access_tokens: 10_000_000,
  refresh_tokens: 5_000_000,
  sign_in_attempts: 20_000_000,
} as const;

export type PopulatedCounts = { -readonly [K in keyof typeof LARGE_COUNTS]: number };

/** Refresh tokens come in families of this many: one login, then rotations (the last one live unless revoked). */
export const REFRESH_FAMILY_SIZE = 5;

/** The counts at `scale`; at least ten clients, so that every tenth (the client_credentials ones) exists. */
export function countsAt(scale: number): PopulatedCounts {
  const at = (n: number) => Math.max(1, Math.round(n * scale));
  return {
    users: at(LARGE_COUNTS.users),
    clients: Math.max(10, at(LARGE_COUNTS.clients)),
    devices: at(LARGE_COUNTS.devices),
    sessions: at(LARGE_COUNTS.sessions),
    authorization_codes: at(LARGE_COUNTS.authorization_codes),
    access_tokens: at(LARGE_COUNTS.access_tokens),
    refresh_tokens: Math.max(REFRESH_FAMILY_SIZE, at(LARGE_COUNTS.refresh_tokens)),
    sign_in_attempts: at(LARGE_COUNTS.sign_in_attempts),
  };
}

/**
 * Session-local helpers (pg_temp, gone with the connection), inlined by the planner: u(n, seed) a uniform number in
 * [0, 1) hashed from the row's number; d(t) a SHA-256 digest in base64url, as src/domain/secrets.ts stores codes,
 * tokens and session ids; k(t) the 27-character HMAC shape of the device keys (src/domain/risk/device-identity.ts).
 */
export const HELPERS: readonly RawBuilder<unknown>[] = [
  sql`CREATE OR REPLACE FUNCTION pg_temp.u(n bigint, seed bigint) RETURNS float8 LANGUAGE sql IMMUTABLE AS
      $$ SELECT (hashint8extended(n, seed) & 281474976710655)::float8 / 281474976710656.0::float8 $$`,
  sql`CREATE OR REPLACE FUNCTION pg_temp.d(t text) RETURNS text LANGUAGE sql IMMUTABLE AS
      $$ SELECT replace(replace(rtrim(encode(sha256(t::bytea), 'base64'), '='), '+', '-'), '/', '_') $$`,
  sql`CREATE OR REPLACE FUNCTION pg_temp.k(t text) RETURNS text LANGUAGE sql IMMUTABLE AS
      $$ SELECT substr(pg_temp.d(t), 1, 27) $$`,
];

export interface FillValues {
  counts: PopulatedCounts;
  /** Every time is before this moment: the fill's "now". */
  now: Date;
  /** One argon2id hash every user shares (and every confidential client, as its secret). */
  passwordHash: string;
}

export interface FillStatement {
  table: string;
  statement: RawBuilder<unknown>;
}

/**
 * Temporary tables the fill reads (gone with the connection): each device's keys (its cookie's digest, its
 * fingerprint, one of the networks, and its key without a cookie) and each user's login key, so that a sign-in
 * attempt takes them from its device and user instead of hashing them again.
 */
export function keyStatements(v: FillValues): RawBuilder<unknown>[] {
  const { users: U, devices: D } = v.counts;
  // 49,999 networks at scale 1 (some 40 devices each), fewer in a small fill.
  const W = Math.min(49_999, Math.max(7, Math.round(D / 40)));
  return [
    sql`CREATE TEMP TABLE populate_fingerprints AS
        SELECT i, pg_temp.k('coarse:' || i % 40) || '.' || pg_temp.k('fine:' || i) AS fingerprint FROM generate_series(0, 399) i`,
    sql`CREATE TEMP TABLE populate_networks AS SELECT i, pg_temp.k('network:' || i) AS network_key FROM generate_series(0, ${W - 1}) i`,
    sql`CREATE TEMP TABLE populate_devices AS
        SELECT n AS i, pg_temp.d('cookie:' || n) AS cookie_hash, f.fingerprint, w.network_key, 'f:' || pg_temp.k('device:' || n) AS device_key
        FROM generate_series(1, ${D}) n JOIN populate_fingerprints f ON f.i = n % 400 JOIN populate_networks w ON w.i = n % ${W}`,
    sql`ALTER TABLE populate_devices ADD PRIMARY KEY (i)`,
    sql`CREATE TEMP TABLE populate_logins AS SELECT n AS i, pg_temp.d('login:user-' || n) AS login_key FROM generate_series(1, ${U}) n`,
    sql`ALTER TABLE populate_logins ADD PRIMARY KEY (i)`,
    sql`ANALYZE populate_devices`,
    sql`ANALYZE populate_logins`,
  ];
}

/** Drops what HELPERS and keyStatements made: a kept connection (a test's reused PGlite) is left as it was. */
export const CLEANUP: readonly RawBuilder<unknown>[] = [
  sql`DROP TABLE IF EXISTS pg_temp.populate_fingerprints, pg_temp.populate_networks, pg_temp.populate_devices, pg_temp.populate_logins`,
  sql`DROP FUNCTION IF EXISTS pg_temp.k(text), pg_temp.d(text), pg_temp.u(bigint, bigint)`,
];

/** The fill, in foreign-key order. */
export function fillStatements(v: FillValues): FillStatement[] {
  const { users: U, clients: C, devices: D, sessions: S, authorization_codes: K, access_tokens: A, refresh_tokens: R } = v.counts;
  const F = Math.floor(R / REFRESH_FAMILY_SIZE);
  const now = sql`${v.now.toISOString()}::timestamptz`;
  const u = (n: RawBuilder<unknown>, seed: number) => sql`pg_temp.u(${n}, ${sql.lit(seed)})`;
  // A session's user: u² leans towards the first users (the busiest 1 % hold some 10 % of the sessions).
  const sessionUser = (m: RawBuilder<unknown>) => sql`(1 + floor(${U} * ${u(m, 10)} ^ 2))::int`;
  // A token's client: u³ leans harder (the busiest 1 % of clients get some 21 % of the tokens).
  const client = (n: RawBuilder<unknown>, seed: number) => sql`'client-' || (1 + floor(${C} * ${u(n, seed)} ^ 3))::int`;
  const userId = (i: RawBuilder<unknown>) => sql`md5('user:' || ${i})::uuid`;
  const n = sql.ref('n');
  const m = sql.ref('m');
  const f = sql.ref('f');
  return [
    {
      table: 'users',
      // One in twenty without an email, one in ten unverified, one in a hundred disabled; created over three years.
      statement: sql`
        INSERT INTO users (id, username, password_hash, email, email_verified, claims, disabled_at, created_at, updated_at, locale)
        SELECT ${userId(n)}, 'user-' || n, ${v.passwordHash},
          CASE WHEN n % 20 <> 0 THEN 'user-' || n || '@example.test' END, n % 10 <> 0,
          jsonb_build_object('name', 'User ' || n, 'given_name', 'User', 'family_name', n::text),
          CASE WHEN n % 100 = 0 THEN ${now} - interval '30 days' * ${u(n, 1)} END, c, c + (${now} - c) * ${u(n, 3)},
          CASE WHEN n % 4 = 0 THEN 'de' END
        FROM (SELECT n, ${now} - interval '1095 days' * ${u(n, 2)} AS c FROM generate_series(1, ${U}) n) s`,
    },
    {
      table: 'clients',
      // Nine in ten confidential (client_secret_basic), one in ten public; every tenth also holds client_credentials.
      statement: sql`
        INSERT INTO clients (client_id, client_secret_hash, client_name, redirect_uris, grant_types, token_endpoint_auth_method, created_at, updated_at)
        SELECT 'client-' || n, CASE WHEN n % 10 = 5 THEN NULL ELSE ${v.passwordHash} END, 'Client ' || n,
          ARRAY['https://client-' || n || '.example/callback'],
          CASE WHEN n % 10 = 0 THEN ARRAY['authorization_code', 'refresh_token', 'client_credentials'] ELSE ARRAY['authorization_code', 'refresh_token'] END,
          CASE WHEN n % 10 = 5 THEN 'none' ELSE 'client_secret_basic' END, c, c + (${now} - c) * ${u(n, 5)}
        FROM (SELECT n, ${now} - interval '730 days' * ${u(n, 4)} AS c FROM generate_series(1, ${C}) n) s`,
    },
    {
      table: 'devices',
      // Device n belongs to user ((n - 1) mod U) + 1: every user has D / U, the first numbered as the user. Seen first
      // over the last year; one in five trusted, one in 33 revoked.
      statement: sql`
        INSERT INTO devices (id, user_id, cookie_hash, fingerprint, network_key, label, first_seen_at, last_seen_at, sign_in_count, trusted, revoked_at)
        SELECT md5('device:' || n)::uuid, ${userId(sql`((n - 1) % ${U} + 1)`)}, cookie_hash, fingerprint, network_key,
          (ARRAY['Firefox on Linux', 'Chrome on Windows', 'Safari on iOS', 'Chrome on Android', 'Edge on Windows'])[1 + n % 5],
          first, first + (${now} - first) * ${u(n, 21)}, 1 + floor(50 * ${u(n, 22)})::int, n % 5 = 0,
          CASE WHEN n % 33 = 0 THEN ${now} - interval '10 days' * ${u(n, 23)} END
        FROM (SELECT p.i AS n, p.cookie_hash, p.fingerprint, p.network_key, ${now} - interval '365 days' * ${u(sql.ref('p.i'), 20)} AS first
              FROM populate_devices p) s`,
    },
    {
      table: 'user_networks',
      statement: sql`
        INSERT INTO user_networks (user_id, network_key, first_seen_at, last_seen_at)
        SELECT user_id, network_key, min(first_seen_at), max(last_seen_at) FROM devices GROUP BY user_id, network_key`,
    },
    {
      table: 'sessions',
      // A day's lifetime (SESSION_TTL_SECONDS) over the last week: some six in seven expired; one in twenty revoked,
      // one in twenty with a second factor. On its user's first device.
      statement: sql`
        INSERT INTO sessions (id_hash, user_id, auth_time, created_at, expires_at, revoked_at, sid, device_id, amr)
        SELECT pg_temp.d('session:' || n), ${userId(sql`usr`)}, c, c, c + interval '1 day',
          CASE WHEN n % 20 = 0 AND c + interval '2 hours' < ${now} THEN c + interval '2 hours' END,
          md5('sid:' || n)::uuid::text, CASE WHEN usr <= ${D} THEN md5('device:' || usr)::uuid END,
          CASE WHEN n % 20 = 1 THEN ARRAY['pwd', 'otp', 'mfa'] ELSE ARRAY['pwd'] END
        FROM (SELECT n, ${sessionUser(n)} AS usr, ${now} - interval '7 days' * ${u(n, 30)} AS c FROM generate_series(1, ${S}) n) s`,
    },
    {
      table: 'session_clients',
      // Each session signed in to one client.
      statement: sql`
        INSERT INTO session_clients (sid, client_id, created_at)
        SELECT md5('sid:' || m)::uuid::text, ${client(m, 31)}, ${now} - interval '7 days' * ${u(m, 30)} FROM generate_series(1, ${S}) m`,
    },
    {
      table: 'consents',
      // One per user and client a session of the user signed in to.
      statement: sql`
        INSERT INTO consents (user_id, client_id, scopes, created_at, updated_at)
        SELECT s.user_id, c.client_id, ARRAY['openid', 'profile', 'email', 'offline_access'], min(c.created_at), max(c.created_at)
        FROM session_clients c JOIN sessions s ON s.sid = c.sid GROUP BY s.user_id, c.client_id`,
    },
    {
      table: 'authorization_codes',
      // Sixty seconds' lifetime (CODE_TTL_SECONDS) over the last week, from a session; nine in ten redeemed.
      statement: sql`
        INSERT INTO authorization_codes (code_hash, client_id, user_id, redirect_uri, redirect_uri_in_request, scope, nonce, code_challenge,
          auth_time, issued_at, expires_at, consumed_at, sid, amr)
        SELECT pg_temp.d('code:' || n), cl, ${userId(sessionUser(m))}, 'https://' || cl || '.example/callback', true, 'openid profile email',
          pg_temp.k('nonce:' || n), pg_temp.d('challenge:' || n), i, i, i + interval '60 seconds',
          CASE WHEN n % 10 <> 0 THEN i + interval '1 second' END, md5('sid:' || m)::uuid::text, ARRAY['pwd']
        FROM (SELECT n, (1 + floor(${S} * ${u(n, 40)}))::int AS m, ${client(n, 41)} AS cl, ${now} - interval '7 days' * ${u(n, 42)} AS i
              FROM generate_series(1, ${K}) n) s`,
    },
    {
      table: 'access_tokens',
      // An hour's lifetime (ACCESS_TOKEN_TTL_SECONDS) over the last week: all but some 0.6 % expired; one in fifty
      // revoked. Nine in ten for a session's user (every other one from a refresh family), one in ten from
      // client_credentials, for a client that holds that grant.
      statement: sql`
        INSERT INTO access_tokens (token_hash, client_id, user_id, scope, issued_at, expires_at, revoked_at, refresh_family_id)
        SELECT pg_temp.d('access:' || n),
          CASE WHEN n % 10 = 0 THEN 'client-' || (10 * (1 + floor(${Math.floor(C / 10)} * ${u(n, 51)} ^ 3)))::int ELSE ${client(n, 51)} END,
          CASE WHEN n % 10 <> 0 THEN ${userId(sessionUser(sql`(1 + floor(${S} * ${u(n, 52)}))::int`))} END,
          CASE WHEN n % 10 = 0 THEN 'api.read' ELSE 'openid profile email' END, i, i + interval '1 hour',
          CASE WHEN n % 50 = 0 AND i + interval '10 minutes' < ${now} THEN i + interval '10 minutes' END,
          CASE WHEN n % 2 = 1 THEN md5('family:' || (1 + floor(${F} * ${u(n, 53)}))::int)::uuid END
        FROM (SELECT n, ${now} - interval '7 days' * ${u(n, 50)} AS i FROM generate_series(1, ${A}) n) s`,
    },
    {
      table: 'refresh_tokens',
      // Families of five over the last four weeks: a sign-in, then a rotation every few hours (up to twelve);
      // fourteen days' lifetime (REFRESH_TOKEN_TTL_SECONDS) from each, so some half expired; four in five rotated;
      // one family in ten revoked. Family f belongs to session ((f - 1) mod S) + 1 and its user.
      statement: sql`
        INSERT INTO refresh_tokens (token_hash, family_id, client_id, user_id, scope, auth_time, issued_at, expires_at, rotated_at, revoked_at, sid, amr)
        SELECT pg_temp.d('refresh:' || n), md5('family:' || f)::uuid, ${client(f, 62)}, ${userId(sessionUser(m))},
          'openid profile email offline_access', s0, s0 + gap * k, s0 + gap * k + interval '14 days',
          CASE WHEN k < ${sql.lit(REFRESH_FAMILY_SIZE - 1)} THEN s0 + gap * (k + 1) END,
          CASE WHEN f % 10 = 0 THEN s0 + gap * ${sql.lit(REFRESH_FAMILY_SIZE - 1)} + interval '1 hour' END,
          md5('sid:' || m)::uuid::text, ARRAY['pwd']
        FROM (SELECT n, f, k, m, gap, ${now} - interval '1 hour' - gap * ${sql.lit(REFRESH_FAMILY_SIZE - 1)} - interval '28 days' * ${u(f, 61)} AS s0
              FROM (SELECT n, f, k, (f - 1) % ${S} + 1 AS m, interval '12 hours' * ${u(f, 60)} AS gap
                    FROM (SELECT n, (n - 1) / ${sql.lit(REFRESH_FAMILY_SIZE)} + 1 AS f, (n - 1) % ${sql.lit(REFRESH_FAMILY_SIZE)} AS k
                          FROM generate_series(1, ${F * REFRESH_FAMILY_SIZE}) n) g) h) s`,
    },
    {
      table: 'sign_in_attempts',
      // Over the last seven days (the longest RISK_STUFFING_WINDOW_SECONDS allows), evenly. Four in five name a
      // user (leaning to the busy ones as sessions do), one in five a login nobody has (stuffing); seven in ten
      // come with a device cookie; six in ten succeed, and one failure in twenty is excused.
      statement: sql`
        INSERT INTO sign_in_attempts (at, login_key, device_key, fingerprint_key, network_key, succeeded, excused)
        SELECT ${now} - interval '7 days' * ${u(n, 72)},
          CASE WHEN n % 5 = 0 THEN pg_temp.d('login:nobody-' || n) ELSE l.login_key END,
          CASE WHEN n % 10 < 7 THEN 'c:' || p.cookie_hash ELSE p.device_key END, p.fingerprint, p.network_key,
          n % 10 < 6, n % 10 >= 6 AND n % 20 = 19
        FROM generate_series(1, ${v.counts.sign_in_attempts}) n
          JOIN populate_devices p ON p.i = (1 + floor(${D} * ${u(n, 70)}))::int
          JOIN populate_logins l ON l.i = (1 + floor(${U} * ${u(n, 71)} ^ 2))::int`,
    },
  ];
}
