// Repository for back-channel logout deliveries: queued when a session ends, claimed by any instance, gone when done.
import { sql } from 'kysely';
import type { Db } from './database.js';
import type { ClientRow } from './schema.js';

/** A delivery claimed for sending, with what is needed to sign and post its logout token. */
export interface ClaimedLogout {
  id: string;
  client: ClientRow;
  sub: string;
  sid: string;
  /** Attempts so far, this one included. */
  attempts: number;
}

/**
 * Claims up to `limit` deliveries that are due, in one statement: each claimed row has its attempt counted and
 * its next attempt moved to `leaseUntil`, so that no other instance sends it meanwhile (SKIP LOCKED lets
 * instances claim side by side without waiting), and a process that dies mid-send leaves it to be tried again.
 */
export async function claimDueLogouts(db: Db, now: Date, leaseUntil: Date, limit: number): Promise<ClaimedLogout[]> {
  const rows = await db
    .with('due', (qb) =>
      qb
        .selectFrom('backchannel_logouts')
        .select('id')
        .where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .with('claimed', (qb) =>
      qb
        .updateTable('backchannel_logouts')
        .set((eb) => ({ attempts: eb('attempts', '+', 1), next_attempt_at: leaseUntil }))
        .where('id', 'in', (eb) => eb.selectFrom('due').select('due.id'))
        .returning(['id', 'client_id', 'sub', 'sid', 'attempts']),
    )
    .selectFrom('claimed')
    .innerJoin('clients as c', 'c.client_id', 'claimed.client_id')
    .selectAll('c')
    .select(['claimed.id', 'claimed.sub', 'claimed.sid', 'claimed.attempts'])
    .execute();
  return rows.map(({ id, sub, sid, attempts, ...client }) => ({ id, sub, sid, attempts, client }));
}

/** Delivered, or given up: the row goes. */
export async function deleteLogout(db: Db, id: string): Promise<void> {
  await db.deleteFrom('backchannel_logouts').where('id', '=', id).execute();
}

export async function rescheduleLogout(db: Db, id: string, at: Date): Promise<void> {
  await db.updateTable('backchannel_logouts').set({ next_attempt_at: at }).where('id', '=', id).execute();
}

/** Deliveries still queued (tests and the admin's view). */
export async function countQueuedLogouts(db: Db): Promise<number> {
  const row = await db
    .selectFrom('backchannel_logouts')
    .select(sql<string>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The body of a `queued AS (...)` CTE: a back-channel logout for each client of each session in the sibling CTE
 * `ended` (its `sid` and `user_id`) whose client registered a backchannel_logout_uri. Every statement that ends
 * sessions in bulk (a user disabled, a device revoked, sessions revoked) queues them the same way, in its own
 * statement.
 */
export function queueLogoutsOfEnded(now: Date) {
  return sql`INSERT INTO backchannel_logouts (client_id, sub, sid, next_attempt_at, created_at)
      SELECT sc.client_id, ended.user_id::text, ended.sid, ${now}::timestamptz, ${now}::timestamptz
        FROM ended
        JOIN session_clients sc ON sc.sid = ended.sid
        JOIN clients c ON c.client_id = sc.client_id
       WHERE c.metadata->>'backchannel_logout_uri' IS NOT NULL
      RETURNING id`;
}
