// NOTIFIER=webhook: outbox messages POSTed to a relay on 127.0.0.1, signed with HMAC-SHA256 over the timestamp and
// the body; a relay that fails gets the message again later with the same id; the settings are checked at start.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import t, { type Test } from 'tap';
import { loadConfig } from '../../src/config.js';
import type { ProviderContext } from '../../src/domain/context.js';
import { deliverDueMessages } from '../../src/domain/notifications/notifier.js';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { applySeed } from '../../src/domain/admin/seed.js';
import { webhookNotifier, webhookSignature } from '../../src/domain/notifications/webhook-notifier.js';
import { systemOutbound } from '../../src/outbound/guarded-fetch.js';
import { insertOutboxMessage } from '../../src/storage/outbox.js';
import { findUserByUsername } from '../../src/storage/users.js';
import { TEST_ENV, testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';

const SECRET = 'a-webhook-secret-of-at-least-32-characters';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A relay on 127.0.0.1 that records what it gets and answers `status()`. */
async function relay(t: Test, status: () => number): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.statusCode = status();
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`, received };
}

const database = await createTestDatabase();
t.teardown(() => database.drop());
const db = database.handle.db;
const config = testConfig();
let offsetMs = 0;
const ctx = {
  config,
  db,
  clock: () => new Date(Date.now() + offsetMs),
  log: pino({ level: 'silent' }),
  outbound: systemOutbound,
} as unknown as ProviderContext;

async function newUser(): Promise<{ id: string; username: string }> {
  const username = `hook-${randomBytes(3).toString('hex')}`;
  await applySeed(db, new PasswordHasher(config.argon2), {
    clients: [],
    users: [{ username, password: 'a-password-123', email: `${username}@example.com` }],
  });
  return { id: (await findUserByUsername(db, username))!.id, username };
}

t.test('a message is POSTed as JSON with the user to reach, signed over timestamp and body', async (t) => {
  const { url, received } = await relay(t, () => 204);
  const user = await newUser();
  await insertOutboxMessage(db, { userId: user.id, kind: 'one-time-code', payload: { code: '123456' }, createdAt: ctx.clock() });
  await deliverDueMessages(ctx, webhookNotifier(ctx, { url: new URL(url), secret: SECRET }));
  t.equal(received.length, 1);
  const [{ headers, body }] = received as [Received];
  t.equal(headers['content-type'], 'application/json');
  const sent = JSON.parse(body);
  t.match(sent, {
    kind: 'one-time-code',
    user: { id: user.id, username: user.username, email: `${user.username}@example.com` },
    payload: { code: '123456' },
  });
  t.equal(headers['x-sso-message-id'], sent.id);
  const timestamp = headers['x-sso-timestamp'] as string;
  t.ok(Math.abs(Number(timestamp) - Date.now() / 1000) < 60, 'the timestamp is now, in seconds');
  t.equal(headers['x-sso-signature'], webhookSignature(SECRET, timestamp, body));
  t.not(headers['x-sso-signature'], webhookSignature('another-secret-of-at-least-32-characters', timestamp, body), 'the key matters');
  const row = await db.selectFrom('outbox').select(['sent_at', 'payload']).where('user_id', '=', user.id).executeTakeFirstOrThrow();
  t.ok(row.sent_at, 'marked sent');
  t.notMatch(JSON.stringify(row.payload), /123456/, 'the code is wiped once sent');
});

t.test('a relay that answers 500 gets the message again later, with the same id', async (t) => {
  let status = 500;
  const { url, received } = await relay(t, () => status);
  const user = await newUser();
  await insertOutboxMessage(db, { userId: user.id, kind: 'new-device', payload: { device: 'Firefox on Linux' }, createdAt: ctx.clock() });
  const notifier = webhookNotifier(ctx, { url: new URL(url), secret: SECRET });
  await deliverDueMessages(ctx, notifier);
  const pending = await db.selectFrom('outbox').select(['sent_at', 'attempts']).where('user_id', '=', user.id).executeTakeFirstOrThrow();
  t.equal(pending.sent_at, null, 'not sent');
  status = 200;
  offsetMs += 60_000;
  await deliverDueMessages(ctx, notifier);
  t.equal(received.length, 2);
  t.equal(JSON.parse(received[0]!.body).id, JSON.parse(received[1]!.body).id);
  const sent = await db.selectFrom('outbox').select('sent_at').where('user_id', '=', user.id).executeTakeFirstOrThrow();
  t.ok(sent.sent_at, 'sent on the retry');
});

t.test('NOTIFIER=webhook needs an https (or loopback http) URL without credentials and a secret of 32 characters', async (t) => {
  const load = (env: Record<string, string>) => () => loadConfig({ ...TEST_ENV, NOTIFIER: 'webhook', ...env });
  const ok = load({ NOTIFIER_WEBHOOK_URL: 'https://relay.example/notify', NOTIFIER_WEBHOOK_SECRET: SECRET })();
  t.equal(ok.notifier, 'webhook');
  t.equal(ok.notifierWebhook?.url.href, 'https://relay.example/notify');
  t.equal(
    load({ NOTIFIER_WEBHOOK_URL: 'http://127.0.0.1:8025/', NOTIFIER_WEBHOOK_SECRET: SECRET })().notifierWebhook?.url.host,
    '127.0.0.1:8025',
  );
  t.throws(load({ NOTIFIER_WEBHOOK_SECRET: SECRET }), /NOTIFIER_WEBHOOK_URL must be set/);
  t.throws(
    load({ NOTIFIER_WEBHOOK_URL: 'http://relay.example/notify', NOTIFIER_WEBHOOK_SECRET: SECRET }),
    /NOTIFIER_WEBHOOK_URL must be https/,
  );
  t.throws(load({ NOTIFIER_WEBHOOK_URL: 'https://user:pw@relay.example/', NOTIFIER_WEBHOOK_SECRET: SECRET }), /must not carry credentials/);
  t.throws(
    load({ NOTIFIER_WEBHOOK_URL: 'https://relay.example/notify', NOTIFIER_WEBHOOK_SECRET: 'short' }),
    /NOTIFIER_WEBHOOK_SECRET must be at least 32/,
  );
  t.throws(load({ NOTIFIER: 'mail' }), /NOTIFIER must be log, smtp, webhook or none/);
  t.equal(loadConfig({ ...TEST_ENV, NOTIFIER: 'none' }).notifierWebhook, null);
});
