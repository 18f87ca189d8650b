// The outbox that carries one-time codes and new-device notices (issue 5: "a pluggable notifier (an outbox table)"):
// delivery wipes the payload, a failing notifier is retried with growing waits while the message is of use and then
// given up (payload wiped),
// and two instances delivering at once send each message once.
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import t from 'tap';
import type { ProviderContext } from '../../src/domain/context.js';
import { deliverDueMessages, type Notifier } from '../../src/domain/notifications/notifier.js';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { applySeed } from '../../src/domain/admin/seed.js';
import { openDatabase } from '../../src/storage/database.js';
import type { Db } from '../../src/storage/database.js';
import { insertOutboxMessage, type ClaimedMessage } from '../../src/storage/outbox.js';
import { findUserByUsername } from '../../src/storage/users.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';

const config = testConfig();
const database = await createTestDatabase();
t.teardown(() => database.drop());
const db = database.handle.db;
let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);
const ctxOn = (on: Db) => ({ config, db: on, clock, log: pino({ level: 'silent' }) }) as unknown as ProviderContext;
const ctx = ctxOn(db);

async function newUserId(): Promise<string> {
  const username = `outbox-${randomBytes(3).toString('hex')}`;
  await applySeed(db, new PasswordHasher(config.argon2), { clients: [], users: [{ username, password: 'a-password-123' }] });
  return (await findUserByUsername(db, username))!.id;
}

async function row(userId: string) {
  const r = await db.selectFrom('outbox').selectAll().where('user_id', '=', userId).executeTakeFirstOrThrow();
  return { ...r, payload: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as Record<string, unknown> };
}

const collect = (into: ClaimedMessage[]): Notifier => ({ send: async (m) => void into.push(m) });
const failing: Notifier = { send: async () => Promise.reject(new Error('mail server down')) };

t.test('a delivered message reaches the notifier once, is marked sent, and its payload is wiped', async (t) => {
  const userId = await newUserId();
  await insertOutboxMessage(db, { userId, kind: 'one-time-code', payload: { code: '123456' }, createdAt: clock() });
  const sent: ClaimedMessage[] = [];
  await deliverDueMessages(ctx, collect(sent));
  await deliverDueMessages(ctx, collect(sent));
  t.same(
    sent.filter((m) => m.userId === userId).map((m) => m.payload),
    [{ code: '123456' }],
    'sent once',
  );
  const r = await row(userId);
  t.ok(r.sent_at);
  t.same(r.payload, {}, 'no code stays at rest');
});

t.test(
  'a failed one-time code is tried again after doubling waits while it can be typed, then given up with its payload wiped',
  async (t) => {
    const userId = await newUserId();
    await insertOutboxMessage(db, { userId, kind: 'one-time-code', payload: { code: '654321' }, createdAt: clock() });
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 20; attempt += 1) {
      await deliverDueMessages(ctx, failing);
      const r = await row(userId);
      t.equal(r.attempts, attempt, `attempt ${attempt} counted`);
      if (r.next_attempt_at.getUTCFullYear() === 9999) break;
      const wait = Math.round((r.next_attempt_at.getTime() - clock().getTime()) / 1000);
      waits.push(wait);
      offsetMs += wait * 1000;
    }
    t.same(waits, [2, 4, 8, 16, 32, 64, 128], 'waits double; the next (256 s) would end past the code’s 300 s');
    const given = await row(userId);
    t.same(given.payload, {}, 'given up: the code is wiped');
    t.equal(given.sent_at, null, 'and never marked as sent');
    const sent: ClaimedMessage[] = [];
    offsetMs += 86_400_000;
    await deliverDueMessages(ctx, collect(sent));
    t.equal(sent.filter((m) => m.userId === userId).length, 0, 'never tried again');
  },
);

t.test('a notice is tried for a day, at least every five minutes: a mail server down for an hour gets it when it is back', async (t) => {
  const userId = await newUserId();
  const queued = clock();
  await insertOutboxMessage(db, {
    userId,
    kind: 'new-device',
    payload: { device: 'Firefox on Linux', at: queued.toISOString() },
    createdAt: queued,
  });
  let attempts = 0;
  let longest = 0;
  while (clock().getTime() - queued.getTime() < 3600_000) {
    await deliverDueMessages(ctx, failing);
    const r = await row(userId);
    attempts = r.attempts;
    const wait = r.next_attempt_at.getTime() - clock().getTime();
    longest = Math.max(longest, Math.round(wait / 1000));
    offsetMs += wait;
  }
  t.equal(longest, 300, 'the wait stops growing at five minutes');
  t.ok(attempts > 10, `${attempts} attempts in the hour`);
  const sent: ClaimedMessage[] = [];
  await deliverDueMessages(ctx, collect(sent));
  t.same(
    sent.filter((m) => m.userId === userId).map((m) => m.kind),
    ['new-device'],
    'delivered once the server is back',
  );
});

t.test('two instances delivering at once send each message exactly once (SKIP LOCKED)', async (t) => {
  const second = database.url ? await openDatabase({ url: database.url, dataDir: 'memory://', poolMax: 4 }) : undefined;
  t.teardown(() => second?.close());
  const userId = await newUserId();
  for (let i = 0; i < 30; i += 1) await insertOutboxMessage(db, { userId, kind: 'new-device', payload: { n: i }, createdAt: clock() });
  const a: ClaimedMessage[] = [];
  const b: ClaimedMessage[] = [];
  await Promise.all([deliverDueMessages(ctx, collect(a)), deliverDueMessages(ctxOn(second?.db ?? db), collect(b))]);
  const numbers = [...a, ...b]
    .filter((m) => m.userId === userId)
    .map((m) => m.payload.n as number)
    .sort((x, y) => x - y);
  t.same(
    numbers,
    Array.from({ length: 30 }, (_, i) => i),
    `every message once (${a.length} + ${b.length})`,
  );
});
