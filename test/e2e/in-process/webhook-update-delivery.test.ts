// An updated subscription keeps its pending deliveries, and they go out as it is now (src/domain/webhooks/
// webhook-admin.ts updateWebhook): a receiver on 127.0.0.1 gets a delivery queued before the update at the new URL,
// signed with the rotated secret (checked as docs/webhooks.md says), which the old secret does not verify; a paused
// subscription sends nothing until it is resumed. The job's rounds are called here with the test's own clock.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import t from 'tap';
import type { AdminContext } from '../../../src/domain/admin/admin.js';
import { PasswordPolicy } from '../../../src/domain/accounts/password-policy.js';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { deliverDueWebhooks } from '../../../src/domain/webhooks/deliver.js';
import { emitWebhookEvent } from '../../../src/domain/webhooks/emit.js';
import { addWebhook, pauseWebhook, resumeWebhook, showWebhook, updateWebhook } from '../../../src/domain/webhooks/webhook-admin.js';
import { systemOutbound } from '../../../src/outbound/guarded-fetch.js';
import { buildTestApp } from '../../helpers/app.js';

const clock = () => new Date();
const { db, config } = await buildTestApp(t, { env: { WEBHOOK_POLL_SECONDS: '0' }, clock });
const log = pino({ level: 'silent' });
const admin: AdminContext = {
  config,
  db,
  clock,
  log,
  passwords: new PasswordHasher(config.argon2),
  passwordPolicy: new PasswordPolicy(config.passwordPolicy),
};
const round = () => deliverDueWebhooks({ db, clock, config, outbound: systemOutbound, log }, { timeoutMs: 2000, random: () => 1 });

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
const received: Received[] = [];
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
t.teardown(async () => {
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

/** The receiver's check of docs/webhooks.md: HMAC-SHA256 over "<timestamp>.<body>", compared in constant time. */
function verifies(r: Received, secret: string): boolean {
  const timestamp = String(r.headers['x-sso-timestamp']);
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${timestamp}.${r.body}`).digest('hex')}`);
  const given = Buffer.from(String(r.headers['x-sso-signature']));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

t.test('a delivery queued before an update goes to the new URL, signed with the rotated secret only', async (t) => {
  const { secret: old } = await addWebhook(admin, { id: 'recv', url: `${receiverUrl}/old`, events: ['user.created'] });
  await emitWebhookEvent({ clock }, db, 'user.created', { username: 'carol' });

  const { secret, changed } = await updateWebhook(admin, 'recv', { url: `${receiverUrl}/new`, rotateSecret: true });
  t.same(changed, ['url', 'secret']);
  t.match(secret, /^[\w-]{43}$/);
  t.match(await round(), [{ outcome: 'delivered', status: 204 }]);
  t.equal(received.length, 1);
  const [r] = received;
  t.equal(r!.path, '/new', 'sent to the URL the subscription has now');
  t.equal(JSON.parse(r!.body).data.username, 'carol', 'the delivery queued before the update');
  t.ok(verifies(r!, secret!), 'the receiver verifies it with the new secret');
  t.notOk(verifies(r!, old), 'the old secret verifies it no more');
});

t.test('paused by hand, nothing is sent (events still queue); resumed, they go in order', async (t) => {
  received.length = 0;
  await pauseWebhook(admin, 'recv', 'receiver maintenance');
  await emitWebhookEvent({ clock }, db, 'user.created', { username: 'dave' });
  await emitWebhookEvent({ clock }, db, 'user.created', { username: 'erin' });
  t.same(await round(), [], 'nothing is sent while paused');
  t.match(await showWebhook(admin, 'recv'), { pending: 2, pauseReason: 'receiver maintenance' });
  await resumeWebhook(admin, 'recv');
  await round();
  await round();
  t.same(
    received.map((r) => JSON.parse(r.body).data.username),
    ['dave', 'erin'],
  );
});
