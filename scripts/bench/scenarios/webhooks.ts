// The webhooks scenario (issue 38): --webhook-events events (user.updated), each queued in a transaction of its own
// as a change queues it, to N receivers on 127.0.0.1 (N is the run's concurrency: --concurrency=1,20), one
// subscription each; measured from the first commit to the last receiver's 2xx. An operation is one delivery; its
// latency runs from its event's commit to its receiver's answer. Every receiver must get every event, in the order
// committed (a repeat may only follow itself: at least once); anything lost or reordered is an error of the run.
// The bench writes the events straight into the database the server uses, so it needs PostgreSQL.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { applySeed, parseSeed } from '../../../src/domain/admin/seed.js';
import { emitWebhookEvent } from '../../../src/domain/webhooks/emit.js';
import type { Database } from '../../../src/storage/schema.js';
import { newHistogram } from '../closed-loop.js';
import { BenchError, ErrorTally } from '../errors.js';
import { beginRun, peakRss, type BenchContext, type Scenario, type ScenarioRun } from './scenario.js';

const SECRET = 'bench-webhook-secret-of-at-least-32-characters';
/** Receivers given up on when the last event has not reached them this long after the last commit. */
const DRAIN_TIMEOUT_MS = 300_000;

interface Receiver {
  server: http.Server;
  url: string;
  /** The event number of each delivery, as received. */
  got: number[];
  /** When each event first arrived (performance.now()). */
  firstAt: Map<number, number>;
}

async function startReceiver(onDelivery: () => void): Promise<Receiver> {
  const receiver: Receiver = { server: http.createServer(), url: '', got: [], firstAt: new Map() };
  receiver.server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { n: number } }).data.n;
      receiver.got.push(n);
      if (!receiver.firstAt.has(n)) receiver.firstAt.set(n, performance.now());
      res.writeHead(204).end();
      onDelivery();
    });
  });
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

/** Lost: events that never came; reordered: deliveries of an event other than the last one's or the next one. */
function audit(got: readonly number[], events: number): { lost: number; reordered: number; repeats: number } {
  let expected = 1;
  let reordered = 0;
  let repeats = 0;
  for (const n of got) {
    if (n === expected) expected += 1;
    else if (n === expected - 1) repeats += 1;
    else reordered += 1;
  }
  return { lost: events - (expected - 1), reordered, repeats };
}

export const webhooks: Scenario = {
  name: 'webhooks',
  unit: 'deliveries',
  async run(ctx: BenchContext, receivers: number): Promise<ScenarioRun> {
    const { databaseUrl, keysEncryptionSecret } = ctx;
    if (!databaseUrl) throw new Error('the webhooks scenario writes its events into PostgreSQL: it needs a database URL');
    const events = ctx.options.webhookEvents;
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    // The database is dropped at the end of the bench (or on an interrupt): a connection it cuts is no crash.
    pool.on('error', () => {});
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const started: Receiver[] = [];
    const ids = Array.from({ length: receivers }, (_, i) => `bench-webhook-${String(i + 1).padStart(2, '0')}`);
    try {
      const { peakRssSinceStart } = beginRun(ctx);
      const total = events * receivers;
      let delivered = 0;
      let allDelivered: () => void = () => {};
      const done = new Promise<void>((resolve) => (allDelivered = resolve));
      for (let i = 0; i < receivers; i += 1)
        started.push(
          await startReceiver(() => {
            delivered += 1;
            if (delivered >= total && started.every((r) => r.firstAt.size === events)) allDelivered();
          }),
        );
      const seed = parseSeed({ webhooks: started.map((r, i) => ({ id: ids[i], url: r.url, events: ['user.updated'], secret: SECRET })) });
      await applySeed(db, new PasswordHasher({ memoryKiB: 8, timeCost: 1, parallelism: 1 }), seed, new Date(), { keysEncryptionSecret });

      const committedAt = new Array<number>(events + 1);
      const cpu = ctx.meter.emptyWindow();
      const mark = ctx.meter.begin();
      const start = performance.now();
      for (let n = 1; n <= events; n += 1) {
        await db.transaction().execute((trx) => emitWebhookEvent({ clock: () => new Date() }, trx, 'user.updated', { n }));
        committedAt[n] = performance.now();
      }
      const queuedS = (performance.now() - start) / 1000;
      let timer: NodeJS.Timeout | undefined;
      const drained = await Promise.race([
        done.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), DRAIN_TIMEOUT_MS))),
      ]);
      clearTimeout(timer);
      const end = Math.max(start, ...started.flatMap((r) => [...r.firstAt.values()]));
      ctx.meter.end(mark, cpu);

      const hist = newHistogram();
      const errors = new ErrorTally();
      let repeats = 0;
      for (const [i, r] of started.entries()) {
        for (const [n, at] of r.firstAt) hist.record(Math.max(1, Math.round((at - committedAt[n]!) * 1e6)));
        const a = audit(r.got, events);
        repeats += a.repeats;
        if (a.lost > 0) errors.add(new BenchError('webhook_lost', `${ids[i]}: ${a.lost} of ${events} events never arrived`));
        if (a.reordered > 0) errors.add(new BenchError('webhook_reordered', `${ids[i]}: ${a.reordered} deliveries out of order`));
      }
      const elapsedS = (end - start) / 1000;
      return {
        ops: started.reduce((sum, r) => sum + r.firstAt.size, 0),
        elapsedS,
        aborted: !drained,
        hist,
        errors,
        otherErrors: new ErrorTally(),
        cpu,
        peakRssKiB: peakRss(ctx),
        peakRssSinceStart,
        notes: { events, receivers, queuedS: Math.round(queuedS * 1000) / 1000, endToEndS: Math.round(elapsedS * 1000) / 1000, repeats },
      };
    } finally {
      await db.deleteFrom('webhook_subscriptions').where('id', 'in', ids).execute();
      await db.destroy();
      for (const r of started) {
        r.server.closeAllConnections();
        r.server.close();
      }
    }
  },
};
