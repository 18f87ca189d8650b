// A subscription's deliveries go in the order their transactions committed (issue 38), not the order they were
// inserted: two transactions that commit in the reverse of their insert order are delivered in commit order, and a
// delivery of a transaction still open is not overtaken by being numbered early (migrations/20261203030000).
// PostgreSQL only: PGlite has one session, so its transactions never overlap and insert order is commit order.
import t from 'tap';
import { DELIVERY_LEASE_SECONDS } from '../../src/domain/webhooks/delivery-policy.js';
import { EVENT_DATA } from '../../src/domain/webhooks/event-data.js';
import { emitWebhookEvent } from '../../src/domain/webhooks/emit.js';
import type { Db } from '../../src/storage/database.js';
import { claimDueWebhookDeliveries, insertWebhookSubscription, markWebhooksDelivered } from '../../src/storage/webhooks.js';
import type { Versioned } from '../../src/storage/json-shape.js';
import { createTestDatabase, onServer } from '../helpers/database.js';

const database = await createTestDatabase();
t.teardown(() => database.drop());
const db = database.handle.db;
const now = new Date('2026-12-02T12:00:00Z');
const ctx = { clock: () => now };
/** The `n` of a claimed delivery's event. */
const nOf = (d: { payload: Versioned<{ n?: unknown }> }) => (d.payload.ok ? Number(d.payload.value.n) : NaN);

/** Claims and delivers the subscription's deliveries one by one; the `n` of each, in the order sent. */
async function drain(): Promise<number[]> {
  const sent: number[] = [];
  for (;;) {
    const [head] = await claimDueWebhookDeliveries(db, EVENT_DATA, {
      now,
      leaseUntil: new Date(now.getTime() + DELIVERY_LEASE_SECONDS * 1000),
      limit: 1,
    });
    if (!head) return sent;
    sent.push(nOf(head));
    const { id, subscriptionId, position } = head;
    await markWebhooksDelivered(db, EVENT_DATA, {
      delivered: [{ id, subscriptionId, position, status: 204, claimNext: false }],
      now,
      leaseUntil: now,
    });
  }
}

/** A transaction that queues event `n` now and commits when `commit` resolves. */
function openTransaction(n: number, commit: Promise<void>): { queued: Promise<void>; done: Promise<void> } {
  let queued!: () => void;
  const isQueued = new Promise<void>((resolve) => (queued = resolve));
  const done = db.transaction().execute(async (trx: Db) => {
    await emitWebhookEvent(ctx, trx, 'user.updated', { n });
    queued();
    await commit;
  });
  return { queued: isQueued, done };
}

t.test(
  'two transactions that commit in the reverse of their insert order are delivered in commit order',
  { skip: !onServer && 'PGlite has one session: transactions never overlap' },
  async (t) => {
    await insertWebhookSubscription(db, {
      id: 'ordered',
      url: 'https://hooks.example/in',
      eventTypes: ['*'],
      secretSealed: { v: 0, clear: 'eA' },
      description: null,
      enabled: true,
      now,
    });
    let commitFirst!: () => void;
    let commitSecond!: () => void;
    const first = openTransaction(1, new Promise((resolve) => (commitFirst = resolve)));
    await first.queued;
    const second = openTransaction(2, new Promise((resolve) => (commitSecond = resolve)));
    await second.queued;
    const seqs = await db.selectFrom('webhook_deliveries').select('seq').execute();
    t.same(seqs, [], 'neither is visible before it commits');

    commitSecond();
    await second.done;
    t.same(await drain(), [2], 'the one committed first is sent, while the other is still open');
    await emitWebhookEvent(ctx, db, 'user.updated', { n: 3 });

    commitFirst();
    await first.done;
    const rows = await db.selectFrom('webhook_deliveries').select(['seq', 'position', 'payload']).orderBy('seq').execute();
    t.same(
      rows.map((r) => (r.payload as { n: number }).n),
      [1, 2, 3],
      'inserted 1, 2, 3',
    );
    t.same(await drain(), [3, 1], 'and the rest in commit order: 3 (committed before 1), then 1');
  },
);
