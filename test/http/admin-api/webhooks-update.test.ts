// PATCH /admin/api/v1/webhooks/{id} and POST .../pause (src/http/admin-api/webhooks.ts): a subscription changed in
// place under If-Match (RFC 9110 13.1.1; 428 without it), its URL checked against SSRF as at creation, its pending
// deliveries kept, its secret rotated on request and shown in that answer only; a pause by hand with a reason.
// Every answer is checked against openapi.json by api.call.
import t from 'tap';
import { emitWebhookEvent } from '../../../src/domain/webhooks/emit.js';
import { adminApiApp } from '../../helpers/admin-api.js';

const api = await adminApiApp(t);
const SIEM = { id: 'siem', url: 'https://siem.example.com/in', events: ['sign_in.failed'], description: 'the SIEM' };
const created = await api.call(t, 'POST', '/webhooks', { body: SIEM });
const firstSecret = created.json().secret as string;
await emitWebhookEvent({ clock: () => new Date() }, api.db, 'sign_in.failed', { n: 1 });

const etagOf = async (id = 'siem') => (await api.call(t, 'GET', `/webhooks/${id}`)).headers.etag as string;
const row = () => api.db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', 'siem').executeTakeFirstOrThrow();
const auditOf = async (event: string) =>
  (await api.call(t, 'GET', `/audit?target=webhook:siem&event=${event}`)).json().items as Array<{ changes: Record<string, unknown> }>;

t.test('PATCH changes the URL, events, description and enabled in place; pending deliveries stay; audited', async (t) => {
  const before = await etagOf();
  const sealed = (await row()).secret_sealed;
  const res = await api.call(t, 'PATCH', '/webhooks/siem', {
    body: { url: 'https://siem2.example.com/in/token-in-path', events: ['sign_in.failed', 'risk.blocked'], description: null },
    headers: { 'if-match': before },
  });
  t.equal(res.statusCode, 200);
  t.match(res.json(), {
    id: 'siem',
    url: 'https://siem2.example.com/in/token-in-path',
    events: ['sign_in.failed', 'risk.blocked'],
    description: null,
    enabled: true,
    pending: 1,
  });
  t.notOk('secret' in res.json(), 'no secret unless rotated');
  t.not(res.headers.etag, before, 'a new ETag');
  t.equal(res.headers.etag, await etagOf(), 'the ETag of what GET reads');
  t.same((await row()).secret_sealed, sealed, 'the secret is kept unless rotated');
  const [record] = await auditOf('admin.webhook.updated');
  t.same(record?.changes, { host: 'siem2.example.com', events: ['sign_in.failed', 'risk.blocked'], description: null });
  t.notMatch(JSON.stringify(record), /token-in-path/, 'the host only: the path may be a capability');

  const disabled = await api.call(t, 'PATCH', '/webhooks/siem', { body: { enabled: false }, headers: { 'if-match': await etagOf() } });
  t.match(disabled.json(), { enabled: false, pending: 1 });
  const again = await api.call(t, 'PATCH', '/webhooks/siem', { body: { enabled: false }, headers: { 'if-match': await etagOf() } });
  t.equal(again.statusCode, 200, 'the same value again is no change');
  t.equal((await auditOf('admin.webhook.updated')).length, 2, 'and is not audited');
  await api.call(t, 'PATCH', '/webhooks/siem', { body: { enabled: true }, headers: { 'if-match': await etagOf() } });
});

t.test('PATCH rotate_secret: a new secret, shown once, sealed; audited by name only', async (t) => {
  const sealedBefore = (await row()).secret_sealed;
  const res = await api.call(t, 'PATCH', '/webhooks/siem', { body: { rotate_secret: true }, headers: { 'if-match': await etagOf() } });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['cache-control'], 'no-store');
  const secret = res.json().secret as string;
  t.match(secret, /^[A-Za-z0-9_-]{43}$/);
  t.not(secret, firstSecret);
  t.not((await row()).secret_sealed, sealedBefore, 'the sealed secret changed');
  t.notMatch(JSON.stringify((await row()).secret_sealed), secret, 'kept sealed');
  const read = await api.call(t, 'GET', '/webhooks/siem');
  const audit = await api.call(t, 'GET', '/audit?target=webhook:siem');
  t.same(audit.json().items[0].changes, { secret: '(not recorded)' });
  for (const text of [read.body, audit.body]) t.notOk(text.includes(secret), 'the secret is shown nowhere else');
});

t.test('PATCH is refused: 400 bad URL, private address, no event, unknown field; 404; 412 stale; 428 without', async (t) => {
  const etag = await etagOf();
  const before = await row();
  const cases: Array<[unknown, number, RegExp]> = [
    [{ url: 'not a url' }, 400, /absolute URL/],
    [{ url: 'http://hr.example.com/' }, 400, /https/],
    [{ url: 'https://10.1.2.3/in' }, 400, /private network/],
    [{ url: 'https://169.254.169.254/latest' }, 400, /private network/],
    [{ events: [] }, 400, /./],
    [{ events: ['sign_in.failled'] }, 400, /sign_in\.failled/],
    [{ secret: 'x'.repeat(40) }, 400, /./],
    [{}, 400, /./],
    [{ colour: 'red' }, 400, /./],
  ];
  for (const [body, status, detail] of cases) {
    const res = await api.call(t, 'PATCH', '/webhooks/siem', { body, headers: { 'if-match': etag } });
    t.equal(res.statusCode, status, JSON.stringify(body));
    t.match(res.json().detail, detail);
  }
  t.same(await row(), before, 'nothing refused was written');
  t.equal((await api.call(t, 'PATCH', '/webhooks/nobody', { body: { enabled: false }, headers: { 'if-match': '*' } })).statusCode, 404);
  const stale = await api.call(t, 'PATCH', '/webhooks/siem', { body: { enabled: false }, headers: { 'if-match': '"not-the-etag"' } });
  t.equal(stale.statusCode, 412);
  t.equal((await api.call(t, 'PATCH', '/webhooks/siem', { body: { enabled: false } })).statusCode, 428);
  t.same(await row(), before, 'nor a stale or unconditional one');
});

t.test('POST /webhooks/{id}/pause pauses with the reason; 409 when paused; 400 without a reason; resume undoes it', async (t) => {
  t.equal((await api.call(t, 'POST', '/webhooks/siem/pause', { body: {} })).statusCode, 400);
  t.equal((await api.call(t, 'POST', '/webhooks/siem/pause', { body: { reason: '   ' } })).statusCode, 400, 'blank is no reason');
  const res = await api.call(t, 'POST', '/webhooks/siem/pause', { body: { reason: 'the SIEM is migrating until Monday' } });
  t.equal(res.statusCode, 200);
  t.match(res.json(), { pause_reason: 'the SIEM is migrating until Monday', pending: 1 });
  t.ok(res.json().paused_at);
  t.same((await auditOf('admin.webhook.paused'))[0]?.changes, { paused: true, reason: 'the SIEM is migrating until Monday' });
  const twice = await api.call(t, 'POST', '/webhooks/siem/pause', { body: { reason: 'again' } });
  t.equal(twice.statusCode, 409);
  t.equal((await row()).pause_reason, 'the SIEM is migrating until Monday', 'the first reason is kept');
  t.equal((await api.call(t, 'POST', '/webhooks/nobody/pause', { body: { reason: 'x' } })).statusCode, 404);
  t.match((await api.call(t, 'POST', '/webhooks/siem/resume')).json(), { paused_at: null, pause_reason: null });
});

t.test('admin:read may neither update nor pause (403), and changes nothing', async (t) => {
  const before = await row();
  const patch = await api.call(t, 'PATCH', '/webhooks/siem', { token: api.reader, body: { enabled: false }, headers: { 'if-match': '*' } });
  t.equal(patch.statusCode, 403);
  const pause = await api.call(t, 'POST', '/webhooks/siem/pause', { token: api.reader, body: { reason: 'x' } });
  t.equal(pause.statusCode, 403);
  t.same(await row(), before);
});
