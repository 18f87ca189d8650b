// Deletes expired rows in small batches. One entry per table below: add a line for a new table that expires.
// Safe on every instance at once: each batch is one DELETE that picks its rows with SKIP LOCKED, so two
// purges never wait on, nor fail on, each other's rows; nothing is read first and written later.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from './database.js';
import type { Database } from './schema.js';

export interface PurgeSettings {
  now: Date;
  /** A used code is kept this long after it expires (see below). */
  accessTokenTtlSeconds: number;
  /** Sign-in attempts are kept this long: the longest risk counter window. */
  signInAttemptRetentionSeconds: number;
  /** A one-time code in the outbox is useless after this (the second factor's lifetime): it goes, sent or not. */
  oneTimeCodeTtlSeconds: number;
  /** Likewise a password reset link (PASSWORD_RESET_TTL_SECONDS); its row in password_resets goes when it expires. */
  passwordResetTtlSeconds: number;
  /** Likewise a sign-up's verification and an invitation (SIGNUP_VERIFICATION_TTL_SECONDS). */
  signupTtlSeconds: number;
  /** Stored security events are kept this long. */
  securityEventRetentionSeconds: number;
  /** Admin audit records are kept this long (AUDIT_RETENTION_DAYS); unset or 0: forever. */
  auditRetentionSeconds?: number;
}

/**
 * Outbox messages other than one-time codes stay this long after they were written: delivery gives up within
 * a minute (src/domain/notifications/notifier.ts), and a day leaves time to see what was sent or failed.
 */
export const OUTBOX_RETENTION_SECONDS = 86_400;

/** Delivered webhook deliveries stay listed this long (src/domain/webhooks/). */
export const WEBHOOK_DELIVERED_RETENTION_SECONDS = 7 * 86_400;

interface PurgeTarget {
  table: keyof Database & string;
  /** Rows whose `column` (expires_at unless named) is before this moment go; null: none goes. */
  cutoff(settings: PurgeSettings): Date | null;
  column?: string;
  /** A condition that keeps an expired row a while longer (SQL over the table's own columns). */
  keepWhile?: (settings: PurgeSettings) => RawBuilder<boolean>;
}

const expired = (s: PurgeSettings) => s.now;

export const PURGE_TARGETS: readonly PurgeTarget[] = [
  // A code outlives its expiry by an access token lifetime: a replay within that time still finds it, is refused
  // as a replay and revokes what was issued from it (RFC 6749 4.1.2), and by then those tokens have expired.
  { table: 'authorization_codes', cutoff: (s) => new Date(s.now.getTime() - s.accessTokenTtlSeconds * 1000) },
  { table: 'access_tokens', cutoff: expired },
  // A rotated refresh token stays until it expires, so that its replay revokes its family (RFC 9700 4.14.2).
  { table: 'refresh_tokens', cutoff: expired },
  // An expired session stays while tokens issued through it may still be used, since revoking its device finds
  // them by its sid (src/storage/devices.ts): an access token lifetime when it issued codes to a client (their
  // tokens outlive it by at most that), and as long as a refresh token of it lives (they do while rotated).
  {
    table: 'sessions',
    cutoff: expired,
    keepWhile: (s) => sql<boolean>`(
      (expires_at > ${new Date(s.now.getTime() - s.accessTokenTtlSeconds * 1000)} AND EXISTS (SELECT 1 FROM session_clients sc WHERE sc.sid = sessions.sid))
      OR EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.sid = sessions.sid AND r.revoked_at IS NULL AND r.expires_at > ${s.now}))`,
  },
  { table: 'interactions', cutoff: expired },
  { table: 'sign_in_throttle', cutoff: expired },
  { table: 'second_factor_challenges', cutoff: expired },
  { table: 'passkey_challenges', cutoff: expired },
  { table: 'client_assertion_jtis', cutoff: expired },
  { table: 'dpop_proof_jtis', cutoff: expired },
  // A pushed request (RFC 9126) is of no use once expired, used or not.
  { table: 'pushed_authorization_requests', cutoff: expired },
  // A sign-in sent to an upstream provider, and a link waiting for its proof: of no use once expired (issue 19).
  { table: 'upstream_logins', cutoff: expired },
  { table: 'connection_link_proofs', cutoff: expired },
  // A SAML assertion ID is kept to refuse its replay only while the assertion could be accepted (issue 39).
  { table: 'saml_assertions', cutoff: expired },
  // Like a code: a used device code stays an access token lifetime past its expiry, so that its replay is recognised.
  { table: 'device_authorizations', cutoff: (s) => new Date(s.now.getTime() - s.accessTokenTtlSeconds * 1000) },
  { table: 'sign_in_attempts', column: 'at', cutoff: (s) => new Date(s.now.getTime() - s.signInAttemptRetentionSeconds * 1000) },
  // A one-time code, a reset link, a sign-up's code or an invitation goes once it could no longer be used, so that
  // none lingers at rest even when no notifier ever sends it (NOTIFIER=none); every other message a day after it
  // was written, sent or not.
  {
    table: 'outbox',
    column: 'created_at',
    cutoff: (s) => new Date(s.now.getTime() - s.oneTimeCodeTtlSeconds * 1000),
    keepWhile: (s) =>
      sql<boolean>`((kind NOT IN ('one-time-code', 'password-reset', 'signup-verification', 'invitation', 'email-verification') AND created_at > ${new Date(s.now.getTime() - OUTBOX_RETENTION_SECONDS * 1000)})
        OR (kind = 'password-reset' AND created_at > ${new Date(s.now.getTime() - s.passwordResetTtlSeconds * 1000)})
        OR (kind IN ('signup-verification', 'invitation', 'email-verification') AND created_at > ${new Date(s.now.getTime() - s.signupTtlSeconds * 1000)}))`,
  },
  { table: 'password_resets', cutoff: expired },
  { table: 'signups', cutoff: expired },
  { table: 'signup_invitations', cutoff: expired },
  { table: 'email_changes', cutoff: expired },
  { table: 'security_events', column: 'created_at', cutoff: (s) => new Date(s.now.getTime() - s.securityEventRetentionSeconds * 1000) },
  // A delivered webhook stays listed a week (sso-admin webhooks deliveries); a pending one stays until it is
  // delivered or its subscription is removed (delivered_at is null: never before any cutoff).
  {
    table: 'webhook_deliveries',
    column: 'delivered_at',
    cutoff: (s) => new Date(s.now.getTime() - WEBHOOK_DELIVERED_RETENTION_SECONDS * 1000),
  },
  // The admin audit trail, after AUDIT_RETENTION_DAYS; kept forever when that is 0.
  {
    table: 'admin_audit_records',
    column: 'occurred_at',
    cutoff: (s) => (s.auditRetentionSeconds ? new Date(s.now.getTime() - s.auditRetentionSeconds * 1000) : null),
  },
  // A management API Idempotency-Key replays for a day; its caller's next create sweeps its own expired keys, but a
  // caller that never comes back would leave them.
  { table: 'admin_idempotency_keys', cutoff: expired },
  // A console session past its absolute lifetime; an idle one goes at the next console sign-in, or at its expiry.
  { table: 'console_sessions', cutoff: expired },
];

export const PURGE_BATCH_SIZE = 1000;

/**
 * Deletes up to `limit` expired rows of one table, in order of `column` from `after` when given; returns how many
 * went and the latest `column` value among them, where the next batch goes on from. The batches walk the index on
 * `column`, and neither the expired rows a table keeps nor the index entries of rows deleted before are read again
 * by every batch (issue 21's soak: a million sessions kept for their refresh tokens made each batch of sessions read
 * them all, 5 s a batch; twenty million deleted sign-in attempts, until a VACUUM, 2 to 3 s a batch).
 */
async function purgeBatch(
  db: Db,
  table: string,
  column: string,
  cutoff: Date,
  limit: number,
  keep: RawBuilder<boolean> | undefined,
  after: Date | undefined,
): Promise<{ rows: number; last: Date | undefined }> {
  const kept = keep ? sql` AND NOT (${keep})` : sql``;
  const from = after ? sql` AND ${sql.ref(column)} >= ${after}` : sql``;
  const order = sql` ORDER BY ${sql.ref(column)}`;
  // ctid = ANY(ARRAY(...)) is a TID scan over exactly the picked rows.
  const result = await sql<{ rows: number; last: Date | null }>`
    WITH gone AS (
      DELETE FROM ${sql.table(table)} WHERE ctid = ANY(ARRAY(
        SELECT ctid FROM ${sql.table(table)} WHERE ${sql.ref(column)} < ${cutoff}${from}${kept}${order} LIMIT ${limit} FOR UPDATE SKIP LOCKED
      )) RETURNING ${sql.ref(column)} AS at
    )
    SELECT count(*)::int AS rows, max(at) AS last FROM gone`.execute(db);
  const row = result.rows[0];
  return { rows: row?.rows ?? 0, last: row?.last ?? undefined };
}

/** Told after each batch: the table, the rows it deleted, and how long its DELETE took (the longest its locks were held). */
export type PurgeBatchObserver = (table: string, rows: number, ms: number) => void;

/** What a batch should take at most: half of issue 21's 100 ms, so that one a little slower than the last stays under. */
export const PURGE_BATCH_TARGET_MS = 50;

/** The fewest rows a batch takes, however slow: a table is never left behind for want of progress. */
const MIN_BATCH_SIZE = 10;

export interface PurgeOptions {
  /** The most rows a batch takes, and the first batch of a table the sizes below do not know. */
  batchSize?: number;
  onBatch?: PurgeBatchObserver;
  /**
   * Where the walk of each table goes on from, read and updated: the purge job keeps it from run to run, and starts
   * afresh now and then for rows kept before that may go now. A row written later is never behind it: its expiry
   * (or time) is after the moment it was written, and the walk never passes the cutoff, which is at most now.
   */
  cursors?: Map<string, Date>;
  /**
   * A `performance.now()` time after which no new round starts (one batch of each table still pending is a round;
   * the first always runs).
   * The job bounds its runs so: a run with a long backlog would otherwise keep its `now`, and the tables it has
   * finished, until the backlog is gone, while rows that expire meanwhile wait (an issue 21 soak saw codes pile up).
   */
  deadline?: number;
  /**
   * Each table's batch size, read and updated: a batch slower than `batchTargetMs` makes the next one of its table
   * smaller in proportion, and a full batch under half of it doubles the next, up to `batchSize`. A batch's cost
   * depends on the table (a session's delete cascades, its keep condition reads refresh tokens), on the backlog and
   * on the load: issue 21's sixth soak, on a busy database, saw batches of 1,000 sessions take 200 ms to 1.2 s.
   */
  batchSizes?: Map<string, number>;
  batchTargetMs?: number;
}

/**
 * Deletes every expired row, a batch of each table in turn until none has more: a table with a long backlog
 * does not hold up the others (a soak on a large database saw access tokens pile up behind the sessions' backlog).
 * Returns the count per table.
 */
export async function purgeExpired(db: Db, settings: PurgeSettings, options: PurgeOptions = {}): Promise<Record<string, number>> {
  const { batchSize = PURGE_BATCH_SIZE, onBatch, cursors = new Map(), deadline = Infinity } = options;
  const { batchSizes = new Map(), batchTargetMs = PURGE_BATCH_TARGET_MS } = options;
  const deleted: Record<string, number> = {};
  let pending = PURGE_TARGETS.flatMap((target) => {
    const cutoff = target.cutoff(settings);
    deleted[target.table] = 0;
    return cutoff === null ? [] : [{ target, cutoff, keep: target.keepWhile?.(settings) }];
  });
  while (pending.length > 0) {
    const next: typeof pending = [];
    for (const work of pending) {
      const { target, cutoff, keep } = work;
      const size = Math.min(batchSize, batchSizes.get(target.table) ?? batchSize);
      const column = target.column ?? 'expires_at';
      // Timed from when it holds its connection to its answer: an upper bound of how long its rows' locks were held (its
      // DELETE, the cascades its foreign keys fire at the statement's end, its commit, the round trip), not counting a
      // wait for a pooled connection behind the traffic (issue 21's fourth soak counted that too).
      const batch = await db.connection().execute(async (connection) => {
        const started = performance.now();
        const done = await purgeBatch(connection, target.table, column, cutoff, size, keep, cursors.get(target.table));
        return { ...done, ms: performance.now() - started };
      });
      onBatch?.(target.table, batch.rows, batch.ms);
      deleted[target.table]! += batch.rows;
      if (batch.last) cursors.set(target.table, batch.last);
      if (batch.ms > batchTargetMs) batchSizes.set(target.table, Math.max(MIN_BATCH_SIZE, Math.floor((size * batchTargetMs) / batch.ms)));
      else if (batch.rows === size && batch.ms < batchTargetMs / 2) batchSizes.set(target.table, Math.min(batchSize, size * 2));
      if (batch.rows === size) next.push(work);
    }
    pending = next;
    if (performance.now() >= deadline) break;
  }
  return deleted;
}

/**
 * Where each table's walk stands, as every instance left it (purge_cursors): a restarted instance goes on from
 * there instead of reading again, from the oldest, the index entries of every row deleted since the last VACUUM (the
 * first batch of sign-in attempts after a restart took 43.8 s so in issue 21's soak). A walk that began at or before
 * `walkStartedBefore` is forgotten, so that its table is read from the oldest row again: rows kept then may go now.
 */
export async function readPurgeCursors(db: Db, walkStartedBefore: Date): Promise<Map<string, Date>> {
  const result = await sql<{ table_name: string; position: Date }>`
    WITH forgotten AS (DELETE FROM purge_cursors WHERE walk_started_at <= ${walkStartedBefore})
    SELECT table_name, position FROM purge_cursors WHERE walk_started_at > ${walkStartedBefore}`.execute(db);
  return new Map(result.rows.map((row) => [row.table_name, row.position]));
}

/**
 * Keeps the positions a run reached. Another instance's walk may be ahead: the later position wins, since both are
 * behind every row that may go (see `cursors` above). A table's first position starts its walk's clock at `now`.
 */
export async function savePurgeCursors(db: Db, cursors: ReadonlyMap<string, Date>, now: Date): Promise<void> {
  if (cursors.size === 0) return;
  const tables = [...cursors.keys()];
  const positions = tables.map((table) => cursors.get(table)!.toISOString());
  await sql`
    INSERT INTO purge_cursors (table_name, position, walk_started_at)
    SELECT table_name, position, ${now}::timestamptz FROM unnest(${tables}::text[], ${positions}::timestamptz[]) AS c (table_name, position)
    ON CONFLICT (table_name) DO UPDATE SET position = GREATEST(purge_cursors.position, excluded.position)`.execute(db);
}
