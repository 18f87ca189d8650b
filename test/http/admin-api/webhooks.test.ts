// /admin/api/v1/webhooks (src/http/admin-api/webhooks.ts): create with the secret shown once (a replay under the same
// Idempotency-Key never shows it), the URL checked against SSRF, list, read, deliveries with their status and a
// cursor, resume after a pause, delete under If-Match (RFC 9110 13.1.1); scopes enforced per route.
import t from 'tap';
import { emitWebhookEvent } from '../../../src/domain/webhooks/emit.js';
import { adminApiApp, clientToken, OUTSIDER } from '../../helpers/admin-api.js';

const api = await adminApiApp(t);
const SIEM = { id: 'siem', url: 'https://siem.example.com/in', events: ['sign_in.failed', 'risk.blocked'], description: 'the SIEM' };

t.test('POST /webhooks answers 201 with a generated secret, shown once; a replayed create comes without it', async (t) => {
  const headers = { 'idempotency-key': 'siem-1' };
  const res = await api.call(t, 'POST', '/webhooks', { body: SIEM, headers });
  t.equal(res.statusCode, 201);
  t.equal(res.headers.location, '/admin/api/v1/webhooks/siem');
  t.match(res.json(), { id: 'siem', url: SIEM.url, events: SIEM.events, enabled: true, paused_at: null, consecutive_failures: 0 });
  const secret = res.json().secret as string;
  t.match(secret, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
  const replay = await api.call(t, 'POST', '/webhooks', { body: SIEM, headers });
  t.equal(replay.statusCode, 201);
  t.equal(replay.headers['idempotent-replayed'], 'true');
  t.notOk('secret' in replay.json(), 'the secret is not shown twice');
  t.equal(replay.json().secret_replayed_without_secret, true);
  const read = await api.call(t, 'GET', '/webhooks/siem');
  t.equal(read.statusCode, 200);
  t.match(read.json(), { id: 'siem', pending: 0, delivered: 0 });
  t.ok(read.headers.etag);
  const stored = await api.db.selectFrom('admin_idempotency_keys').selectAll().execute();
  const audit = await api.call(t, 'GET', '/audit?target=webhook:siem');
  t.match(audit.json().items, [{ event: 'admin.webhook.created', changes: { host: 'siem.example.com', secret: '(not recorded)' } }]);
  const places: Array<[string, string]> = [
    ['GET', read.body],
    ['the audit trail', audit.body],
    ['the stored replay', JSON.stringify(stored)],
  ];
  for (const [what, text] of places) t.notOk(text.includes(secret), `the secret is not in ${what}`);
});

t.test('a create is refused: a taken id (409), a private address (400), an unknown event type, a chosen secret', async (t) => {
  const taken = await api.call(t, 'POST', '/webhooks', { body: { ...SIEM, url: 'https://other.example.com/' } });
  t.equal(taken.statusCode, 409);
  t.equal(taken.json().code, 'conflict');
  const metadata = await api.call(t, 'POST', '/webhooks', { body: { ...SIEM, id: 'meta', url: 'https://169.254.169.254/latest' } });
  t.equal(metadata.statusCode, 400, 'no POST into the cloud metadata service (SSRF)');
  t.equal(metadata.json().code, 'invalid');
  const plain = await api.call(t, 'POST', '/webhooks', { body: { ...SIEM, id: 'plain', url: 'http://hr.example.com/' } });
  t.equal(plain.statusCode, 400, 'https, http only on loopback');
  const unknown = await api.call(t, 'POST', '/webhooks', { body: { ...SIEM, id: 'typo', events: ['sign_in.failled'] } });
  t.equal(unknown.statusCode, 400);
  t.match(unknown.json().detail, /sign_in\.failled/);
  const chosen = await api.call(t, 'POST', '/webhooks', { body: { ...SIEM, id: 'chosen', secret: 'x'.repeat(40) } });
  t.equal(chosen.statusCode, 400, 'the secret is generated, never chosen');
  t.notOk(chosen.body.includes('x'.repeat(40)), 'nor echoed');
  const extra = await api.call(t, 'POST', '/webhooks', { body: { ...SIEM, id: 'extra', colour: 'red' } });
  t.equal(extra.statusCode, 400);
  t.match(extra.json().detail, /unknown field "colour"/);
  const badId = await api.call(t, 'POST', '/webhooks', { body: { ...SIEM, id: 'Not An Id' } });
  t.equal(badId.statusCode, 400);
  t.equal(badId.json().code, 'validation_failed');
  t.equal((await api.call(t, 'GET', '/webhooks')).json().items.length, 1, 'nothing refused was stored');
});

t.test('GET /webhooks lists by id with a cursor; paused filters', async (t) => {
  await api.call(t, 'POST', '/webhooks', { body: { id: 'hr', url: 'https://hr.example.com/sso', events: ['*'] } });
  const first = (await api.call(t, 'GET', '/webhooks?limit=1')).json();
  t.same(
    first.items.map((w: { id: string }) => w.id),
    ['hr'],
  );
  t.notOk(JSON.stringify(first).includes('secret'), 'no secret is listed');
  const second = (await api.call(t, 'GET', `/webhooks?limit=1&cursor=${first.next_cursor}`)).json();
  t.same(
    second.items.map((w: { id: string }) => w.id),
    ['siem'],
  );
  t.equal(second.next_cursor, null);
  t.equal((await api.call(t, 'GET', '/webhooks?paused=true')).json().items.length, 0);
  t.equal((await api.call(t, 'GET', '/webhooks/nobody')).statusCode, 404);
});

t.test('deliveries: newest first with their status, a page at a time; a paused subscription says why and resumes', async (t) => {
  for (let i = 0; i < 3; i++) await emitWebhookEvent({ clock: () => new Date() }, api.db, 'sign_in.failed', { n: i });
  const ids = (await api.db.selectFrom('webhook_deliveries').select(['id', 'seq']).where('subscription_id', '=', 'siem').execute()).sort(
    (a, b) => Number(a.seq) - Number(b.seq),
  );
  await api.db
    .updateTable('webhook_deliveries')
    .set({ status: 'delivered', delivered_at: new Date(), attempts: 1, last_status: 204 })
    .where('id', '=', ids[0]!.id)
    .execute();
  await api.db
    .updateTable('webhook_subscriptions')
    .set({
      paused_at: new Date(),
      pause_reason: '8 deliveries failed in a row; the last: the receiver answered 503',
      consecutive_failures: 8,
    })
    .where('id', '=', 'siem')
    .execute();

  const first = (await api.call(t, 'GET', '/webhooks/siem/deliveries?limit=2')).json();
  t.equal(first.items.length, 2);
  const second = (await api.call(t, 'GET', `/webhooks/siem/deliveries?limit=2&cursor=${first.next_cursor}`)).json();
  t.same(
    [...first.items, ...second.items].map((d: { id: string }) => d.id).sort(),
    ids.map((d) => d.id).sort(),
    'the pages hold every delivery once',
  );
  t.equal(second.next_cursor, null);
  const delivered = (await api.call(t, 'GET', '/webhooks/siem/deliveries?status=delivered')).json();
  t.match(delivered.items, [{ id: ids[0]!.id, status: 'delivered', attempts: 1, last_status: 204, next_attempt_at: null }]);
  t.equal((await api.call(t, 'GET', '/webhooks/siem/deliveries?status=pending')).json().items.length, 2);
  t.equal((await api.call(t, 'GET', '/webhooks/siem/deliveries?status=lost')).statusCode, 400);
  const foreign = await api.call(t, 'GET', `/webhooks/hr/deliveries?cursor=${first.next_cursor}`);
  t.equal(foreign.statusCode, 400, "one subscription's cursor does not page another's");
  t.equal((await api.call(t, 'GET', '/webhooks/nobody/deliveries')).statusCode, 404);

  const paused = (await api.call(t, 'GET', '/webhooks?paused=true')).json();
  t.match(paused.items, [{ id: 'siem', pause_reason: /receiver answered 503/, consecutive_failures: 8 }]);
  const resumed = await api.call(t, 'POST', '/webhooks/siem/resume');
  t.equal(resumed.statusCode, 200);
  t.match(resumed.json(), { paused_at: null, pause_reason: null, pending: 2, delivered: 1 });
  t.equal((await api.call(t, 'POST', '/webhooks/nobody/resume')).statusCode, 404);
});

t.test('DELETE /webhooks/{id} needs If-Match, then drops the subscription and what it was owed', async (t) => {
  t.equal((await api.call(t, 'DELETE', '/webhooks/siem')).statusCode, 428);
  const stale = await api.call(t, 'DELETE', '/webhooks/siem', { headers: { 'if-match': '"not-the-etag"' } });
  t.equal(stale.statusCode, 412);
  const etag = (await api.call(t, 'GET', '/webhooks/siem')).headers.etag as string;
  const res = await api.call(t, 'DELETE', '/webhooks/siem', { headers: { 'if-match': etag } });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { id: 'siem', removed: true, pending_dropped: 2 });
  t.equal((await api.call(t, 'GET', '/webhooks/siem')).statusCode, 404);
  t.equal((await api.call(t, 'DELETE', '/webhooks/siem', { headers: { 'if-match': '*' } })).statusCode, 404);
});

t.test('scopes: admin:read lists and reads webhooks but changes none; other tokens get nothing', async (t) => {
  t.equal((await api.call(t, 'GET', '/webhooks', { token: api.reader })).statusCode, 200);
  t.equal((await api.call(t, 'GET', '/webhooks/hr/deliveries', { token: api.reader })).statusCode, 200);
  for (const [method, path] of [
    ['POST', '/webhooks'],
    ['POST', '/webhooks/hr/resume'],
    ['DELETE', '/webhooks/hr'],
  ] as const) {
    const body = method === 'POST' && path === '/webhooks' ? { id: 'r', url: 'https://r.example.com/', events: ['*'] } : undefined;
    const res = await api.call(t, method, path, { token: api.reader, body, headers: { 'if-match': '*' } });
    t.equal(res.statusCode, 403, `${method} ${path} needs admin:write`);
  }
  const outsider = await clientToken(api.app, OUTSIDER);
  t.equal((await api.call(t, 'GET', '/webhooks', { token: outsider })).statusCode, 403);
  t.equal((await api.call(t, 'GET', '/webhooks', { token: null })).statusCode, 401);
  t.same(
    (await api.call(t, 'GET', '/webhooks')).json().items.map((w: { id: string }) => w.id),
    ['hr'],
  );
});
