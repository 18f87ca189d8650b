// The console's webhook pages (issue 20): an admin lists subscriptions with their state, creates one (event types
// as checkboxes, the secret shown once), sees a subscription's recent deliveries, resumes a paused one (which says
// why it was paused) and deletes one after a confirmation, each change audited with the person as actor; a refused
// form comes back saying why and writes nothing; an auditor reads but changes nothing; a form without the session's
// CSRF token changes nothing.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, FIXTURES, type TestApp } from '../../helpers/app.js';
import { revisionFor } from './console-forms.js';
import { startConsoleSession } from '../../../src/domain/console/console-sessions.js';
import { findUserByUsername } from '../../../src/storage/users.js';
import { PAGE_HEADERS } from '../../../src/http/views/layout.js';
import { insertWebhookDeliveries, pauseWebhookSubscription } from '../../../src/storage/webhooks.js';

const ADMIN = { username: 'ada', password: 'ada-password-0123', role: 'admin' as const };
const AUDITOR = { username: 'aud', password: 'aud-password-0123', role: 'auditor' as const };

const testApp: TestApp = await buildTestApp(t, { seed: { ...FIXTURES, users: [...FIXTURES.users, ADMIN, AUDITOR] } });
const { app, db } = testApp;
const idOf = async (username: string) => (await findUserByUsername(db, username))!.id;
const adminId = await idOf(ADMIN.username);
const adminCookie = await startConsoleSession({ db, clock: () => new Date() }, adminId);
const auditorCookie = await startConsoleSession({ db, clock: () => new Date() }, await idOf(AUDITOR.username));

const get = (url: string, cookie: string) => app.inject({ method: 'GET', url, headers: { cookie: `sso_console=${cookie}` } });
/** A form as a browser sends it: `events` become the checked boxes, one field each (`event:user.created=on`). */
const post = (url: string, cookie: string, form: Record<string, string | readonly string[]>) => {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) {
    if (name === 'events') for (const type of [value].flat()) body.append(`event:${type}`, 'on');
    else body.append(name, String(value));
  }
  return app.inject({
    method: 'POST',
    url,
    headers: { cookie: `sso_console=${cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: body.toString(),
  });
};
const csrfOf = (res: LightMyRequestResponse) => /name="csrf" value="([^"]+)"/.exec(res.body)![1]!;
const adminCsrf = csrfOf(await get('/admin', adminCookie));
const auditorCsrf = csrfOf(await get('/admin', auditorCookie));
// As a browser sends it: from the form's page, with the revision it was read at (console-forms.ts).
const adminPost = async (url: string, form: Record<string, string | readonly string[]> = {}) =>
  post(url, adminCookie, { csrf: adminCsrf, ...(await revisionFor(app, adminCookie, url)), ...form });

const subscription = (id: string) => db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
const auditCount = async () =>
  Number((await db.selectFrom('admin_audit_records').select(db.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
const lastAudit = (event: string) =>
  db.selectFrom('admin_audit_records').selectAll().where('event', '=', event).orderBy('id', 'desc').executeTakeFirst();

const CRM = {
  id: 'crm',
  url: 'https://crm.example/hooks/sso',
  description: 'The CRM',
  events: ['user.created', 'user.deleted'],
  enabled: 'on',
};

t.test('create: the form has a checkbox per event type; the secret is shown once; audited with the person as actor', async (t) => {
  const form = await get('/admin/webhooks/new', adminCookie);
  t.equal(form.statusCode, 200);
  t.match(form.body, /<input type="checkbox" id="event-user-created" name="event:user.created" value="on">/);
  t.match(form.body, /<input type="checkbox" id="event-all" name="event:\*" value="on">/);

  const created = await adminPost('/admin/webhooks', CRM);
  t.equal(created.statusCode, 201);
  t.equal(created.headers['cache-control'], 'no-store');
  const secret = /<code class="secret">([^<]+)<\/code>/.exec(created.body)?.[1];
  t.match(secret, /^[A-Za-z0-9_-]{43}$/, 'the generated secret is shown');
  const row = (await subscription('crm'))!;
  t.same(row.event_types, ['user.created', 'user.deleted']);
  t.equal(row.description, 'The CRM');
  t.equal(row.enabled, true);
  t.notMatch(String(row.secret_sealed), secret!, 'the secret is kept sealed');
  t.notMatch((await get('/admin/webhooks/crm', adminCookie)).body, secret!, 'and never shown again');
  const record = await lastAudit('admin.webhook.created');
  t.equal(record?.actor_kind, 'person');
  t.equal(record?.actor_id, adminId);
  t.equal(record?.target_id, 'crm');
  t.notMatch(JSON.stringify(record?.changes), secret!, 'the record holds no secret');

  const one = await adminPost('/admin/webhooks', { id: 'siem', url: 'https://siem.example/in', events: '*' });
  t.equal(one.statusCode, 201, 'all events, and no description');
  t.same((await subscription('siem'))!.event_types, ['*']);
  t.equal((await subscription('siem'))!.enabled, false, 'an unchecked "enabled" box is a disabled subscription');
});

t.test('bad input gives the form again with a clear message, keeps what was typed, and writes nothing', async (t) => {
  const before = await auditCount();
  const cases: [Record<string, string | readonly string[]>, number, RegExp][] = [
    [{ ...CRM, id: 'other', url: 'http://crm.example/hooks' }, 400, /https/],
    [{ ...CRM, id: 'other', url: 'https://10.0.0.7/hooks' }, 400, /private network/],
    [{ ...CRM, id: 'other', events: [] }, 400, /events must be a non-empty list/],
    [{ ...CRM, id: 'other', description: 'd'.repeat(201) }, 400, /description must be at most 200 characters/],
    [{ ...CRM, id: 'Not Valid' }, 400, /id must be 1 to 63 lowercase letters/],
    [{ ...CRM }, 409, /exists already/],
  ];
  for (const [form, status, why] of cases) {
    const res = await adminPost('/admin/webhooks', form);
    t.equal(res.statusCode, status, JSON.stringify(form));
    t.match(res.body, /class="error" role="alert"/);
    t.match(res.body, why);
    t.match(res.body, new RegExp(`name="url" required value="${String(form.url).replace(/[.?]/g, '\\$&')}"`), 'the URL typed is kept');
  }
  const kept = await adminPost('/admin/webhooks', { ...CRM, id: 'other', url: 'ftp://crm.example/' });
  t.match(kept.body, /name="event:user.created" value="on" checked>/, 'the boxes checked stay checked');
  t.match(kept.body, /name="event:session.ended" value="on">/, 'the others stay unchecked');
  const unknown = await adminPost('/admin/webhooks', { ...CRM, id: 'other', events: ['user.exploded'] });
  t.equal(unknown.statusCode, 400, 'a box the form does not have counts for nothing: no event type is checked');
  t.notOk(await subscription('other'));
  t.notOk(await subscription('Not Valid'));
  t.equal(await auditCount(), before, 'nothing audited');
});

t.test('a paused subscription says why, in the list and on its page, with its deliveries; resume is audited', async (t) => {
  const now = new Date();
  await insertWebhookDeliveries(db, { eventId: randomUUID(), type: 'user.created', payload: { id: 'x' }, now });
  await db
    .updateTable('webhook_deliveries')
    .set({ attempts: 8, last_status: 503, last_error: 'the receiver answered 503' })
    .where('subscription_id', '=', 'crm')
    .execute();
  // A later delivery waits behind it; were it tried (it is not: a subscription's deliveries go in order), its error
  // would not be the one holding the queue up.
  const later = randomUUID();
  await insertWebhookDeliveries(db, { eventId: later, type: 'user.deleted', payload: { id: 'y' }, now: new Date(now.getTime() + 1000) });
  await db.updateTable('webhook_deliveries').set({ attempts: 1, last_error: 'a later error' }).where('event_id', '=', later).execute();
  await pauseWebhookSubscription(db, 'crm', 'failed 8 times in a row over 1 hour', now);
  const since = new Date(now.getTime() - 3600_000);
  await db.updateTable('webhook_subscriptions').set({ consecutive_failures: 8, failing_since: since }).where('id', '=', 'crm').execute();
  const failure = `HTTP 503: the receiver answered 503 \\(8 attempts, failing since ${since.toISOString().slice(0, 19)}Z\\)`;

  const list = await get('/admin/webhooks', adminCookie);
  t.equal(list.statusCode, 200);
  for (const [name, value] of Object.entries(PAGE_HEADERS)) t.equal(list.headers[name], value, name);
  t.match(list.body, /<a href="[^"]*\/admin\/webhooks" aria-current="page">Webhooks<\/a>/, 'marked in the navigation');
  t.match(list.body, /paused since [0-9T:-]+Z: failed 8 times in a row over 1 hour/);
  t.match(list.body, new RegExp(`<td>${failure}</td>`), 'the last failure, of the oldest pending delivery');
  t.match(list.body, /<td>disabled \(gets no new events\)<\/td><td><\/td>/, 'siem is disabled, with no failure');

  const page = await get('/admin/webhooks/crm', adminCookie);
  t.equal(page.statusCode, 200);
  t.match(page.body, /class="error" role="alert">Paused since [^:]+:[^:]+:[^:]+: failed 8 times in a row over 1 hour/);
  t.match(
    page.body,
    /<td>user\.created<\/td><td>pending<\/td><td>8<\/td><td>[0-9T:-]+Z<\/td><td>503<\/td><td>the receiver answered 503<\/td>/,
  );
  t.match(page.body, new RegExp(`<td>Last failure</td><td>${failure}</td>`));
  t.match(page.body, /Resume subscription/);
  t.match((await get('/admin/webhooks/siem', adminCookie)).body, /<td>Last failure<\/td><td>none pending<\/td>/);

  const resumed = await adminPost('/admin/webhooks/crm/resume');
  t.equal(resumed.statusCode, 303);
  t.match(String(resumed.headers.location), /\/admin\/webhooks\/crm\?done=resumed$/);
  const row = (await subscription('crm'))!;
  t.equal(row.paused_at, null);
  t.equal(row.pause_reason, null);
  t.equal(row.consecutive_failures, 0);
  const record = await lastAudit('admin.webhook.resumed');
  t.equal(record?.actor_id, adminId);
  t.equal(record?.target_id, 'crm');
  const after = await get('/admin/webhooks/crm?done=resumed', adminCookie);
  t.match(after.body, /Subscription resumed/);
  t.notMatch(after.body, /Resume subscription/, 'no resume button on an active subscription');
});

t.test('an auditor reads the pages but gets no form, and every change is refused', async (t) => {
  await pauseWebhookSubscription(db, 'crm', 'failed again', new Date());
  for (const page of ['/admin/webhooks', '/admin/webhooks/crm']) {
    const res = await get(page, auditorCookie);
    t.equal(res.statusCode, 200, page);
    t.equal((res.body.match(/method="post"/g) ?? []).length, 1, `${page}: the sign-out form only`);
    t.notMatch(res.body, /New subscription|Delete this subscription|Resume subscription/, page);
  }
  t.match((await get('/admin/webhooks/crm', auditorCookie)).body, /Paused since [^<]*failed again/, 'the auditor sees why too');
  for (const page of ['/admin/webhooks/new', '/admin/webhooks/crm/delete']) t.equal((await get(page, auditorCookie)).statusCode, 403, page);
  const before = await auditCount();
  for (const [url, form] of [
    ['/admin/webhooks', { ...CRM, id: 'by-auditor' }],
    ['/admin/webhooks/crm/resume', {}],
    ['/admin/webhooks/crm/delete', {}],
  ] as const) {
    const res = await post(url, auditorCookie, { csrf: auditorCsrf, ...form });
    t.equal(res.statusCode, 403, url);
    t.match(res.body, /auditor/);
  }
  t.notOk(await subscription('by-auditor'));
  t.not((await subscription('crm'))!.paused_at, null, 'still paused');
  t.equal(await auditCount(), before, 'nothing audited');
});

t.test("a form without the session's CSRF token is refused with 403 and changes nothing", async (t) => {
  t.equal((await post('/admin/webhooks', adminCookie, { ...CRM, id: 'forged', csrf: auditorCsrf })).statusCode, 403);
  t.equal((await post('/admin/webhooks', adminCookie, { ...CRM, id: 'forged' })).statusCode, 403);
  t.equal((await post('/admin/webhooks/crm/resume', adminCookie, {})).statusCode, 403);
  t.equal((await post('/admin/webhooks/crm/delete', adminCookie, { csrf: 'x' })).statusCode, 403);
  t.notOk(await subscription('forged'));
  t.not((await subscription('crm'))!.paused_at, null, 'still paused');
});

t.test('delete after a confirmation drops its pending deliveries, audited; unknown or malformed ids are refused', async (t) => {
  const confirm = await get('/admin/webhooks/crm/delete', adminCookie);
  t.equal(confirm.statusCode, 200);
  t.match(confirm.body, /Delete the subscription <strong>crm<\/strong> \(https:\/\/crm\.example\/hooks\/sso\)\? Its 2 pending/);
  t.ok(await subscription('crm'), 'the confirmation page deletes nothing');
  const deleted = await adminPost('/admin/webhooks/crm/delete');
  t.equal(deleted.statusCode, 303);
  t.notOk(await subscription('crm'));
  t.equal((await db.selectFrom('webhook_deliveries').select('id').where('subscription_id', '=', 'crm').execute()).length, 0);
  const record = await lastAudit('admin.webhook.removed');
  t.equal(record?.actor_id, adminId);
  t.equal(record?.target_id, 'crm');

  t.equal((await get('/admin/webhooks/crm', adminCookie)).statusCode, 404);
  t.equal((await adminPost('/admin/webhooks/crm/resume')).statusCode, 404);
  t.equal((await adminPost('/admin/webhooks/crm/delete')).statusCode, 404);
  const malformed = await get('/admin/webhooks/NOT%20VALID', adminCookie);
  t.equal(malformed.statusCode, 400, 'a malformed id is refused, never a 500');
  t.match(malformed.headers['content-type'], /text\/html/);
});

t.test('edit: the form shows the subscription as it is; a change is saved in place and audited with the person', async (t) => {
  // siem is disabled (it was created with the box unchecked): a delivery is queued for it while it is enabled.
  await db.updateTable('webhook_subscriptions').set({ enabled: true }).where('id', '=', 'siem').execute();
  await insertWebhookDeliveries(db, { eventId: randomUUID(), type: 'user.created', payload: { id: 'z' }, now: new Date() });
  await db.updateTable('webhook_subscriptions').set({ enabled: false }).where('id', '=', 'siem').execute();
  const page = await get('/admin/webhooks/siem', adminCookie);
  t.match(page.body, /<form method="post" action="[^"]*\/admin\/webhooks\/siem\/edit">/);
  t.match(page.body, /name="url" required value="https:\/\/siem\.example\/in"/);
  t.match(page.body, /name="event:\*" value="on" checked>/, 'its event types are checked');
  t.match(page.body, /name="event:user.created" value="on">/);
  t.match(page.body, /<input type="checkbox" id="rotate_secret" name="rotate_secret" value="on">/, 'rotation is never pre-checked');
  t.match(page.body, /action="[^"]*\/admin\/webhooks\/siem\/pause"/);
  const sealed = (await subscription('siem'))!.secret_sealed;

  const saved = await adminPost('/admin/webhooks/siem/edit', {
    url: 'https://siem2.example/in',
    description: 'The SIEM',
    events: ['sign_in.failed', 'risk.blocked'],
    enabled: 'on',
  });
  t.equal(saved.statusCode, 303);
  t.match(String(saved.headers.location), /\/admin\/webhooks\/siem\?done=updated$/);
  const row = (await subscription('siem'))!;
  t.equal(row.url, 'https://siem2.example/in');
  t.same(row.event_types, ['sign_in.failed', 'risk.blocked']);
  t.equal(row.description, 'The SIEM');
  t.equal(row.enabled, true);
  t.same(row.secret_sealed, sealed, 'the secret is kept unless rotation is checked');
  t.equal(
    (await db.selectFrom('webhook_deliveries').select('id').where('subscription_id', '=', 'siem').execute()).length,
    1,
    'its pending delivery is kept',
  );
  const record = await lastAudit('admin.webhook.updated');
  t.equal(record?.actor_id, adminId);
  t.same(record?.changes, {
    host: 'siem2.example',
    events: ['sign_in.failed', 'risk.blocked'],
    description: 'The SIEM',
    enabled: true,
  });
  t.match((await get('/admin/webhooks/siem?done=updated', adminCookie)).body, /Subscription updated/);

  const same = await adminPost('/admin/webhooks/siem/edit', {
    url: 'https://siem2.example/in',
    description: 'The SIEM',
    events: ['sign_in.failed', 'risk.blocked'],
    enabled: 'on',
  });
  t.match(String(same.headers.location), /\?done=unchanged$/, 'the same values again change nothing');
});

t.test('edit with "rotate secret": the new secret is shown once, not cached, sealed, and audited by name only', async (t) => {
  const sealed = (await subscription('siem'))!.secret_sealed;
  const before = await auditCount();
  const rotated = await adminPost('/admin/webhooks/siem/edit', {
    url: 'https://siem2.example/in',
    description: 'The SIEM',
    events: ['sign_in.failed', 'risk.blocked'],
    enabled: 'on',
    rotate_secret: 'on',
  });
  t.equal(rotated.statusCode, 200);
  t.equal(rotated.headers['cache-control'], 'no-store');
  const secret = /<code class="secret">([^<]+)<\/code>/.exec(rotated.body)?.[1];
  t.match(secret, /^[A-Za-z0-9_-]{43}$/);
  t.notSame((await subscription('siem'))!.secret_sealed, sealed, 'a new sealed secret');
  t.notMatch(JSON.stringify((await subscription('siem'))!.secret_sealed), secret!);
  t.notMatch((await get('/admin/webhooks/siem', adminCookie)).body, secret!, 'never shown again');
  t.equal(await auditCount(), before + 1);
  t.same((await lastAudit('admin.webhook.updated'))?.changes, { secret: '(not recorded)' });
});

t.test('a refused edit shows the form again with what was typed and why, and writes nothing', async (t) => {
  const row = await subscription('siem');
  const before = await auditCount();
  const cases: [Record<string, string | readonly string[]>, number, RegExp][] = [
    [{ url: 'https://10.0.0.7/in', events: ['sign_in.failed'] }, 400, /private network/],
    [{ url: 'http://siem.example/in', events: ['sign_in.failed'] }, 400, /https/],
    [{ url: 'https://siem3.example/in', events: [] }, 400, /events must be a non-empty list/],
  ];
  for (const [form, status, why] of cases) {
    const res = await adminPost('/admin/webhooks/siem/edit', { description: '', ...form });
    t.equal(res.statusCode, status, JSON.stringify(form));
    t.match(res.body, /class="error" role="alert"/);
    t.match(res.body, why);
    t.match(res.body, new RegExp(`name="url" required value="${String(form.url).replace(/[.?]/g, '\\$&')}"`), 'the URL typed is kept');
  }
  t.same(await subscription('siem'), row);
  t.equal(await auditCount(), before, 'nothing audited');
  t.equal((await adminPost('/admin/webhooks/nobody/edit', { url: 'https://x.example/', events: ['*'] })).statusCode, 404);
});

t.test('pause with a reason: audited, shown with its state; a blank reason is refused; no pause form once paused', async (t) => {
  const blank = await adminPost('/admin/webhooks/siem/pause', { reason: '  ' });
  t.equal(blank.statusCode, 400);
  t.match(blank.body, /the reason of a pause must be 1 to 200 characters/);
  t.equal((await subscription('siem'))!.paused_at, null);

  const paused = await adminPost('/admin/webhooks/siem/pause', { reason: 'SIEM migration' });
  t.equal(paused.statusCode, 303);
  t.match(String(paused.headers.location), /\/admin\/webhooks\/siem\?done=paused$/);
  t.equal((await subscription('siem'))!.pause_reason, 'SIEM migration');
  const record = await lastAudit('admin.webhook.paused');
  t.equal(record?.actor_id, adminId);
  t.same(record?.changes, { paused: true, reason: 'SIEM migration' });
  const page = await get('/admin/webhooks/siem?done=paused', adminCookie);
  t.match(page.body, /Subscription paused/);
  t.match(page.body, /Paused since [^<]*SIEM migration/);
  t.notMatch(page.body, /action="[^"]*\/admin\/webhooks\/siem\/pause"/, 'no pause form on a paused subscription');
  t.match(page.body, /Resume subscription/);
  const twice = await adminPost('/admin/webhooks/siem/pause', { reason: 'again' });
  t.equal(twice.statusCode, 409);
  t.equal((await adminPost('/admin/webhooks/nobody/pause', { reason: 'x' })).statusCode, 404);
});

t.test('an auditor gets neither the edit nor the pause form, and both are refused', async (t) => {
  await db.updateTable('webhook_subscriptions').set({ paused_at: null, pause_reason: null }).where('id', '=', 'siem').execute();
  const page = await get('/admin/webhooks/siem', auditorCookie);
  t.equal((page.body.match(/method="post"/g) ?? []).length, 1, 'the sign-out form only');
  t.notMatch(page.body, /Save changes|Pause subscription|rotate_secret/);
  const row = await subscription('siem');
  const before = await auditCount();
  for (const [url, form] of [
    ['/admin/webhooks/siem/edit', { url: 'https://evil.example/', events: ['*'], rotate_secret: 'on' }],
    ['/admin/webhooks/siem/pause', { reason: 'by the auditor' }],
  ] as const) {
    const res = await post(url, auditorCookie, { csrf: auditorCsrf, ...form });
    t.equal(res.statusCode, 403, url);
  }
  t.equal((await post('/admin/webhooks/siem/pause', adminCookie, { reason: 'no token' })).statusCode, 403, 'nor without the CSRF token');
  t.same(await subscription('siem'), row);
  t.equal(await auditCount(), before);
});
