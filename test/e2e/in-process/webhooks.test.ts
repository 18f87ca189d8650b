// Webhooks (issue 20) end to end: a receiver on 127.0.0.1 (node:http) that fails, times out and recovers gets each
// event in order and at least once under one id, signed as docs/webhooks.md says; a subscription that keeps failing
// is paused with the reason and resumes from its oldest pending delivery; URLs are refused as a jwks_uri's would be
// (private addresses at creation, redirects at delivery); real actions (a password sign-in, an admin's change) fire
// their events, and a change that rolls back fires none. The job's rounds are called here with the test's own clock.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import type { AdminContext } from '../../../src/domain/admin/admin.js';
import { createUser, deleteUser } from '../../../src/domain/admin/user-admin.js';
import { PasswordPolicy } from '../../../src/domain/accounts/password-policy.js';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { deliverDueWebhooks, type WebhookOutcome } from '../../../src/domain/webhooks/deliver.js';
import { PAUSE_AFTER_FAILURES } from '../../../src/domain/webhooks/delivery-policy.js';
import { emitWebhookEvent } from '../../../src/domain/webhooks/emit.js';
import {
  addWebhook,
  listWebhookDeliveriesOf,
  listWebhooks,
  removeWebhook,
  resumeWebhook,
  showWebhook,
} from '../../../src/domain/webhooks/webhook-admin.js';
import { systemOutbound } from '../../../src/outbound/guarded-fetch.js';
import { ALICE, buildTestApp } from '../../helpers/app.js';
import { authorizePath, Browser, formAction, hiddenField, localPath, obtainCode, pkcePair } from '../../helpers/flow.js';
import { CONFIDENTIAL } from '../../helpers/app.js';

const logLines: string[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logLines.push(...chunk.toString().split('\n').filter(Boolean));
    done();
  },
});

let nowMs = Date.parse('2026-11-28T10:00:00Z');
const clock = () => new Date(nowMs);
const moveTo = (at: Date) => {
  nowMs = Math.max(nowMs, at.getTime());
};

// WEBHOOK_POLL_SECONDS=0: the app runs no round of its own; the test runs them.
const { app, db, config } = await buildTestApp(t, {
  env: { WEBHOOK_POLL_SECONDS: '0', LOG_LEVEL: 'info' },
  clock,
  logger: pino({ level: 'info' }, logStream),
});
const log = pino({ level: 'info' }, logStream);
const admin: AdminContext = {
  config,
  db,
  clock,
  log,
  passwords: new PasswordHasher(config.argon2),
  passwordPolicy: new PasswordPolicy(config.passwordPolicy),
};
const webhookCtx = { db, clock, config, outbound: systemOutbound, log };
/** One round, with the largest jitter (waits are their ceiling) and a short timeout for the hanging receiver. */
const round = () => deliverDueWebhooks(webhookCtx, { timeoutMs: 300, random: () => 1 });

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
type Mode = 'ok' | 'fail' | 'hang' | 'redirect';
let mode: Mode = 'ok';
const received: Received[] = [];
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    if (mode === 'hang') return;
    if (mode === 'redirect') return res.writeHead(302, { location: `${receiverUrl}/elsewhere` }).end();
    res.writeHead(mode === 'ok' ? 204 : 500).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
t.teardown(async () => {
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

/** The docs' check (docs/webhooks.md): HMAC-SHA256 over "<timestamp>.<body>", compared in constant time. */
function signatureVerifies(r: Received, secret: string): boolean {
  const timestamp = String(r.headers['x-sso-timestamp']);
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${timestamp}.${r.body}`).digest('hex')}`);
  const given = Buffer.from(String(r.headers['x-sso-signature']));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const bodyOf = (r: Received) =>
  JSON.parse(r.body) as { id: string; event_id: string; type: string; created_at: string; data: Record<string, unknown> };
/** Every secret shown at creation: none may reach the log. */
const secrets: string[] = [];
const newUser = (username: string) => ({ username, password: `${username}-password-0123456789`, email: `${username}@example.com` });

t.test('a receiver that fails, then times out, then recovers gets each event in order, at least once under one id', async (t) => {
  mode = 'fail';
  received.length = 0;
  const { secret } = await addWebhook(admin, { id: 'recv', url: `${receiverUrl}/hooks`, events: ['user.created'] });
  secrets.push(secret);
  const carol = await createUser(admin, newUser('carol'));
  const dave = await createUser(admin, newUser('dave'));

  const first = await round();
  t.equal(first.length, 1, 'only the oldest pending delivery of the subscription is sent');
  t.match(first[0], { outcome: 'retry', reason: 'the receiver answered 500', paused: false });
  t.same((await round()).length, 0, 'nothing is sent before the retry is due, not even the next event');
  t.equal(received.length, 1);

  mode = 'hang';
  moveTo((first[0] as Extract<WebhookOutcome, { outcome: 'retry' }>).nextAttemptAt);
  const second = await round();
  t.match(second[0], { outcome: 'retry', reason: /did not answer in time/ });

  mode = 'ok';
  moveTo((second[0] as Extract<WebhookOutcome, { outcome: 'retry' }>).nextAttemptAt);
  t.match(await round(), [{ outcome: 'delivered', status: 204 }]);
  t.match(await round(), [{ outcome: 'delivered', status: 204 }], 'then the next event, at once');
  t.same(await round(), []);

  t.equal(received.length, 4);
  const bodies = received.map(bodyOf);
  t.same(
    bodies.map((b) => b.data.username),
    ['carol', 'carol', 'carol', 'dave'],
    'in the order the users were created',
  );
  t.equal(new Set(bodies.slice(0, 3).map((b) => b.id)).size, 1, 'one id across the three attempts');
  t.not(bodies[3]!.id, bodies[0]!.id);
  for (const r of received) {
    const body = bodyOf(r);
    t.equal(r.path, '/hooks');
    t.equal(r.headers['content-type'], 'application/json');
    t.equal(r.headers['x-sso-delivery-id'], body.id, 'the id is a header and a member of the body');
    t.equal(r.headers['x-sso-event'], 'user.created');
    t.ok(signatureVerifies(r, secret), 'the signature verifies with the secret shown at creation');
    t.notOk(signatureVerifies(r, `${secret}x`), 'and not with another');
  }
  t.match(bodies[0], { type: 'user.created', data: { user_id: carol.id, username: 'carol', email: 'carol@example.com', via: 'admin' } });
  t.equal(bodies[3]!.data.user_id, dave.id);
  t.notMatch(received.map((r) => r.body).join('\n'), /password/, 'no password, nor its hash, in a payload');

  const deliveries = await listWebhookDeliveriesOf(admin, 'recv');
  t.match(deliveries, [
    { status: 'delivered', attempts: 1, lastStatus: 204 },
    { id: bodies[0]!.id, status: 'delivered', attempts: 3, lastStatus: 204, lastError: null },
  ]);
  t.match(await showWebhook(admin, 'recv'), { pending: 0, delivered: 2, consecutiveFailures: 0, pausedAt: null });
});

t.test('a subscription that keeps failing is paused with the reason, queues meanwhile, and resumes from its oldest delivery', async (t) => {
  mode = 'fail';
  received.length = 0;
  await createUser(admin, newUser('erin'));
  let last: WebhookOutcome | undefined;
  let rounds = 0;
  for (; rounds < 20; rounds++) {
    [last] = await round();
    if (!last || last.outcome !== 'retry' || last.paused) break;
    moveTo(last.nextAttemptAt);
  }
  t.match(last, { outcome: 'retry', paused: true });
  t.equal(rounds + 1, PAUSE_AFTER_FAILURES, `paused at failure ${PAUSE_AFTER_FAILURES}, some twenty minutes after the first`);
  const paused = await showWebhook(admin, 'recv');
  t.ok(paused.pausedAt);
  t.match(paused.pauseReason, /deliveries failed in a row since .*; the last: the receiver answered 500/);
  t.equal(paused.consecutiveFailures, PAUSE_AFTER_FAILURES);

  const sent = received.length;
  nowMs += 86_400_000;
  await createUser(admin, newUser('frank'));
  t.same(await round(), [], 'a paused subscription is sent nothing');
  t.equal(received.length, sent);
  t.equal((await showWebhook(admin, 'recv')).pending, 2, 'events are still queued for it');

  mode = 'ok';
  const resumed = await resumeWebhook(admin, 'recv');
  t.match(resumed, { pausedAt: null, pauseReason: null, consecutiveFailures: 0, pending: 2 });
  t.match(await round(), [{ outcome: 'delivered' }]);
  t.match(await round(), [{ outcome: 'delivered' }]);
  const bodies = received.map(bodyOf);
  t.same([...new Set(bodies.map((b) => b.data.username))], ['erin', 'frank'], 'erin first, then frank');
  t.equal(new Set(bodies.filter((b) => b.data.username === 'erin').map((b) => b.id)).size, 1, "erin's one id throughout");
  await removeWebhook(admin, 'recv');
});

t.test('URLs are checked against SSRF as a jwks_uri is: a private address is refused at creation', async (t) => {
  for (const url of ['https://10.0.0.5/hook', 'https://169.254.169.254/latest/meta-data', 'https://[fd00::1]/hook']) {
    await t.rejects(addWebhook(admin, { id: 'inside', url, events: ['*'] }), { name: 'AdminError', message: /private network/ }, url);
  }
  await t.rejects(addWebhook(admin, { id: 'plain', url: 'http://hooks.example.com/in', events: ['*'] }), { message: /must use https/ });
  t.same(
    (await listWebhooks(admin)).map((w) => w.id),
    [],
    'nothing was stored',
  );
});

t.test('a redirect is not followed: the delivery fails with the status and is tried again later', async (t) => {
  mode = 'redirect';
  received.length = 0;
  await addWebhook(admin, { id: 'redir', url: `${receiverUrl}/moved`, events: ['user.deleted'] });
  await deleteUser(admin, 'carol');
  t.match(await round(), [{ outcome: 'retry', reason: 'the receiver answered 302: redirects are not followed' }]);
  t.same(
    received.map((r) => r.path),
    ['/moved'],
    'the Location was never requested',
  );
  t.match(await listWebhookDeliveriesOf(admin, 'redir'), [{ status: 'pending', lastStatus: 302 }]);
  await removeWebhook(admin, 'redir');
});

t.test('a payload of a version this instance does not read is not sent: its attempt fails, and it is tried again', async (t) => {
  mode = 'ok';
  received.length = 0;
  await addWebhook(admin, { id: 'newer', url: `${receiverUrl}/newer`, events: ['client.changed'] });
  await emitWebhookEvent({ clock }, db, 'client.changed', { client_id: 'c1', change: 'created', via: 'admin' });
  // As a newer instance would store it during a rolling upgrade.
  await db
    .updateTable('webhook_deliveries')
    .set({ payload: JSON.stringify({ v: 2, event: { client_id: 'c1' } }) })
    .where('subscription_id', '=', 'newer')
    .execute();
  t.match(await round(), [{ outcome: 'retry', reason: 'the stored payload is unreadable here (unknown version 2)', paused: false }]);
  t.same(received, [], 'nothing was sent');
  t.match(await listWebhookDeliveriesOf(admin, 'newer'), [{ status: 'pending', attempts: 1, lastError: /unknown version 2/ }]);
  await removeWebhook(admin, 'newer');
});

t.test('real actions fire their events; a change that rolls back fires none', async (t) => {
  mode = 'ok';
  received.length = 0;
  const { secret } = await addWebhook(admin, { id: 'all', url: `${receiverUrl}/all`, events: ['*'] });
  secrets.push(secret);
  const count = async () =>
    Number(
      (
        await db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  // A sign-in through the password form.
  await obtainCode(app);
  // A wrong password typed into the same form.
  const browser = new Browser();
  let page = await browser.request(
    app,
    'GET',
    authorizePath({
      response_type: 'code',
      client_id: CONFIDENTIAL.client_id,
      redirect_uri: CONFIDENTIAL.redirect_uris[0],
      scope: 'openid',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    }),
  );
  while (page.statusCode === 303 || page.statusCode === 302)
    page = await browser.request(app, 'GET', localPath(String(page.headers.location)));
  await browser.request(app, 'POST', formAction(page.body), {
    csrf: hiddenField(page.body, 'csrf'),
    login: ALICE.username,
    password: 'not her password',
  });

  // An admin's change that is refused rolls back: the username is taken.
  const before = await count();
  await t.rejects(createUser(admin, newUser('dave')), { name: 'AdminError' });
  // A change whose transaction fails after its event was queued: nothing stays queued.
  await t.rejects(
    db.transaction().execute(async (trx) => {
      await emitWebhookEvent(admin, trx, 'user.updated', { user_id: 'rolled-back' });
      throw new Error('the change failed');
    }),
  );
  t.equal(await count(), before, 'neither left a delivery');
  await createUser(admin, newUser('grace'));

  for (let i = 0; i < 10 && (await round()).length > 0; i++);
  const bodies = received.map(bodyOf);
  const types = bodies.map((b) => b.type);
  t.same(types, ['sign_in.succeeded', 'device.added', 'sign_in.failed', 'user.created'], 'each in the order it happened');
  const alice = await db.selectFrom('users').select('id').where('username', '=', 'alice').executeTakeFirstOrThrow();
  t.match(bodies[0], { data: { user_id: alice.id, client_id: CONFIDENTIAL.client_id, action: 'ALLOW' } });
  t.match(bodies[2], { data: { method: 'password', user_id: alice.id } });
  t.match(bodies[3], { data: { username: 'grace', via: 'admin' } });
  t.notOk(bodies.some((b) => b.data.user_id === 'rolled-back'));
  for (const r of received) t.ok(signatureVerifies(r, secret));
  const everything = received.map((r) => r.body).join('\n');
  t.notMatch(everything, ALICE.password);
  t.notMatch(everything, 'not her password');
  await removeWebhook(admin, 'all');
});

t.test('no secret in any log line: neither a subscription secret nor a password', async (t) => {
  t.ok(
    logLines.some((l) => l.includes('webhook_paused')),
    'the pause was logged',
  );
  t.ok(logLines.some((l) => l.includes('admin.webhook.created')));
  const joined = logLines.join('\n');
  t.notMatch(joined, /sha256=[0-9a-f]{64}/, 'no signature');
  t.notMatch(joined, 'not her password');
  t.notMatch(joined, 'password-0123456789');
  t.equal(secrets.length, 2);
  for (const secret of secrets) t.notOk(joined.includes(secret), 'no subscription secret');
});
