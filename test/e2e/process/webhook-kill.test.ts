// Webhooks across a kill -9 (issue 38): the built server sends a subscription's events to a receiver on 127.0.0.1
// while it is killed with SIGKILL mid-delivery and started again; on PostgreSQL the database also cuts every
// connection of the server while it sends (as a restart of the database does: the pool's and the listener's). Every
// event arrives, in the order it was committed; one may arrive twice, under its one id, right after itself (at least
// once: the delivery the killed process had sent but not yet recorded). On PGlite the database restarts with the
// process that embeds it.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import t from 'tap';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { applySeed, parseSeed } from '../../../src/domain/admin/seed.js';
import { emitWebhookEvent } from '../../../src/domain/webhooks/emit.js';
import { openDatabase, type Db } from '../../../src/storage/database.js';
import { migrateToLatest } from '../../../src/storage/migrate.js';
import { testConfig } from '../../helpers/app.js';
import { spawnServer } from '../../helpers/child-process.js';
import { createTestDatabase, onServer } from '../../helpers/database.js';
import { UNREACHED_SERVER_ENV } from '../../helpers/listening.js';

const EVENTS = 120;
const KEYS_ENCRYPTION_SECRET = 'webhook-kill-secret-0123456789-ABCDEF-xyz';
const SECRET = 'a-webhook-secret-of-at-least-32-characters-0123';

/** Polls `probe` until it is true, or fails after `ms` naming what it waited for. */
async function until(what: string, ms: number, probe: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`gave up after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The built server, on a port the kernel picks (no request is sent to it); resolves once it logs that it is ready. */
async function startServer(env: Record<string, string>): Promise<ChildProcess> {
  const child = await spawnServer({ ...UNREACHED_SERVER_ENV, ...env });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (/ ready on /.test(out)) resolve();
    });
    child.stderr!.resume();
    child.once('exit', (code) => reject(new Error(`the server exited with ${code} before it was ready: ${out}`)));
  });
  return child;
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

const received: Array<{ id: string; n: number }> = [];
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; data: { n: number } };
    received.push({ id: body.id, n: body.data.n });
    // A little while in flight, so that the kill comes in the middle of a delivery.
    setTimeout(() => res.writeHead(204).end(), 10);
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
t.teardown(async () => {
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});
const distinct = () => new Set(received.map((r) => r.n)).size;

t.test('nothing is lost or reordered across a kill -9 of the server and its database going away', { timeout: 400_000 }, async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sso-webhook-kill-'));
  const servers: ChildProcess[] = [];
  const database = onServer ? await createTestDatabase() : undefined;
  t.teardown(async () => {
    await Promise.all(servers.map(killed));
    await database?.drop();
    await fs.rm(dir, { recursive: true, force: true });
  });
  const embedded = database ? undefined : await openDatabase({ dataDir: dir });
  const db: Db = database?.handle.db ?? embedded!.db;
  if (embedded) await migrateToLatest(db);
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  await applySeed(
    db,
    new PasswordHasher(testConfig().argon2),
    parseSeed({ webhooks: [{ id: 'kept', url, events: ['user.updated'], secret: SECRET }] }),
    new Date(),
    { keysEncryptionSecret: KEYS_ENCRYPTION_SECRET },
  );
  const clock = () => new Date();
  const queue = async (from: number, to: number) => {
    for (let n = from; n <= to; n += 1) await db.transaction().execute((trx) => emitWebhookEvent({ clock }, trx, 'user.updated', { n }));
  };
  // PGlite: every event before the server opens the folder; PostgreSQL: half of them while it runs.
  await queue(1, embedded ? EVENTS : EVENTS / 2);
  await embedded?.close();

  const env = {
    DATA_DIR: dir,
    ...(database ? { DATABASE_URL: database.url! } : {}),
    KEYS_ENCRYPTION_SECRET,
    WEBHOOK_POLL_SECONDS: '1',
  };
  servers.push(await startServer(env));
  if (database) {
    await until('the first deliveries', 60_000, () => distinct() >= EVENTS / 8);
    // What a restart of the database does to the server: every connection of its, pooled or listening, is cut.
    const { rows } = await sql<{ n: number }>`
      SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`.execute(db);
    t.ok(rows[0]!.n >= 1, `the server's connections were cut (${rows[0]!.n})`);
    // The rest queued once the server reconnects: woken by its listener, which must have reconnected, or its poll.
    await queue(EVENTS / 2 + 1, EVENTS);
  }
  await until('half of the deliveries', 120_000, () => distinct() >= EVENTS / 2);
  const beforeKill = received.length;
  await killed(servers[0]!);
  t.ok(distinct() < EVENTS, `killed with ${EVENTS - distinct()} events still to deliver (${beforeKill} received)`);

  servers.push(await startServer(env));
  await until('every delivery after the restart', 180_000, () => distinct() === EVENTS);
  await new Promise((resolve) => setTimeout(resolve, 1500));

  const order = received.map((r) => r.n).filter((n, i, all) => i === 0 || all[i - 1] !== n);
  t.same(
    order,
    Array.from({ length: EVENTS }, (_, i) => i + 1),
    'each event once, in commit order, but for a repeat right after itself',
  );
  const idsOf = new Map<number, Set<string>>();
  for (const r of received) idsOf.set(r.n, (idsOf.get(r.n) ?? new Set()).add(r.id));
  t.ok(
    [...idsOf.values()].every((ids) => ids.size === 1),
    `a repeat carries the same delivery id (${received.length - EVENTS} repeats)`,
  );
});
