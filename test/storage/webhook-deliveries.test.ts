// The webhook queue in the database (issue 20): an event is queued for every enabled subscription that wants it in
// one statement; only the oldest pending delivery of a subscription is ever claimed, under a lease, so that two
// instances claiming at once never take the same delivery nor two of one subscription; delivered rows are purged after
// their retention; the seed file's webhooks section stores each secret sealed and is idempotent.
import { sql } from 'kysely';
import t from 'tap';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { applySeed, parseSeed, type SeedError } from '../../src/domain/admin/seed.js';
import { openSecret } from '../../src/domain/keys/sealed-secrets.js';
import { DELIVERY_LEASE_SECONDS } from '../../src/domain/webhooks/delivery-policy.js';
import { batchedDeliveredWrites } from '../../src/domain/webhooks/delivered-writes.js';
import { EVENT_DATA, type EventData } from '../../src/domain/webhooks/event-data.js';
import { emitWebhookEvent } from '../../src/domain/webhooks/emit.js';
import { openDatabase, type Db } from '../../src/storage/database.js';
import { purgeExpired, WEBHOOK_DELIVERED_RETENTION_SECONDS } from '../../src/storage/purge.js';
import {
  claimDueWebhookDeliveries,
  insertWebhookSubscription,
  markWebhooksDelivered,
  pauseWebhookSubscription,
  type ClaimedWebhookDelivery,
} from '../../src/storage/webhooks.js';
import { testConfig } from '../helpers/app.js';
import type { Versioned } from '../../src/storage/json-shape.js';
import { createTestDatabase, onServer } from '../helpers/database.js';

const config = testConfig();
const database = await createTestDatabase();
t.teardown(() => database.drop());
const db = database.handle.db;
const now = new Date('2026-11-28T12:00:00Z');
const ctx = { clock: () => now };
/** Records `d` delivered (status 200) and, unless told not to, claims its subscription's next delivery. */
async function deliver(
  d: ClaimedWebhookDelivery,
  options: { at?: Date; claimNext?: boolean } = {},
): Promise<ClaimedWebhookDelivery<EventData> | undefined> {
  const { id, subscriptionId, position } = d;
  const [next] = await markWebhooksDelivered(db, EVENT_DATA, {
    delivered: [{ id, subscriptionId, position, status: 200, claimNext: options.claimNext ?? true }],
    now: options.at ?? now,
    leaseUntil: lease,
  });
  return next;
}
/** The `n` of a claimed delivery's event. */
const nOf = (d: { payload: Versioned<{ n?: unknown }> }) => (d.payload.ok ? Number(d.payload.value.n) : NaN);
const later = (seconds: number) => new Date(now.getTime() + seconds * 1000);
const lease = later(DELIVERY_LEASE_SECONDS);

async function subscribe(id: string, events: string[], enabled = true): Promise<void> {
  await insertWebhookSubscription(db, {
    id,
    url: 'https://hooks.example/in',
    eventTypes: events,
    secretSealed: { v: 0, clear: 'eA' },
    description: null,
    enabled,
    now,
  });
}

async function clear(): Promise<void> {
  await db.deleteFrom('webhook_subscriptions').execute();
}

t.test('an event is queued once for each enabled subscription that wants its type, or "*"', async (t) => {
  await clear();
  await subscribe('users', ['user.created', 'user.deleted']);
  await subscribe('everything', ['*']);
  await subscribe('sign-ins', ['sign_in.succeeded']);
  await subscribe('off', ['user.created'], false);
  t.equal(await emitWebhookEvent(ctx, db, 'user.created', { user_id: 'u1' }), 2);
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['subscription_id', 'event_id', 'event_type', 'status'])
    .orderBy('subscription_id')
    .execute();
  t.same(
    rows.map((r) => [r.subscription_id, r.event_type, r.status]),
    [
      ['everything', 'user.created', 'pending'],
      ['users', 'user.created', 'pending'],
    ],
  );
  t.equal(rows[0]!.event_id, rows[1]!.event_id, 'one event id for the event, one delivery id per subscription');
});

t.test('only the oldest pending delivery of each subscription is claimed, and a leased one is not claimed again', async (t) => {
  await clear();
  await subscribe('a', ['*']);
  await subscribe('b', ['*']);
  for (const n of [1, 2, 3]) await emitWebhookEvent(ctx, db, 'user.updated', { n });
  const first = await claimDueWebhookDeliveries(db, EVENT_DATA, { now, leaseUntil: lease, limit: 50 });
  t.same(first.map((d) => [d.subscriptionId, nOf(d), d.attempts]).sort(), [
    ['a', 1, 1],
    ['b', 1, 1],
  ]);
  t.same(
    await claimDueWebhookDeliveries(db, EVENT_DATA, { now, leaseUntil: lease, limit: 50 }),
    [],
    'leased: neither it nor the next of its subscription',
  );
  const again = await claimDueWebhookDeliveries(db, EVENT_DATA, {
    now: later(DELIVERY_LEASE_SECONDS + 1),
    leaseUntil: later(2 * DELIVERY_LEASE_SECONDS + 1),
    limit: 50,
  });
  t.same(
    again.map((d) => [d.id, d.attempts]).sort(),
    first.map((d) => [d.id, 2]).sort(),
    'an instance that died mid-send leaves its delivery to be tried again once the lease is over, with the same id',
  );
  const a = again.find((d) => d.subscriptionId === 'a')!;
  await deliver(a, { claimNext: false });
  const next = await claimDueWebhookDeliveries(db, EVENT_DATA, {
    now: later(3 * DELIVERY_LEASE_SECONDS),
    leaseUntil: later(4 * DELIVERY_LEASE_SECONDS),
    limit: 50,
  });
  t.same(
    next.map((d) => [d.subscriptionId, nOf(d)]).sort(),
    [
      ['a', 2],
      ['b', 1],
    ],
    "once delivered, the subscription's next event is its head",
  );
});

t.test('two instances claiming at once never take the same delivery, nor two of one subscription', async (t) => {
  await clear();
  const second = database.url ? await openDatabase({ url: database.url, dataDir: 'memory://', poolMax: 4 }) : undefined;
  t.teardown(() => second?.close());
  const ids = Array.from({ length: 12 }, (_, i) => `s${String(i).padStart(2, '0')}`);
  for (const id of ids) await subscribe(id, ['*']);
  for (const n of [1, 2]) await emitWebhookEvent(ctx, db, 'client.changed', { n });
  const claim = (on: Db) => claimDueWebhookDeliveries(on, EVENT_DATA, { now, leaseUntil: lease, limit: 50 });
  const [x, y] = await Promise.all([claim(db), claim(second?.db ?? db)]);
  const claimed = [...x, ...y];
  t.same(claimed.map((d) => d.subscriptionId).sort(), ids, `each subscription's head once (${x.length} + ${y.length})`);
  t.ok(
    claimed.every((d) => nOf(d) === 1),
    'and never its second event',
  );
});

t.test('marking a delivery delivered claims the next of its subscription in the same statement', async (t) => {
  await clear();
  await subscribe('a', ['*']);
  await subscribe('b', ['*']);
  for (const n of [1, 2, 3]) await emitWebhookEvent(ctx, db, 'user.updated', { n });
  const heads = await claimDueWebhookDeliveries(db, EVENT_DATA, { now, leaseUntil: lease, limit: 50 });
  const a = heads.find((d) => d.subscriptionId === 'a')!;
  const next = await deliver(a!);
  t.same(
    next && [next.subscriptionId, nOf(next), next.attempts, next.url],
    ['a', 2, 1, 'https://hooks.example/in'],
    "the subscription's second event, its first attempt, to the subscription's URL",
  );
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['subscription_id', 'payload', 'status', 'last_status', 'next_attempt_at'])
    .orderBy('subscription_id')
    .orderBy('position')
    .execute();
  t.same(
    rows.map((r) => [
      r.subscription_id,
      (r.payload as { n: number }).n,
      r.status,
      r.last_status,
      r.next_attempt_at.getTime() === lease.getTime(),
    ]),
    [
      ['a', 1, 'delivered', 200, true],
      ['a', 2, 'pending', null, true],
      ['a', 3, 'pending', null, false],
      ['b', 1, 'pending', null, true],
      ['b', 2, 'pending', null, false],
      ['b', 3, 'pending', null, false],
    ],
    'the first delivered, the second leased, nothing else touched',
  );
  const subscription = await db
    .selectFrom('webhook_subscriptions')
    .select('last_success_at')
    .where('id', '=', 'a')
    .executeTakeFirstOrThrow();
  t.same(subscription.last_success_at, now, 'its last success recorded');
});

t.test('deliveries of several subscriptions are recorded in one statement, each claiming its own next', async (t) => {
  await clear();
  for (const id of ['x', 'y', 'z']) await subscribe(id, ['*']);
  for (const n of [1, 2]) await emitWebhookEvent(ctx, db, 'user.updated', { n });
  const heads = await claimDueWebhookDeliveries(db, EVENT_DATA, { now, leaseUntil: lease, limit: 50 });
  const claimed = await markWebhooksDelivered(db, EVENT_DATA, {
    delivered: heads.map((h) => ({
      id: h.id,
      subscriptionId: h.subscriptionId,
      position: h.position,
      status: 204,
      claimNext: h.subscriptionId !== 'z',
    })),
    now,
    leaseUntil: lease,
  });
  t.same(
    claimed.map((c) => [c.subscriptionId, nOf(c)]).sort(),
    [
      ['x', 2],
      ['y', 2],
    ],
    "the next of each that asked for it, and nothing of z's",
  );
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['subscription_id', 'status', 'attempts'])
    .orderBy('subscription_id')
    .orderBy('position')
    .execute();
  t.same(
    rows.map((r) => [r.subscription_id, r.status, r.attempts]),
    [
      ['x', 'delivered', 1],
      ['x', 'pending', 1],
      ['y', 'delivered', 1],
      ['y', 'pending', 1],
      ['z', 'delivered', 1],
      ['z', 'pending', 0],
    ],
  );
});

t.test('deliveries recorded while a write is on its way go together in the next write, each told its own next', async (t) => {
  await clear();
  const ids = ['b1', 'b2', 'b3', 'b4'];
  for (const id of ids) await subscribe(id, ['*']);
  for (const n of [1, 2]) await emitWebhookEvent(ctx, db, 'user.updated', { n });
  const heads = await claimDueWebhookDeliveries(db, EVENT_DATA, { now, leaseUntil: lease, limit: 50 });
  let statements = 0;
  const counted = db.withPlugin({
    transformQuery: (args) => {
      statements += 1;
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  const write = batchedDeliveredWrites({ db: counted, clock: () => now });
  const nexts = await Promise.all(
    heads.map((h) => write({ id: h.id, subscriptionId: h.subscriptionId, position: h.position, status: 204, claimNext: true })),
  );
  t.same(
    nexts.map((next) => [next?.subscriptionId, next && nOf(next)]),
    heads.map((h) => [h.subscriptionId, 2]),
    "each resolved with its own subscription's second event",
  );
  t.equal(statements, 2, 'the first alone, the three that came while it was on its way in one more');
});

t.test('a subscription paused while its delivery was sent gets that one marked and no next one claimed', async (t) => {
  await clear();
  await subscribe('p', ['*']);
  for (const n of [1, 2]) await emitWebhookEvent(ctx, db, 'user.updated', { n });
  const [head] = await claimDueWebhookDeliveries(db, EVENT_DATA, { now, leaseUntil: lease, limit: 1 });
  await pauseWebhookSubscription(db, 'p', 'by hand', now);
  const next = await deliver(head!);
  t.equal(next, undefined, 'nothing claimed');
  const rows = await db.selectFrom('webhook_deliveries').select(['status', 'attempts']).orderBy('position').execute();
  t.same(
    rows.map((r) => [r.status, r.attempts]),
    [
      ['delivered', 1],
      ['pending', 0],
    ],
  );
});

t.test(
  'a next delivery another instance holds is not claimed, and neither is the one after it',
  { skip: !onServer && 'PGlite has one session: no other instance holds a row' },
  async (t) => {
    await clear();
    await subscribe('held', ['*']);
    for (const n of [1, 2, 3]) await emitWebhookEvent(ctx, db, 'user.updated', { n });
    const [head] = await claimDueWebhookDeliveries(db, EVENT_DATA, { now, leaseUntil: lease, limit: 1 });
    const other = await openDatabase({ url: database.url!, dataDir: 'memory://', poolMax: 1 });
    t.teardown(() => other.close());
    let release!: () => void;
    let held!: () => void;
    const isHeld = new Promise<void>((resolve) => (held = resolve));
    const holding = other.db.transaction().execute(async (trx: Db) => {
      await trx
        .selectFrom('webhook_deliveries')
        .select('id')
        .where(sql<boolean>`payload = '{"n": 2}'::jsonb`)
        .forUpdate()
        .execute();
      held();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await isHeld;
    const next = await deliver(head!);
    release();
    await holding;
    t.equal(next, undefined, 'the held one is skipped, and the one after it is not taken in its place');
    const attempts = await db.selectFrom('webhook_deliveries').select('attempts').orderBy('position').execute();
    t.same(
      attempts.map((r) => r.attempts),
      [1, 0, 0],
    );
  },
);

t.test("a delivery's stored payload is read back through its shapes: today's as stored, any other refused by its path", async (t) => {
  const cases: Array<[stored: unknown, read: Versioned<Record<string, unknown>>]> = [
    [
      { n: 1, user_id: 'u1', changes: ['email'] },
      { ok: true, value: { n: 1, user_id: 'u1', changes: ['email'] } },
    ],
    [
      { v: 1, n: 1 },
      { ok: true, value: { n: 1 } },
    ],
    [
      { v: 2, data: { n: 1 } },
      { ok: false, reason: 'unknown version 2' },
    ],
    [[1, 2], { ok: false, reason: 'unexpected value at $' }],
    ['a string', { ok: false, reason: 'unexpected value at $' }],
  ];
  for (const [stored, read] of cases) {
    await clear();
    await subscribe('shaped', ['*']);
    await emitWebhookEvent(ctx, db, 'user.updated', { n: 0 });
    await db
      .updateTable('webhook_deliveries')
      .set({ payload: JSON.stringify(stored) })
      .execute();
    const [claimed] = await claimDueWebhookDeliveries(db, EVENT_DATA, { now, leaseUntil: lease, limit: 1 });
    t.same(claimed?.payload, read, JSON.stringify(stored));
  }
});

t.test(
  'the statements over the queue are planned on every run, never kept as a plan made while the queue was small',
  { skip: !onServer && 'PGlite: no prepared statements' },
  async (t) => {
    await clear();
    await subscribe('planned', ['*']);
    for (let n = 1; n <= 8; n += 1) await emitWebhookEvent(ctx, db, 'user.updated', { n });
    // One connection, so that the statements and the look at pg_prepared_statements share it.
    await db.connection().execute(async (conn) => {
      await conn.selectFrom('webhook_subscriptions').select('id').where('id', '=', 'planned').execute();
      let [head] = await claimDueWebhookDeliveries(conn, EVENT_DATA, { now, leaseUntil: lease, limit: 1 });
      for (let runs = 0; head && runs < 7; runs += 1) {
        const { id, subscriptionId, position } = head;
        [head] = await markWebhooksDelivered(conn, EVENT_DATA, {
          delivered: [{ id, subscriptionId, position, status: 200, claimNext: true }],
          now,
          leaseUntil: lease,
        });
        await claimDueWebhookDeliveries(conn, EVENT_DATA, { now, leaseUntil: lease, limit: 1 });
      }
      const prepared = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(conn);
      t.ok(
        prepared.rows.some((r) => r.statement.startsWith('select "id" from "webhook_subscriptions"')),
        'a plain statement is prepared (the check sees them)',
      );
      t.same(
        prepared.rows.filter((r) => /WITH (heads|input)\b/.test(r.statement)).map((r) => r.statement.slice(0, 60)),
        [],
        'neither the claim nor the record of deliveries is a named statement',
      );
    });
  },
);

t.test('delivered rows go after their retention; pending ones stay however old', async (t) => {
  await clear();
  await subscribe('p', ['*']);
  const old = new Date(now.getTime() - (WEBHOOK_DELIVERED_RETENTION_SECONDS + 60) * 1000);
  await emitWebhookEvent({ clock: () => old }, db, 'user.deleted', { n: 1 });
  await emitWebhookEvent({ clock: () => old }, db, 'user.deleted', { n: 2 });
  const [head] = await claimDueWebhookDeliveries(db, EVENT_DATA, { now, leaseUntil: lease, limit: 1 });
  await deliver(head!, { at: old, claimNext: false });
  const retention = {
    accessTokenTtlSeconds: 3600,
    signInAttemptRetentionSeconds: 3600,
    oneTimeCodeTtlSeconds: 300,
    passwordResetTtlSeconds: 3600,
    signupTtlSeconds: 3600,
    securityEventRetentionSeconds: 86_400 * 90,
  };
  const deleted = await purgeExpired(db, { now, ...retention });
  t.equal(deleted.webhook_deliveries, 1);
  const left = await db.selectFrom('webhook_deliveries').select('status').execute();
  t.same(
    left.map((r) => r.status),
    ['pending'],
  );
});

t.test('the seed file stores each subscription with its secret sealed, and a second run changes nothing', async (t) => {
  await clear();
  const secret = 'a-seeded-webhook-secret-of-32-characters-or-more';
  const seed = parseSeed({
    webhooks: [{ id: 'siem', url: 'https://siem.example/in', events: ['sign_in.failed', 'risk.blocked'], secret }],
  });
  const sealing = { keysEncryptionSecret: 'a-keys-encryption-secret-of-some-length-0123456789' };
  const hasher = new PasswordHasher(config.argon2);
  t.same((await applySeed(db, hasher, seed, now, sealing)).webhooks, { created: 1, updated: 0, unchanged: 0 });
  t.same((await applySeed(db, hasher, seed, now, sealing)).webhooks, { created: 0, updated: 0, unchanged: 1 });
  const row = await db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', 'siem').executeTakeFirstOrThrow();
  t.notMatch(JSON.stringify(row.secret_sealed), secret, 'not in the clear');
  const opened = await openSecret({ db, clock: () => now, config: sealing }, 'webhook-secret', 'siem', row.secret_sealed);
  t.equal(opened.toString('utf8'), secret);
  const changed = parseSeed({ webhooks: [{ id: 'siem', url: 'https://siem.example/in', events: ['*'], secret }] });
  t.same((await applySeed(db, hasher, changed, now, sealing)).webhooks, { created: 0, updated: 1, unchanged: 0 });
  const refused = (() => {
    try {
      parseSeed({ webhooks: [{ id: 'siem', url: 'https://10.1.2.3/in', events: ['*'] }] });
      return [];
    } catch (err) {
      return (err as SeedError).problems;
    }
  })();
  t.same(refused, [
    'webhooks[0]: url must not point to this machine or a private network (its host is a private address)',
    'webhooks[0]: secret must be 32 to 1024 characters',
  ]);
});
