// The purge of expired rows: what goes and what stays per table, batches, two purges at once, and the periodic job.
import { randomBytes, randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import t from 'tap';
import { RESCAN_MS, startPurgeJob } from '../../src/jobs/purge-job.js';
import { openDatabase, type Db } from '../../src/storage/database.js';
import type { Database } from '../../src/storage/schema.js';
import { OUTBOX_RETENTION_SECONDS, PURGE_TARGETS, purgeExpired, readPurgeCursors, savePurgeCursors } from '../../src/storage/purge.js';
import { buildTestApp, FIXTURES } from '../helpers/app.js';
import { seededTestDatabase } from '../helpers/seeded-database.js';

const { database, db, aliceId: userId } = await seededTestDatabase(t);
const CLIENT = FIXTURES.clients[0]!.client_id;
const CONNECTION = 'upstream';
await db
  .insertInto('connections')
  .values({
    id: CONNECTION,
    display_name: 'Upstream',
    kind: 'oidc',
    issuer: 'https://idp.example',
    client_id: 'sso',
    scopes: ['openid'],
    claim_mapping: '{}',
    provisioning: 'create',
    email_domains: [],
    created_at: new Date(),
    updated_at: new Date(),
  })
  .execute();
const HOUR = 3600;
/** Every lifetime an hour, but a one-time code's (5 minutes) and the security events' (a day). */
const RETENTION = {
  accessTokenTtlSeconds: HOUR,
  signInAttemptRetentionSeconds: HOUR,
  oneTimeCodeTtlSeconds: 300,
  passwordResetTtlSeconds: 1800,
  signupTtlSeconds: 3600,
  securityEventRetentionSeconds: 24 * HOUR,
};

const at = (base: Date, seconds: number) => new Date(base.getTime() + seconds * 1000);
const id = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;

/** One row in each purged table expiring at `expiresAt`; returns the keys it used. */
async function insertRows(db: Db, expiresAt: Date, label: string) {
  const issuedAt = at(expiresAt, -60);
  const keys = {
    code: id(`code-${label}`),
    token: id(`at-${label}`),
    refresh: id(`rt-${label}`),
    session: id(`s-${label}`),
    interaction: id(`i-${label}`),
    throttle: id(`account:${label}`),
    device: id(`dc-${label}`),
    reset: id(`pr-${label}`),
  };
  await db
    .insertInto('authorization_codes')
    .values({
      code_hash: keys.code,
      client_id: CLIENT,
      user_id: userId,
      redirect_uri: 'https://app.example/cb',
      redirect_uri_in_request: true,
      scope: 'openid',
      nonce: null,
      code_challenge: null,
      auth_time: issuedAt,
      issued_at: issuedAt,
      expires_at: expiresAt,
      consumed_at: null,
    })
    .execute();
  await db
    .insertInto('access_tokens')
    .values({
      token_hash: keys.token,
      code_hash: keys.code,
      client_id: CLIENT,
      user_id: userId,
      scope: 'openid',
      issued_at: issuedAt,
      expires_at: expiresAt,
      revoked_at: null,
      refresh_family_id: null,
    })
    .execute();
  await db
    .insertInto('refresh_tokens')
    .values({
      token_hash: keys.refresh,
      family_id: randomUUID(),
      client_id: CLIENT,
      user_id: userId,
      scope: 'openid offline_access',
      auth_time: issuedAt,
      issued_at: issuedAt,
      expires_at: expiresAt,
      rotated_at: null,
      revoked_at: null,
    })
    .execute();
  await db
    .insertInto('sessions')
    .values({ id_hash: keys.session, user_id: userId, auth_time: issuedAt, created_at: issuedAt, expires_at: expiresAt })
    .execute();
  await db
    .insertInto('interactions')
    .values({
      id: keys.interaction,
      binding_hash: 'b',
      client_id: CLIENT,
      request: '{}',
      created_at: issuedAt,
      expires_at: expiresAt,
    })
    .execute();
  await db
    .insertInto('sign_in_throttle')
    .values({ key: keys.throttle, failures: 3, locked_until: issuedAt, expires_at: expiresAt })
    .execute();
  await db
    .insertInto('device_authorizations')
    .values({
      device_code_hash: keys.device,
      user_code_hash: id(`uc-${label}`),
      client_id: CLIENT,
      scope: 'openid',
      device_label: 'curl on an unknown system',
      requested_at: issuedAt,
      expires_at: expiresAt,
      interval_seconds: 5,
    })
    .execute();
  await db
    .insertInto('password_resets')
    .values({
      token_digest: keys.reset,
      user_id: userId,
      password_fingerprint: Buffer.alloc(32),
      interaction_id: null,
      created_at: issuedAt,
      expires_at: expiresAt,
    })
    .execute();
  // Kept for signInAttemptRetentionSeconds (an hour here) after it was made: it "expires" with the rows above.
  await db
    .insertInto('sign_in_attempts')
    .values({
      at: at(expiresAt, -HOUR),
      login_key: keys.throttle,
      device_key: 'd',
      fingerprint_key: 'f',
      network_key: 'n',
    })
    .execute();
  await db.insertInto('client_assertion_jtis').values({ client_id: CLIENT, jti_hash: keys.code, expires_at: expiresAt }).execute();
  await db
    .insertInto('pushed_authorization_requests')
    .values({ request_uri_hash: keys.code, client_id: CLIENT, params: JSON.stringify({ client_id: CLIENT }), expires_at: expiresAt })
    .execute();
  await db
    .insertInto('upstream_logins')
    .values({
      state_hash: keys.code,
      browser_hash: 'b',
      connection_id: CONNECTION,
      interaction_id: keys.interaction,
      nonce: 'n',
      verifier_sealed: '{}',
      expires_at: expiresAt,
    })
    .execute();
  await db
    .insertInto('connection_link_proofs')
    .values({
      id_hash: keys.code,
      browser_hash: 'b',
      connection_id: CONNECTION,
      subject: 's',
      user_id: userId,
      interaction_id: keys.interaction,
      expires_at: expiresAt,
    })
    .execute();
  await db.insertInto('saml_assertions').values({ connection_id: CONNECTION, assertion_id: keys.code, expires_at: expiresAt }).execute();
  return keys;
}

async function present(db: Db, keys: Awaited<ReturnType<typeof insertRows>>) {
  const has = async (query: Promise<unknown>) => (await query) !== undefined;
  return {
    authorization_codes: await has(
      db.selectFrom('authorization_codes').select('code_hash').where('code_hash', '=', keys.code).executeTakeFirst(),
    ),
    access_tokens: await has(db.selectFrom('access_tokens').select('token_hash').where('token_hash', '=', keys.token).executeTakeFirst()),
    refresh_tokens: await has(
      db.selectFrom('refresh_tokens').select('token_hash').where('token_hash', '=', keys.refresh).executeTakeFirst(),
    ),
    sessions: await has(db.selectFrom('sessions').select('id_hash').where('id_hash', '=', keys.session).executeTakeFirst()),
    interactions: await has(db.selectFrom('interactions').select('id').where('id', '=', keys.interaction).executeTakeFirst()),
    sign_in_throttle: await has(db.selectFrom('sign_in_throttle').select('key').where('key', '=', keys.throttle).executeTakeFirst()),
    sign_in_attempts: await has(db.selectFrom('sign_in_attempts').select('id').where('login_key', '=', keys.throttle).executeTakeFirst()),
    device_authorizations: await has(
      db.selectFrom('device_authorizations').select('device_code_hash').where('device_code_hash', '=', keys.device).executeTakeFirst(),
    ),
    password_resets: await has(
      db.selectFrom('password_resets').select('token_digest').where('token_digest', '=', keys.reset).executeTakeFirst(),
    ),
    client_assertion_jtis: await has(
      db.selectFrom('client_assertion_jtis').select('jti_hash').where('jti_hash', '=', keys.code).executeTakeFirst(),
    ),
    pushed_authorization_requests: await has(
      db
        .selectFrom('pushed_authorization_requests')
        .select('request_uri_hash')
        .where('request_uri_hash', '=', keys.code)
        .executeTakeFirst(),
    ),
    upstream_logins: await has(
      db.selectFrom('upstream_logins').select('state_hash').where('state_hash', '=', keys.code).executeTakeFirst(),
    ),
    connection_link_proofs: await has(
      db.selectFrom('connection_link_proofs').select('id_hash').where('id_hash', '=', keys.code).executeTakeFirst(),
    ),
    saml_assertions: await has(
      db.selectFrom('saml_assertions').select('assertion_id').where('assertion_id', '=', keys.code).executeTakeFirst(),
    ),
  };
}

async function count(db: Db, table: 'sessions'): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

t.test(
  'the purge list names every table that expires: codes, access and refresh tokens, sessions, interactions, throttle counters, sign-in attempts, device authorizations, challenges (passkey ones too), the outbox, security events',
  async (t) => {
    t.same(PURGE_TARGETS.map((p) => p.table).sort(), [
      'access_tokens',
      'admin_audit_records',
      'admin_idempotency_keys',
      'authorization_codes',
      'client_assertion_jtis',
      'connection_link_proofs',
      'console_sessions',
      'device_authorizations',
      'dpop_proof_jtis',
      'email_changes',
      'interactions',
      'outbox',
      'passkey_challenges',
      'password_resets',
      'pushed_authorization_requests',
      'refresh_tokens',
      'saml_assertions',
      'second_factor_challenges',
      'security_events',
      'sessions',
      'sign_in_attempts',
      'sign_in_throttle',
      'signup_invitations',
      'signups',
      'upstream_logins',
      'webhook_deliveries',
    ]);
  },
);

t.test(
  'expired rows go and unexpired rows stay, in every table; a code stays an access token lifetime past its expiry (RFC 6749 4.1.2)',
  async (t) => {
    const now = new Date(Date.now() + 10 * 24 * HOUR * 1000);
    const live = await insertRows(db, at(now, 60), 'live');
    const justExpired = await insertRows(db, at(now, -10), 'recent');
    const longExpired = await insertRows(db, at(now, -(HOUR + 10)), 'old');

    const deleted = await purgeExpired(db, { now, ...RETENTION });
    t.same(
      await present(db, live),
      {
        authorization_codes: true,
        access_tokens: true,
        refresh_tokens: true,
        sessions: true,
        interactions: true,
        sign_in_throttle: true,
        sign_in_attempts: true,
        device_authorizations: true,
        password_resets: true,
        client_assertion_jtis: true,
        pushed_authorization_requests: true,
        upstream_logins: true,
        connection_link_proofs: true,
        saml_assertions: true,
      },
      'nothing unexpired is touched',
    );
    t.same(
      await present(db, justExpired),
      {
        authorization_codes: true,
        access_tokens: false,
        refresh_tokens: false,
        sessions: false,
        interactions: false,
        sign_in_throttle: false,
        sign_in_attempts: false,
        device_authorizations: true,
        password_resets: false,
        client_assertion_jtis: false,
        pushed_authorization_requests: false,
        upstream_logins: false,
        connection_link_proofs: false,
        saml_assertions: false,
      },
      'a code or device code expired 10 s ago stays, so that its replay is still recognised; everything else expired goes',
    );
    t.same(
      await present(db, longExpired),
      {
        authorization_codes: false,
        access_tokens: false,
        refresh_tokens: false,
        sessions: false,
        interactions: false,
        sign_in_throttle: false,
        sign_in_attempts: false,
        device_authorizations: false,
        password_resets: false,
        client_assertion_jtis: false,
        pushed_authorization_requests: false,
        upstream_logins: false,
        connection_link_proofs: false,
        saml_assertions: false,
      },
      'a code or device code expired more than ACCESS_TOKEN_TTL_SECONDS ago goes too',
    );
    t.ok(
      deleted.authorization_codes! >= 1 && deleted.device_authorizations! >= 1 && deleted.sessions! >= 2 && deleted.sign_in_throttle! >= 2,
      `counts per table: ${JSON.stringify(deleted)}`,
    );
    t.same(
      await purgeExpired(db, { now, ...RETENTION }),
      {
        authorization_codes: 0,
        access_tokens: 0,
        refresh_tokens: 0,
        sessions: 0,
        interactions: 0,
        second_factor_challenges: 0,
        passkey_challenges: 0,
        client_assertion_jtis: 0,
        pushed_authorization_requests: 0,
        upstream_logins: 0,
        connection_link_proofs: 0,
        saml_assertions: 0,
        dpop_proof_jtis: 0,
        sign_in_throttle: 0,
        sign_in_attempts: 0,
        device_authorizations: 0,
        outbox: 0,
        password_resets: 0,
        signups: 0,
        signup_invitations: 0,
        email_changes: 0,
        security_events: 0,
        webhook_deliveries: 0,
        admin_audit_records: 0,
        admin_idempotency_keys: 0,
        console_sessions: 0,
      },
      'a second run finds nothing',
    );
  },
);

t.test(
  'a one-time code leaves the outbox once it can no longer be typed, sent or not; other messages after a day; security events after their retention',
  async (t) => {
    const now = new Date(Date.now() + 30 * 24 * HOUR * 1000);
    const message = async (kind: string, ageSeconds: number, sent: boolean) => {
      const created = at(now, -ageSeconds);
      const row = await db
        .insertInto('outbox')
        .values({
          user_id: userId,
          kind,
          payload: JSON.stringify(kind === 'one-time-code' ? { code: '123456' } : {}),
          created_at: created,
          next_attempt_at: created,
          sent_at: sent ? created : null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    };
    const event = async (ageSeconds: number) =>
      (
        await db
          .insertInto('security_events')
          .values({ type: 'sign_in_allowed', user_id: userId, created_at: at(now, -ageSeconds), details: '{}' })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const ids = {
      freshCode: await message('one-time-code', 60, false),
      staleUnsentCode: await message('one-time-code', 301, false),
      staleSentCode: await message('one-time-code', 301, true),
      recentNotice: await message('new-device', OUTBOX_RETENTION_SECONDS - 60, true),
      oldNotice: await message('new-device', OUTBOX_RETENTION_SECONDS + 60, false),
      liveLink: await message('password-reset', 1800 - 60, false),
      deadLink: await message('password-reset', 1800 + 60, false),
      recentEvent: await event(24 * HOUR - 60),
      oldEvent: await event(24 * HOUR + 60),
    };
    await purgeExpired(db, { ...RETENTION, now });
    const outbox = new Set((await db.selectFrom('outbox').select('id').execute()).map((r) => r.id));
    const events = new Set((await db.selectFrom('security_events').select('id').execute()).map((r) => r.id));
    t.ok(outbox.has(ids.freshCode), 'a code that can still be typed stays');
    t.notOk(outbox.has(ids.staleUnsentCode), 'a code past the second factor lifetime goes even unsent (NOTIFIER=none)');
    t.notOk(outbox.has(ids.staleSentCode), 'and sent');
    t.ok(outbox.has(ids.recentNotice), 'a notice stays for a day');
    t.notOk(outbox.has(ids.oldNotice), 'and goes after it');
    t.ok(outbox.has(ids.liveLink), 'a reset link that still works stays');
    t.notOk(outbox.has(ids.deadLink), 'one past PASSWORD_RESET_TTL_SECONDS goes even unsent');
    t.ok(events.has(ids.recentEvent), 'a security event within its retention stays');
    t.notOk(events.has(ids.oldEvent), 'an older one goes');
  },
);

/** An admin audit record written at `occurredAt`; returns its id. */
const auditRecord = async (occurredAt: Date) =>
  (
    await db
      .insertInto('admin_audit_records')
      .values({
        occurred_at: occurredAt,
        actor_kind: 'cli',
        actor_id: 'ops',
        origin: null,
        event: 'admin.user.updated',
        target_type: 'user',
        target_id: userId,
        changes: '{}',
      })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;

t.test(
  'audit records go after AUDIT_RETENTION_DAYS, batch by batch, and stay forever at 0; expired Idempotency-Keys and console sessions go',
  async (t) => {
    const now = new Date(Date.now() + 40 * 24 * HOUR * 1000);
    const DAY = 24 * HOUR;
    const old = await Promise.all(Array.from({ length: 5 }, (_, i) => auditRecord(at(now, -(30 * DAY + 60 + i)))));
    const recent = await auditRecord(at(now, -(30 * DAY - 60)));
    const audited = async () => new Set((await db.selectFrom('admin_audit_records').select('id').execute()).map((r) => r.id));

    t.equal((await purgeExpired(db, { ...RETENTION, now })).admin_audit_records, 0, 'unset: nothing goes');
    t.equal((await purgeExpired(db, { ...RETENTION, now, auditRetentionSeconds: 0 })).admin_audit_records, 0, '0: nothing goes');
    const kept = await audited();
    t.ok(old.every((id) => kept.has(id)) && kept.has(recent), 'every record is still there');

    const deleted = await purgeExpired(db, { ...RETENTION, now, auditRetentionSeconds: 30 * DAY }, { batchSize: 2 });
    t.equal(deleted.admin_audit_records, 5, 'the five older than 30 days, in batches of 2');
    const left = await audited();
    t.ok(left.has(recent), 'a record within the retention stays');
    t.notOk(
      old.some((id) => left.has(id)),
      'the older ones went',
    );

    const key = (k: string, expiresAt: Date) =>
      db
        .insertInto('admin_idempotency_keys')
        .values({ principal: 'client:gone', key: k, request_hash: 'h', created_at: at(expiresAt, -DAY), expires_at: expiresAt })
        .execute();
    await key('dead', at(now, -1));
    await key('live', at(now, 60));
    const consoleSession = (idHash: string, expiresAt: Date) =>
      db
        .insertInto('console_sessions')
        .values({
          id_hash: idHash,
          user_id: userId,
          created_at: at(expiresAt, -HOUR),
          last_seen_at: at(expiresAt, -HOUR),
          expires_at: expiresAt,
        })
        .execute();
    await consoleSession('console-dead', at(now, -1));
    await consoleSession('console-live', at(now, 60));
    const swept = await purgeExpired(db, { ...RETENTION, now });
    t.equal(swept.admin_idempotency_keys, 1);
    t.equal(swept.console_sessions, 1);
    t.same(
      (await db.selectFrom('admin_idempotency_keys').select('key').where('principal', '=', 'client:gone').execute()).map((r) => r.key),
      ['live'],
      'a key of a caller that never came back goes once it expired',
    );
    t.same(
      (await db.selectFrom('console_sessions').select('id_hash').execute()).map((r) => r.id_hash),
      ['console-live'],
      'a console session goes at its absolute expiry, with no console sign-in to sweep it',
    );
  },
);

/**
 * `n` sessions that expired an hour before `now`, each kept by the purge for a refresh token of it that lives an hour
 * after `now`; returns the sessions' id hashes and the refresh tokens' hashes.
 */
async function insertKeptSessions(n: number, now: Date) {
  const sessions = Array.from({ length: n }, () => ({
    id_hash: id('kept'),
    user_id: userId,
    auth_time: at(now, -7200),
    created_at: at(now, -7200),
    expires_at: at(now, -3600),
  }));
  await db.insertInto('sessions').values(sessions).execute();
  const sessionHashes = sessions.map((k) => k.id_hash);
  const sids = await db.selectFrom('sessions').select('sid').where('id_hash', 'in', sessionHashes).execute();
  const refresh = sids.map(({ sid }) => ({
    token_hash: id('rt-kept'),
    family_id: randomUUID(),
    client_id: CLIENT,
    user_id: userId,
    scope: 'openid offline_access',
    auth_time: at(now, -7200),
    issued_at: at(now, -7200),
    expires_at: at(now, 3600),
    rotated_at: null,
    revoked_at: null,
    sid,
  }));
  await db.insertInto('refresh_tokens').values(refresh).execute();
  return { sessionHashes, refreshHashes: refresh.map((r) => r.token_hash) };
}

async function insertExpiredSessions(n: number, expiresAt: Date) {
  const rows = Array.from({ length: n }, () => ({
    id_hash: id('bulk'),
    user_id: userId,
    auth_time: at(expiresAt, -60),
    created_at: at(expiresAt, -60),
    expires_at: expiresAt,
  }));
  await db.insertInto('sessions').values(rows).execute();
}

t.test('more expired rows than one batch are all removed, batch by batch', async (t) => {
  const now = new Date(Date.now() + 20 * 24 * HOUR * 1000);
  await purgeExpired(db, { now, ...RETENTION }); // what earlier tests left behind
  await insertExpiredSessions(25, at(now, -1));
  const before = await count(db, 'sessions');
  const batches: Array<{ table: string; rows: number; ms: number }> = [];
  const deleted = await purgeExpired(
    db,
    { now, ...RETENTION },
    {
      batchSize: 4,
      batchTargetMs: Infinity,
      onBatch: (table, rows, ms) => batches.push({ table, rows, ms }),
    },
  );
  t.equal(deleted.sessions, 25);
  t.equal(await count(db, 'sessions'), before - 25);
  // Issue 21: each batch is timed, so that the job can say how long a batch held its locks.
  const sessionBatches = batches.filter((b) => b.table === 'sessions');
  t.same(
    sessionBatches.map((b) => b.rows),
    [4, 4, 4, 4, 4, 4, 1],
    'seven batches of at most 4 rows, the last one short',
  );
  t.ok(
    batches.every((b) => b.ms >= 0 && b.ms < 60_000),
    'every batch has a duration',
  );
});

t.test('a batch is timed from when it has its connection: the wait for one is not counted as locks held (issue 21 soak)', async (t) => {
  const now = new Date(Date.now() + 45 * 24 * HOUR * 1000);
  await purgeExpired(db, { now, ...RETENTION }); // what earlier tests left behind
  await insertExpiredSessions(3, at(now, -1));
  // A pool of one connection (PGlite's one session is one), held for 400 ms by someone else when the purge starts.
  const single = database.url ? await openDatabase({ url: database.url, dataDir: 'memory://', poolMax: 1 }) : undefined;
  t.teardown(() => single?.close());
  const pool = single?.db ?? db;
  let release!: () => void;
  const held = pool.connection().execute(() => new Promise<void>((resolve) => (release = resolve)));
  setTimeout(() => release(), 400);
  const started = performance.now();
  const batches: number[] = [];
  const deleted = await purgeExpired(pool, { now, ...RETENTION }, { batchSize: 10, onBatch: (_table, _rows, ms) => batches.push(ms) });
  const elapsed = performance.now() - started;
  await held;
  t.equal(deleted.sessions, 3);
  t.ok(elapsed >= 390, `the purge waited for the connection (${Math.round(elapsed)} ms)`);
  t.ok(batches[0]! < 390, `its first batch counts only its own time (${Math.round(batches[0]!)} ms)`);
});

t.test('a batch slower than its target makes the next of its table smaller, down to 10 rows (issue 21: under 100 ms)', async (t) => {
  const now = new Date(Date.now() + 46 * 24 * HOUR * 1000);
  await purgeExpired(db, { now, ...RETENTION }); // what earlier tests left behind
  await insertExpiredSessions(100, at(now, -1));
  const rows: number[] = [];
  const times: number[] = [];
  const batchSizes = new Map<string, number>();
  // Every batch takes longer than a target below 0 ms: the next is as small as it gets.
  const deleted = await purgeExpired(
    db,
    { now, ...RETENTION },
    {
      batchSize: 40,
      batchTargetMs: -1,
      batchSizes,
      onBatch: (table, n, ms) => table === 'sessions' && (rows.push(n), times.push(ms)),
    },
  );
  t.equal(deleted.sessions, 100);
  t.same(rows, [40, 10, 10, 10, 10, 10, 10, 0], 'the first at the most, then 10 at a time');
  t.equal(batchSizes.get('sessions'), 10, 'the size learnt is kept for the next run');
  t.ok(
    times.every((ms) => ms >= 0 && ms < 60_000),
    `each batch timed by the database (${times.join(', ')})`,
  );
});

t.test('a full batch well under its target doubles the next, up to the most a batch takes', async (t) => {
  const now = new Date(Date.now() + 47 * 24 * HOUR * 1000);
  await purgeExpired(db, { now, ...RETENTION }); // what earlier tests left behind
  await insertExpiredSessions(100, at(now, -1));
  const rows: number[] = [];
  const batchSizes = new Map([['sessions', 10]]);
  await purgeExpired(
    db,
    { now, ...RETENTION },
    {
      batchSize: 40,
      batchTargetMs: Infinity,
      batchSizes,
      onBatch: (table, n) => table === 'sessions' && rows.push(n),
    },
  );
  t.same(rows, [10, 20, 40, 30], 'from the size learnt before, doubled while fast, never above 40');
  t.equal(batchSizes.get('sessions'), 40);
});

t.test('a table with a backlog does not hold up the others, and expired rows kept do not stop the batches (issue 21 soak)', async (t) => {
  const now = new Date(Date.now() + 40 * 24 * HOUR * 1000);
  await purgeExpired(db, { now, ...RETENTION }); // what earlier tests left behind
  // Six expired sessions kept for their live refresh tokens, older than the seven that may go.
  const { sessionHashes: keptHashes } = await insertKeptSessions(6, now);
  await insertExpiredSessions(7, at(now, -1));
  const expiredToken = () => ({
    token_hash: id('at-backlog'),
    code_hash: null,
    client_id: CLIENT,
    user_id: userId,
    scope: 'openid',
    issued_at: at(now, -120),
    expires_at: at(now, -60),
    revoked_at: null,
    refresh_family_id: null,
  });
  await db
    .insertInto('access_tokens')
    .values(Array.from({ length: 7 }, expiredToken))
    .execute();

  const batches: string[] = [];
  const deleted = await purgeExpired(
    db,
    { now, ...RETENTION },
    {
      batchSize: 3,
      batchTargetMs: Infinity,
      onBatch: (table, rows) => {
        if (rows > 0 && (table === 'sessions' || table === 'access_tokens')) batches.push(`${table}:${rows}`);
      },
    },
  );
  t.equal(deleted.sessions, 7, 'every session that may go went');
  t.equal(deleted.access_tokens, 7);
  t.equal((await db.selectFrom('sessions').select('id_hash').where('id_hash', 'in', keptHashes).execute()).length, 6, 'the kept ones stay');
  t.same(
    batches,
    ['access_tokens:3', 'sessions:3', 'access_tokens:3', 'sessions:3', 'access_tokens:1', 'sessions:1'],
    'a batch of each table in turn, not one table to the end before the next',
  );
});

t.test('the walk of a table with a keep condition goes on from where the last run left it, until started afresh', async (t) => {
  const now = new Date(Date.now() + 50 * 24 * HOUR * 1000);
  await purgeExpired(db, { now, ...RETENTION }); // what earlier tests left behind
  const { refreshHashes } = await insertKeptSessions(1, now);
  await insertExpiredSessions(2, at(now, -1));
  const cursors = new Map<string, Date>();
  t.equal((await purgeExpired(db, { now, ...RETENTION }, { batchSize: 10, cursors })).sessions, 2, 'the free ones go; the kept one stays');
  t.same(cursors.get('sessions'), at(now, -1), 'the walk stopped at the last session that went');
  // Its refresh token revoked, the kept session may go too: a walk that goes on from the cursor does not see it...
  await db.updateTable('refresh_tokens').set({ revoked_at: now }).where('token_hash', 'in', refreshHashes).execute();
  t.equal((await purgeExpired(db, { now, ...RETENTION }, { batchSize: 10, cursors })).sessions, 0);
  // ...and one started afresh (the job's hourly rescan) does.
  t.equal((await purgeExpired(db, { now, ...RETENTION }, { batchSize: 10 })).sessions, 1);
});

t.test('a code purged leaves the access tokens issued from it as they were (no foreign key rewrites them, issue 21 soak)', async (t) => {
  const now = new Date(Date.now() + 55 * 24 * HOUR * 1000);
  await purgeExpired(db, { now, ...RETENTION }); // what earlier tests left behind
  // The token outlives its code here only to be seen: the purge keeps a code until its tokens have expired.
  const keys = await insertRows(db, at(now, -(HOUR + 10)), 'code-link');
  await db
    .updateTable('access_tokens')
    .set({ expires_at: at(now, 60) })
    .where('token_hash', '=', keys.token)
    .execute();
  t.equal((await purgeExpired(db, { now, ...RETENTION })).authorization_codes, 1);
  const token = await db.selectFrom('access_tokens').select('code_hash').where('token_hash', '=', keys.token).executeTakeFirst();
  t.equal(token?.code_hash, keys.code, 'the token row was not written');
});

t.test("the walks' positions are kept in the database: the later one wins, and a walk is forgotten an hour after it began", async (t) => {
  const now = new Date(Date.now() + 60 * 24 * HOUR * 1000);
  t.teardown(() => db.deleteFrom('purge_cursors').execute());
  await savePurgeCursors(
    db,
    new Map([
      ['sessions', at(now, -100)],
      ['access_tokens', at(now, -50)],
    ]),
    now,
  );
  // Another instance, behind on one table and ahead on the other, an hour later.
  await savePurgeCursors(
    db,
    new Map([
      ['sessions', at(now, -200)],
      ['access_tokens', at(now, -10)],
    ]),
    at(now, HOUR),
  );
  t.same(
    await readPurgeCursors(db, at(now, -1)),
    new Map([
      ['sessions', at(now, -100)],
      ['access_tokens', at(now, -10)],
    ]),
    'each table at the later position; the walks still dated from their first save',
  );
  t.same(await readPurgeCursors(db, now), new Map(), 'walks begun at or before the limit are forgotten...');
  t.equal((await db.selectFrom('purge_cursors').select('table_name').execute()).length, 0, '...and deleted');
});

t.test('a restarted job goes on from where the last one left its walk, until the walk is an hour old', async (t) => {
  const now = new Date(Date.now() + 65 * 24 * HOUR * 1000);
  t.teardown(() => db.deleteFrom('purge_cursors').execute());
  await purgeExpired(db, { now, ...RETENTION }); // what earlier tests left behind
  const logger = (lines: Array<Record<string, unknown>>) =>
    pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  /** Runs a job of its own until it has logged a purge of `sessions` sessions, then stops it. */
  const runJob = async (clock: Date, sessions: number) => {
    const lines: Array<Record<string, unknown>> = [];
    const job = startPurgeJob({ db, clock: () => clock, logger: logger(lines), intervalSeconds: 0.02, retention: RETENTION });
    const done = () => lines.some((l) => (l.deleted as Record<string, number> | undefined)?.sessions === sessions);
    for (let i = 0; i < 200 && !done(); i += 1) await new Promise((r) => setTimeout(r, 20));
    await job.stop();
    return done();
  };
  const { refreshHashes } = await insertKeptSessions(1, now);
  await insertExpiredSessions(2, at(now, -1));
  t.ok(await runJob(now, 2), 'the first job purges the two free sessions; the kept one stays');
  // Its refresh token revoked, the kept session may go, but it is behind the walk; one more expires after it.
  await db.updateTable('refresh_tokens').set({ revoked_at: now }).where('token_hash', 'in', refreshHashes).execute();
  await insertExpiredSessions(1, at(now, -0.5));
  t.ok(await runJob(now, 1), 'a new job (a restart, or another instance) goes on from the walk kept: only the later session');
  t.ok(await runJob(at(now, RESCAN_MS / 1000 + 1), 1), 'an hour on, the walk starts from the oldest again and finds the kept one');
});

t.test('two purges at once both succeed and remove each row exactly once (safe on every instance)', async (t) => {
  const now = new Date(Date.now() + 30 * 24 * HOUR * 1000);
  await purgeExpired(db, { now, ...RETENTION }); // what earlier tests left behind
  await insertExpiredSessions(300, at(now, -1));
  const before = await count(db, 'sessions');
  // On PostgreSQL a second connection pool to the same database, as a second instance has; PGlite has one session.
  const second = database.url ? await openDatabase({ url: database.url, dataDir: 'memory://' }) : undefined;
  t.teardown(() => second?.close());
  const other = second?.db ?? db;
  const [a, b] = await Promise.all([
    purgeExpired(db, { now, ...RETENTION }, { batchSize: 7 }),
    purgeExpired(other, { now, ...RETENTION }, { batchSize: 7 }),
  ]);
  t.equal(a.sessions! + b.sessions!, 300, `together they removed all 300 (${a.sessions} + ${b.sessions})`);
  t.equal(await count(db, 'sessions'), before - 300);
});

t.test('the job purges periodically, logs what it removed, and stops', async (t) => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  await insertExpiredSessions(3, new Date(Date.now() - 1000));
  const job = startPurgeJob({ db, clock: () => new Date(), logger, intervalSeconds: 0.05, retention: RETENTION });
  for (let i = 0; i < 100 && !lines.some((l) => l.msg === 'purged 3 expired rows'); i += 1) await new Promise((r) => setTimeout(r, 20));
  await job.stop();
  const logged = lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('purged'));
  t.ok(logged, 'a line says what was purged');
  t.match(logged?.deleted, { sessions: 3 });
  t.type(logged?.longestBatchMs, 'number', 'with the longest batch, in milliseconds');
  const after = lines.length;
  await new Promise((r) => setTimeout(r, 150));
  t.equal(lines.length, after, 'nothing runs after stop()');
});

t.test('a run starts no round after its deadline, and the next run goes on from where it stopped (issue 21 soak)', async (t) => {
  const now = new Date(Date.now() + 22 * 24 * HOUR * 1000);
  await purgeExpired(db, { now, ...RETENTION }); // what earlier tests left behind
  await insertExpiredSessions(10, at(now, -1));
  const cursors = new Map<string, Date>();
  // A deadline already past: the first round still runs (one batch of each table), no second one.
  t.equal((await purgeExpired(db, { now, ...RETENTION }, { batchSize: 4, batchTargetMs: Infinity, cursors, deadline: 0 })).sessions, 4);
  t.equal((await purgeExpired(db, { now, ...RETENTION }, { batchSize: 4, batchTargetMs: Infinity, cursors, deadline: 0 })).sessions, 4);
  t.equal(
    (await purgeExpired(db, { now, ...RETENTION }, { batchSize: 4, batchTargetMs: Infinity, cursors })).sessions,
    2,
    'no deadline: the rest',
  );
});

t.test('a run that used its budget is followed at once by the next, not an interval later (issue 21 soak)', async (t) => {
  const lines: Array<{ msg?: string; deleted?: Record<string, number>; at: number }> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push({ ...JSON.parse(line), at: performance.now() }) });
  await purgeExpired(db, { now: new Date(), ...RETENTION }); // what earlier tests left behind
  await insertExpiredSessions(2500, new Date(Date.now() - 1000));
  // Every run stops after its first round (a budget of 0): 1,000 sessions a run (batches of a fixed size, however long
  // they take), so three runs for the 2,500.
  const job = startPurgeJob({
    db,
    clock: () => new Date(),
    logger,
    intervalSeconds: 1,
    retention: RETENTION,
    runBudgetMs: 0,
    batchTargetMs: Infinity,
  });
  const sessionRuns = () => lines.filter((l) => (l.deleted?.sessions ?? 0) > 0);
  for (let i = 0; i < 250 && sessionRuns().length < 3; i += 1) await new Promise((r) => setTimeout(r, 20));
  await job.stop();
  const runs = sessionRuns();
  t.same(
    runs.map((l) => l.deleted?.sessions),
    [1000, 1000, 500],
    'three runs of one batch each',
  );
  // Runs an interval apart would be at least 0.9 s apart (a tenth less than the interval at most).
  t.ok(runs[2]!.at - runs[0]!.at < 850, `the third run came ${Math.round(runs[2]!.at - runs[0]!.at)} ms after the first`);
});

t.test('a batch slower than the threshold is logged as a warning naming its table (issue 21: locks held under 100 ms)', async (t) => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  await insertExpiredSessions(2, new Date(Date.now() - 1000));
  const job = startPurgeJob({ db, clock: () => new Date(), logger, intervalSeconds: 0.05, retention: RETENTION, slowBatchMs: -1 });
  for (let i = 0; i < 100 && lines.length === 0; i += 1) await new Promise((r) => setTimeout(r, 20));
  await job.stop();
  t.match(lines[0], { level: 40, msg: /^a purge batch took \d+ ms \(more than -1\)$/, longestBatchMs: Number });
  t.type(lines[0]?.table, 'string');
});

t.test('a failing run is logged, not thrown, and the job tries again at the next interval', async (t) => {
  // A database nobody listens on: every query fails at once with ECONNREFUSED.
  const broken = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: 'postgres://sso@127.0.0.1:1/none' }) }),
  });
  t.teardown(() => broken.destroy());
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const job = startPurgeJob({ db: broken, clock: () => new Date(), logger, intervalSeconds: 0.03, retention: RETENTION });
  for (let i = 0; i < 100 && lines.filter((l) => l.level === 50).length < 2; i += 1) await new Promise((r) => setTimeout(r, 20));
  await job.stop();
  const errors = lines.filter((l) => l.level === 50);
  t.ok(errors.length >= 2, `failed runs are logged and retried (${errors.length})`);
  t.equal(errors[0]?.msg, 'purge of expired rows failed');
});

t.test('the app runs the job every PURGE_INTERVAL_SECONDS', async (t) => {
  const testApp = await buildTestApp(t, { env: { PURGE_INTERVAL_SECONDS: '1' } });
  const session = id('app-job');
  const user = (await testApp.db.selectFrom('users').select('id').executeTakeFirstOrThrow()).id;
  const past = new Date(Date.now() - 1000);
  await testApp.db
    .insertInto('sessions')
    .values({ id_hash: session, user_id: user, auth_time: past, created_at: past, expires_at: past })
    .execute();
  const gone = async () =>
    (await testApp.db.selectFrom('sessions').select('id_hash').where('id_hash', '=', session).executeTakeFirst()) === undefined;
  let removed = false;
  for (let i = 0; i < 40 && !(removed = await gone()); i += 1) await new Promise((r) => setTimeout(r, 100));
  t.ok(removed, 'the expired session was purged within about a second');
});

t.test('the app purges audit records older than AUDIT_RETENTION_DAYS', async (t) => {
  const testApp = await buildTestApp(t, { env: { PURGE_INTERVAL_SECONDS: '1', AUDIT_RETENTION_DAYS: '1' } });
  const record = (ageSeconds: number) =>
    testApp.db
      .insertInto('admin_audit_records')
      .values({
        occurred_at: new Date(Date.now() - ageSeconds * 1000),
        actor_kind: 'system',
        actor_id: 'system',
        origin: null,
        event: 'admin.user.updated',
        target_type: 'user',
        target_id: 'someone',
        changes: '{}',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
  const old = (await record(2 * 24 * HOUR)).id;
  const recent = (await record(HOUR)).id;
  const ids = async () => (await testApp.db.selectFrom('admin_audit_records').select('id').execute()).map((r) => r.id);
  let left = await ids();
  for (let i = 0; i < 40 && left.includes(old); i += 1) {
    await new Promise((r) => setTimeout(r, 100));
    left = await ids();
  }
  t.notOk(left.includes(old), 'a record two days old went within about a second');
  t.ok(left.includes(recent), 'one an hour old stays');
});
