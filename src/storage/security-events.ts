// Repository for stored security events (sign-in allowed, challenged, blocked, new device, device revoked, ...).
import { sql } from 'kysely';
import type { Db } from './database.js';
import { readFreeFormForListing, writeFreeForm } from './json-shape.js';
import { webhookDeliveriesInsert, type NewWebhookEvent } from './webhooks.js';

export interface NewSecurityEvent {
  type: string;
  userId: string | null;
  deviceId: string | null;
  clientId: string | null;
  createdAt: Date;
  details: Record<string, unknown>;
}

/**
 * Stores the event; with `webhook`, queues that webhook event for the subscriptions that want it in the same statement
 * (a data-modifying WITH), so that a sign-in pays one round trip for both.
 */
export async function insertSecurityEvent(db: Db, e: NewSecurityEvent, webhook?: NewWebhookEvent): Promise<void> {
  const row = {
    type: e.type,
    user_id: e.userId,
    device_id: e.deviceId,
    client_id: e.clientId,
    created_at: e.createdAt,
    details: writeFreeForm(e.details),
  };
  if (!webhook) {
    await db.insertInto('security_events').values(row).execute();
    return;
  }
  await webhookDeliveriesInsert(
    db.with('event', (qb) => qb.insertInto('security_events').values(row)),
    webhook,
  ).execute();
}

/** A position in the newest-first order: the event's time in microseconds since the epoch, and its id. */
export interface EventPosition {
  micros: string;
  id: string;
}

export interface EventFilter {
  /** A user id, or else a username (any case). */
  userId?: string;
  username?: string;
  type?: string;
  /** Inclusive. */
  since?: Date;
  /** Exclusive. */
  until?: Date;
  /** Events strictly after this position in the newest-first order. */
  after?: EventPosition;
  limit: number;
}

export interface StoredSecurityEvent {
  id: string;
  type: string;
  user_id: string | null;
  username: string | null;
  device_id: string | null;
  client_id: string | null;
  created_at: Date;
  details: Record<string, unknown>;
  position: EventPosition;
}

/**
 * Events matching the filter, newest first (time, then id), at most `limit`. The position is exact to the
 * microsecond, so that paging neither skips nor repeats an event whatever the clock's precision.
 */
export async function findSecurityEvents(db: Db, f: EventFilter): Promise<StoredSecurityEvent[]> {
  const rows = await db
    .selectFrom('security_events as e')
    .leftJoin('users as u', 'u.id', 'e.user_id')
    .select(['e.id', 'e.type', 'e.user_id', 'u.username', 'e.device_id', 'e.client_id', 'e.created_at', 'e.details'])
    // Whole seconds and the microseconds within them, both exact (extract(epoch) is a float before PostgreSQL 14).
    .select(
      sql<string>`(extract(epoch from date_trunc('second', e.created_at))::bigint * 1000000
      + extract(microseconds from e.created_at)::bigint % 1000000)::text`.as('micros'),
    )
    .$if(f.userId !== undefined, (q) => q.where('e.user_id', '=', f.userId!))
    .$if(f.username !== undefined, (q) =>
      q.where('e.user_id', '=', (eb) =>
        eb
          .selectFrom('users')
          .select('id')
          .where(sql`lower(username)`, '=', f.username!.toLowerCase()),
      ),
    )
    .$if(f.type !== undefined, (q) => q.where('e.type', '=', f.type!))
    .$if(f.since !== undefined, (q) => q.where('e.created_at', '>=', f.since!))
    .$if(f.until !== undefined, (q) => q.where('e.created_at', '<', f.until!))
    .$if(f.after !== undefined, (q) =>
      q.where(
        sql<boolean>`(e.created_at, e.id) < (timestamptz 'epoch' + ${f.after!.micros}::bigint * interval '1 microsecond', ${f.after!.id}::bigint)`,
      ),
    )
    .orderBy('e.created_at', 'desc')
    .orderBy('e.id', 'desc')
    .limit(f.limit)
    .execute();
  return rows.map(({ micros, ...row }) => ({
    ...row,
    id: String(row.id),
    details: readFreeFormForListing(row.details),
    position: { micros, id: String(row.id) },
  }));
}
