// Repository for webhook subscriptions and the deliveries owed to them (src/domain/webhooks/). A delivery is written
// in the transaction of the change it reports and numbered as that transaction commits (`position`, in commit order:
// migrations/20261203030000_webhook_commit_order.sql, which also NOTIFYs WEBHOOK_CHANNEL); the job claims the first
// pending delivery of each subscription under a lease (SKIP LOCKED), so that two instances never send one at once
// and a subscription's events go in order. A claimed delivery's payload is read back through the shapes its owner
// hands in (src/domain/webhooks/event-data.ts); the subscription's sealed secret is returned as stored, for
// openSecret to judge (its shape is src/domain/keys/sealed-secrets.ts's).
import { sql } from 'kysely';
import type { Db } from './database.js';
import { readVersioned, type Versioned, type VersionedShapes } from './json-shape.js';
import type { WebhookDeliveryRow, WebhookSubscriptionRow } from './schema.js';
import { writeSealedSecret, type SealedSecret } from './sealed-secret.js';

/** Notified when deliveries commit (by the trigger) and when a subscription is resumed. */
export const WEBHOOK_CHANNEL = 'sso_webhook_deliveries';

/**
 * Begins the statements that read the queue by its heads, claimDueWebhookDeliveries and markWebhooksDelivered: a
 * comment, so that src/storage/hot-path/preparing-client.ts leaves them unnamed (it names statements that begin with
 * their verb) and PostgreSQL plans them on every run, for the queue as it is then. Named, the generic plan made on a
 * connection's sixth run was kept for as long as the connection lived: made while the queue was small (a new table,
 * a quiet hour), it scanned the whole queue once a burst had grown it, milliseconds a delivery. Planning them costs
 * a fraction of that, once per batch of deliveries. test/storage/webhook-deliveries.test.ts checks they stay unnamed.
 */
const PLANNED_ON_EVERY_RUN = sql`/* webhook queue: planned on every run */`;

export interface NewWebhookSubscription {
  id: string;
  url: string;
  eventTypes: readonly string[];
  secretSealed: SealedSecret;
  description: string | null;
  enabled: boolean;
  /** Only events of this organization (issue 40); null or absent: every event. */
  organizationId?: string | null;
  now: Date;
}

/** Inserts the subscription; false when its id is taken. */
export async function insertWebhookSubscription(db: Db, s: NewWebhookSubscription): Promise<boolean> {
  const rows = await db
    .insertInto('webhook_subscriptions')
    .values({
      id: s.id,
      url: s.url,
      event_types: [...s.eventTypes],
      secret_sealed: writeSealedSecret(s.secretSealed),
      description: s.description,
      enabled: s.enabled,
      organization_id: s.organizationId ?? null,
      created_at: s.now,
      updated_at: s.now,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .execute();
  return rows.length === 1;
}

/** Replaces what a seed entry says of an existing subscription (its pause and counters are left alone). */
export async function replaceWebhookSubscription(db: Db, s: NewWebhookSubscription): Promise<boolean> {
  const result = await db
    .updateTable('webhook_subscriptions')
    .set({
      url: s.url,
      event_types: [...s.eventTypes],
      secret_sealed: writeSealedSecret(s.secretSealed),
      description: s.description,
      enabled: s.enabled,
      organization_id: s.organizationId ?? null,
      updated_at: s.now,
    })
    .where('id', '=', s.id)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** What an admin changes of a subscription: only the fields given are written. */
export interface WebhookSubscriptionChanges {
  url?: string;
  eventTypes?: readonly string[];
  description?: string | null;
  enabled?: boolean;
  secretSealed?: SealedSecret;
  now: Date;
}

/**
 * Changes the subscription in place; false when there is none. Its deliveries are left alone: a pending one is sent,
 * when it is claimed, to the URL and signed with the secret the subscription has then (claimDueWebhookDeliveries).
 */
export async function updateWebhookSubscription(db: Db, id: string, c: WebhookSubscriptionChanges): Promise<boolean> {
  const result = await db
    .updateTable('webhook_subscriptions')
    .set({
      ...(c.url === undefined ? {} : { url: c.url }),
      ...(c.eventTypes === undefined ? {} : { event_types: [...c.eventTypes] }),
      ...(c.description === undefined ? {} : { description: c.description }),
      ...(c.enabled === undefined ? {} : { enabled: c.enabled }),
      ...(c.secretSealed === undefined ? {} : { secret_sealed: writeSealedSecret(c.secretSealed) }),
      updated_at: c.now,
    })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export async function findWebhookSubscription(db: Db, id: string): Promise<WebhookSubscriptionRow | undefined> {
  return db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listWebhookSubscriptions(db: Db): Promise<WebhookSubscriptionRow[]> {
  return db.selectFrom('webhook_subscriptions').selectAll().orderBy('id').execute();
}

/** Deletes the subscription and (cascade) every delivery owed to it. */
export async function deleteWebhookSubscription(db: Db, id: string): Promise<boolean> {
  const result = await db.deleteFrom('webhook_subscriptions').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows === 1n;
}

/** Counts of a subscription's deliveries by status. */
export async function countWebhookDeliveries(db: Db, id: string): Promise<{ pending: number; delivered: number }> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['status', (eb) => eb.fn.countAll<string>().as('n')])
    .where('subscription_id', '=', id)
    .groupBy('status')
    .execute();
  const of = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0);
  return { pending: of('pending'), delivered: of('delivered') };
}

/**
 * Unpauses the subscription and makes its pending deliveries due now: the oldest is sent first. False when there is
 * no such subscription. Run in one transaction (the domain's).
 */
export async function resumeWebhookSubscription(db: Db, id: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('webhook_subscriptions')
    .set({ paused_at: null, pause_reason: null, consecutive_failures: 0, failing_since: null, updated_at: now })
    .where('id', '=', id)
    .executeTakeFirst();
  if (result.numUpdatedRows !== 1n) return false;
  await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: now })
    .where('subscription_id', '=', id)
    .where('status', '=', 'pending')
    .execute();
  await sql`SELECT pg_notify(${WEBHOOK_CHANNEL}, ${id})`.execute(db);
  return true;
}

export interface NewWebhookEvent {
  eventId: string;
  type: string;
  payload: Record<string, unknown>;
  /** The organization the event is of (issue 40): a subscription limited to another one does not get it. */
  organizationId?: string | null;
  now: Date;
}

/**
 * One delivery of the event for every enabled subscription that wants its type (or "*"), in one statement; paused
 * subscriptions get theirs too (sent once resumed). Returns how many were queued.
 */
export async function insertWebhookDeliveries(db: Db, e: NewWebhookEvent): Promise<number> {
  const result = await webhookDeliveriesInsert(db, e).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n);
}

/**
 * The statement of insertWebhookDeliveries, for a caller that runs it beside another write in one statement (a
 * data-modifying WITH: src/storage/security-events.ts); `db` may be a query creator with that WITH.
 */
export function webhookDeliveriesInsert(db: Pick<Db, 'insertInto'>, e: NewWebhookEvent) {
  return db
    .insertInto('webhook_deliveries')
    .columns(['subscription_id', 'event_id', 'event_type', 'payload', 'next_attempt_at', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('webhook_subscriptions as s')
        .select([
          's.id',
          sql<string>`${e.eventId}::uuid`.as('event_id'),
          sql<string>`${e.type}::text`.as('event_type'),
          sql<string>`${JSON.stringify(e.payload)}::jsonb`.as('payload'),
          sql<Date>`${e.now}::timestamptz`.as('next_attempt_at'),
          sql<Date>`${e.now}::timestamptz`.as('created_at'),
        ])
        .where('s.enabled', '=', true)
        .where(sql<boolean>`(${e.type} = ANY (s.event_types) OR '*' = ANY (s.event_types))`)
        .where((eb) =>
          e.organizationId == null
            ? eb('s.organization_id', 'is', null)
            : eb.or([eb('s.organization_id', 'is', null), eb('s.organization_id', '=', e.organizationId)]),
        )
        .orderBy('s.id'),
    );
}

export interface ClaimedWebhookDelivery<P = unknown> {
  id: string;
  /** Its place in the subscription's queue (commit order). */
  position: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  /** The event's data, read through the shapes its owner handed in, or why it could not be. */
  payload: Versioned<P>;
  /** Attempts so far, this one included. */
  attempts: number;
  createdAt: Date;
  url: string;
  secretSealed: unknown;
}

/** A claimed row as the statements below return it, with its subscription's URL and secret as they are now. */
interface ClaimedRow {
  id: string;
  position: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  payload: unknown;
  attempts: number;
  created_at: Date;
  url: string;
  secret_sealed: unknown;
}

function rowToClaimed<P>(r: ClaimedRow, shapes: VersionedShapes<P>): ClaimedWebhookDelivery<P> {
  return {
    id: r.id,
    position: String(r.position),
    subscriptionId: r.subscription_id,
    eventId: r.event_id,
    eventType: r.event_type,
    payload: readVersioned(r.payload, shapes),
    attempts: r.attempts,
    createdAt: new Date(r.created_at),
    url: r.url,
    secretSealed: typeof r.secret_sealed === 'string' ? JSON.parse(r.secret_sealed) : r.secret_sealed,
  };
}

/** Which deliveries a claim may take. */
export interface WebhookClaim {
  now: Date;
  /** Until when a claimed delivery is this instance's: its next attempt is moved there. */
  leaseUntil: Date;
  limit: number;
  /** Not these subscriptions (those this instance is sending to already). */
  excluding?: readonly string[];
}

/**
 * Claims up to `limit` deliveries that are due and each the first pending one (by position) of an enabled, unpaused
 * subscription, in one statement: each has its attempt counted and its next attempt moved to `leaseUntil`, so that
 * no other instance sends it (nor the one after it) meanwhile, and a process that dies mid-send leaves it to be tried
 * again. Since positions are taken in commit order, the first pending row this statement sees can never be overtaken
 * by a row committed later. Here and in markWebhooksDelivered, each head found is locked by its id alone and the
 * rows are updated by id from an array: as a semi-join (`d.id IN (SELECT id FROM heads)`), or with `status =
 * 'pending'` beside a list of ids, a plan made for a small queue, or on an index whose statistics are those of the
 * empty table it was made on, read every pending row (and looked the heads up again for each).
 */
export async function claimDueWebhookDeliveries<P>(
  db: Db,
  shapes: VersionedShapes<P>,
  claim: WebhookClaim,
): Promise<ClaimedWebhookDelivery<P>[]> {
  const { now, leaseUntil, limit } = claim;
  const excluding = claim.excluding?.length ? sql`AND NOT (s.id = ANY (${[...claim.excluding]}::text[]))` : sql``;
  const result = await sql<ClaimedRow>`${PLANNED_ON_EVERY_RUN}
    WITH heads AS (
      SELECT h.id
        FROM webhook_subscriptions s
       CROSS JOIN LATERAL (
             SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
              WHERE d.subscription_id = s.id AND d.status = 'pending'
              ORDER BY d.position LIMIT 1
       ) h
       WHERE s.enabled AND s.paused_at IS NULL AND h.next_attempt_at <= ${now} ${excluding}
       ORDER BY h.next_attempt_at
       LIMIT ${limit}
    ), due AS (
      -- Each head locked by its id alone. Checked again on the row itself: a row another instance claimed and
      -- committed meanwhile is not due any more.
      SELECT d.id
        FROM heads h
       CROSS JOIN LATERAL (
             SELECT d.id FROM webhook_deliveries d
              WHERE d.id = h.id AND d.status = 'pending' AND d.next_attempt_at <= ${now}
                FOR UPDATE SKIP LOCKED
       ) d
    )
    UPDATE webhook_deliveries d SET attempts = d.attempts + 1, next_attempt_at = ${leaseUntil}
     WHERE d.id = ANY (ARRAY(SELECT id FROM due))
    RETURNING d.id, d.position, d.subscription_id, d.event_id, d.event_type, d.payload, d.attempts, d.created_at,
              (SELECT s.url FROM webhook_subscriptions s WHERE s.id = d.subscription_id) AS url,
              (SELECT s.secret_sealed FROM webhook_subscriptions s WHERE s.id = d.subscription_id) AS secret_sealed`.execute(db);
  return result.rows.map((r) => rowToClaimed(r, shapes));
}

/** A delivery the receiver took. */
export interface DeliveredWebhook {
  id: string;
  subscriptionId: string;
  /** The delivered one's place in its subscription's queue. */
  position: string;
  /** The receiver's answer. */
  status: number;
  /** Claim the subscription's next delivery too (the sender's turn goes on with it). */
  claimNext: boolean;
}

/**
 * Records deliveries the receivers took, of different subscriptions, in one statement (one round trip and one commit
 * for all): each leaves its queue and ends its subscription's failure streak, and for each with `claimNext` the
 * subscription's next delivery is claimed as claimDueWebhookDeliveries would claim it, under a lease until
 * `leaseUntil`. A delivered one was its subscription's head, so no pending row comes before its position: the next
 * head is the first pending row after it, read from there in the queue's index, past the rows delivered before it and
 * not yet vacuumed away. Only that row is claimed: one that another instance holds (SKIP LOCKED) or that is not due
 * leaves nothing claimed, never the row after it; nor does a subscription paused or disabled meanwhile. Returns the
 * deliveries claimed, one per subscription at most.
 */
export async function markWebhooksDelivered<P>(
  db: Db,
  shapes: VersionedShapes<P>,
  batch: { delivered: readonly DeliveredWebhook[]; now: Date; leaseUntil: Date },
): Promise<ClaimedWebhookDelivery<P>[]> {
  const { delivered, now, leaseUntil } = batch;
  if (delivered.length === 0) return [];
  const column = <K extends keyof DeliveredWebhook>(key: K) => delivered.map((d) => d[key]);
  const ids = column('id');
  const subscriptions = column('subscriptionId');
  const result = await sql<ClaimedRow>`${PLANNED_ON_EVERY_RUN}
    WITH delivered AS (
      UPDATE webhook_deliveries d
         SET status = 'delivered', delivered_at = ${now}, last_error = NULL,
             last_status = (${column('status')}::int[])[array_position(${ids}::uuid[], d.id)]
       WHERE d.id = ANY (${ids}::uuid[])
    ), subscription AS (
      UPDATE webhook_subscriptions s SET consecutive_failures = 0, failing_since = NULL, last_success_at = ${now}
       WHERE s.id = ANY (${subscriptions}::text[])
      RETURNING s.id, s.url, s.secret_sealed, s.enabled, s.paused_at
    ), head AS (
      SELECT h.id
        FROM unnest(${subscriptions}::text[], ${column('position')}::bigint[], ${column('claimNext')}::boolean[])
             AS i (subscription_id, position, claim_next)
        JOIN subscription s ON s.id = i.subscription_id AND s.enabled AND s.paused_at IS NULL
       CROSS JOIN LATERAL (
             SELECT h.id FROM webhook_deliveries h
              WHERE h.subscription_id = i.subscription_id AND h.status = 'pending' AND h.position > i.position
              ORDER BY h.position LIMIT 1
       ) h
       WHERE i.claim_next
    ), due AS (
      SELECT n.id
        FROM head h
       CROSS JOIN LATERAL (
             SELECT n.id FROM webhook_deliveries n
              WHERE n.id = h.id AND n.status = 'pending' AND n.next_attempt_at <= ${now}
                FOR UPDATE SKIP LOCKED
       ) n
    )
    UPDATE webhook_deliveries n SET attempts = n.attempts + 1, next_attempt_at = ${leaseUntil}
     WHERE n.id = ANY (ARRAY(SELECT id FROM due))
    RETURNING n.id, n.position, n.subscription_id, n.event_id, n.event_type, n.payload, n.attempts, n.created_at,
              (SELECT s.url FROM subscription s WHERE s.id = n.subscription_id) AS url,
              (SELECT s.secret_sealed FROM subscription s WHERE s.id = n.subscription_id) AS secret_sealed`.execute(db);
  return result.rows.map((r) => rowToClaimed(r, shapes));
}

export interface FailedWebhookAttempt {
  id: string;
  subscriptionId: string;
  /** The HTTP status of the answer, or null when there was none (a timeout, a refused connection). */
  status: number | null;
  /** What went wrong, in words safe to show an admin: never a secret, a header or the body sent. */
  error: string;
  nextAttemptAt: Date;
  now: Date;
}

/** Failed: tried again at `nextAttemptAt`; returns the subscription's failure streak (count, and since when). */
export async function markWebhookFailed(db: Db, f: FailedWebhookAttempt): Promise<{ failures: number; failingSince: Date } | undefined> {
  await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: f.nextAttemptAt, last_status: f.status, last_error: f.error })
    .where('id', '=', f.id)
    .execute();
  const row = await db
    .updateTable('webhook_subscriptions')
    .set((eb) => ({
      consecutive_failures: eb('consecutive_failures', '+', 1),
      failing_since: sql<Date>`COALESCE(failing_since, ${f.now})`,
    }))
    .where('id', '=', f.subscriptionId)
    .returning(['consecutive_failures', 'failing_since'])
    .executeTakeFirst();
  return row && { failures: row.consecutive_failures, failingSince: row.failing_since ?? f.now };
}

/** Pauses the subscription with the reason the admin will see; false when it was paused already (or is gone). */
export async function pauseWebhookSubscription(db: Db, id: string, reason: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('webhook_subscriptions')
    .set({ paused_at: now, pause_reason: reason, updated_at: now })
    .where('id', '=', id)
    .where('paused_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export type PendingWebhookFailure = Pick<WebhookDeliveryRow, 'subscription_id' | 'attempts' | 'last_status' | 'last_error'> &
  Pick<WebhookSubscriptionRow, 'failing_since'>;

/**
 * For each subscription (or the one given) whose queue is held up by a failure: its oldest pending delivery that failed (the one being
 * retried, since a subscription's deliveries go in order), with the answer of its last attempt. A success clears a
 * delivery's error, so a subscription that is not failing has none.
 */
export function pendingWebhookFailures(db: Db, subscriptionId?: string): Promise<PendingWebhookFailure[]> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
    .distinctOn('d.subscription_id')
    .select(['d.subscription_id', 's.failing_since', 'd.attempts', 'd.last_status', 'd.last_error'])
    .where('d.status', '=', 'pending')
    .where('d.last_error', 'is not', null)
    .$if(subscriptionId !== undefined, (qb) => qb.where('d.subscription_id', '=', subscriptionId!))
    .orderBy('d.subscription_id')
    .orderBy('d.position')
    .execute();
}

/** A subscription's deliveries, newest first; `status` narrows them. */
export async function listWebhookDeliveries(
  db: Db,
  subscriptionId: string,
  options: { limit: number; status?: 'pending' | 'delivered' },
): Promise<Omit<WebhookDeliveryRow, 'seq' | 'position' | 'payload'>[]> {
  let query = db
    .selectFrom('webhook_deliveries')
    .select([
      'id',
      'subscription_id',
      'event_id',
      'event_type',
      'status',
      'attempts',
      'next_attempt_at',
      'last_status',
      'last_error',
      'created_at',
      'delivered_at',
    ])
    .where('subscription_id', '=', subscriptionId);
  if (options.status) query = query.where('status', '=', options.status);
  return query.orderBy('position', 'desc').limit(options.limit).execute();
}
