// Webhooks that keep up (issue 38): with the poll an hour long, ten events queued one after another, each in a
// transaction of its own, reach a receiver that answers at once within seconds and in order, since the job is woken
// by the NOTIFY of their commit and sends a subscription's next delivery as soon as the one before is delivered.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import t from 'tap';
import { buildApp } from '../../../src/app.js';
import { PasswordPolicy } from '../../../src/domain/accounts/password-policy.js';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { emitWebhookEvent } from '../../../src/domain/webhooks/emit.js';
import { addWebhook } from '../../../src/domain/webhooks/webhook-admin.js';
import { testConfig } from '../../helpers/app.js';
import { createTestDatabase } from '../../helpers/database.js';

const POLL_SECONDS = 3600;
const config = testConfig({ WEBHOOK_POLL_SECONDS: String(POLL_SECONDS) });
const database = await createTestDatabase();
const db = database.handle.db;
const log = pino({ level: 'silent' });
const clock = () => new Date();
const app = await buildApp(config, { db, logger: log, clock, listen: database.handle.listen });
await app.ready();

const received: number[] = [];
let allReceived: () => void = () => {};
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { n: number } }).data.n);
    res.writeHead(204).end();
    if (received.length === 10) allReceived();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
t.teardown(async () => {
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await app.close();
  await database.drop();
});

t.test('ten events queued in a burst arrive in order, well within one poll interval', async (t) => {
  const admin = { config, db, clock, log, passwords: new PasswordHasher(config.argon2), passwordPolicy: new PasswordPolicy() };
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  await addWebhook(admin, { id: 'burst', url, events: ['user.created'] });
  const arrived = new Promise<void>((resolve) => (allReceived = resolve));
  const started = performance.now();
  for (let n = 1; n <= 10; n += 1) await db.transaction().execute((trx) => emitWebhookEvent({ clock }, trx, 'user.created', { n }));
  const withinMs = 10_000;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), withinMs)));
  const outcome = await Promise.race([arrived.then(() => 'arrived' as const), timedOut]);
  clearTimeout(timer);
  const elapsedMs = Math.round(performance.now() - started);
  t.equal(
    outcome,
    'arrived',
    `all ten within ${withinMs / 1000} s of a ${POLL_SECONDS} s poll (got ${received.length} in ${elapsedMs} ms)`,
  );
  t.same(received, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 'in the order they were committed');
});
