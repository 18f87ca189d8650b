// The web console's pages (issue 20): each needs a console session; auditors read only; every form carries the
// session's CSRF token; each change takes effect through the admin domain functions and is audited with the person
// as actor; the pages carry the same CSP and headers as every other page.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, CONFIDENTIAL, FIXTURES, type TestApp } from '../../helpers/app.js';
import { postFromPage } from './console-forms.js';
import { startConsoleSession } from '../../../src/domain/console/console-sessions.js';
import { findUserByUsername } from '../../../src/storage/users.js';
import { PAGE_HEADERS } from '../../../src/http/views/layout.js';
import { sha256 } from '../../../src/domain/secrets.js';

const ADMIN = { username: 'ada', password: 'ada-password-0123', role: 'admin' as const };
const AUDITOR = { username: 'aud', password: 'aud-password-0123', role: 'auditor' as const };
const TARGET = { username: 'tom', password: 'tom-password-0123', email: 'tom@example.com' };

const testApp: TestApp = await buildTestApp(t, { seed: { ...FIXTURES, users: [...FIXTURES.users, ADMIN, AUDITOR, TARGET] } });
const { app, db } = testApp;
const idOf = async (username: string) => (await findUserByUsername(db, username))!.id;
const adminId = await idOf(ADMIN.username);
const targetId = await idOf(TARGET.username);
const adminCookie = await startConsoleSession({ db, clock: () => new Date() }, adminId);
const auditorCookie = await startConsoleSession({ db, clock: () => new Date() }, await idOf(AUDITOR.username));

const get = (url: string, cookie?: string) =>
  app.inject({ method: 'GET', url, headers: cookie ? { cookie: `sso_console=${cookie}` } : {} });
const post = (url: string, cookie: string, form: Record<string, string>) =>
  app.inject({
    method: 'POST',
    url,
    headers: { cookie: `sso_console=${cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(form).toString(),
  });
const csrfOf = (res: LightMyRequestResponse) => /name="csrf" value="([^"]+)"/.exec(res.body)![1]!;
const adminCsrf = csrfOf(await get('/admin', adminCookie));
const auditorCsrf = csrfOf(await get('/admin', auditorCookie));
// As a browser sends it: from the form's page, with the revision it was read at (console-forms.ts).
const adminPost = (url: string, form: Record<string, string> = {}) => postFromPage(app, adminCookie, url, { csrf: adminCsrf, ...form });

async function lastAudit(event: string) {
  return db.selectFrom('admin_audit_records').selectAll().where('event', '=', event).orderBy('id', 'desc').executeTakeFirst();
}

const PAGES = [
  '/admin',
  '/admin/clients',
  `/admin/clients/${CONFIDENTIAL.client_id}`,
  '/admin/users',
  `/admin/users/${targetId}`,
  '/admin/risk-rules',
  '/admin/security-events',
  '/admin/signing-keys',
  '/admin/audit',
  '/admin/connections',
  '/admin/directories',
  '/admin/resource-servers',
  '/admin/scim-tokens',
];

t.test('every page needs a console session: without one the browser is sent to sign in', async (t) => {
  for (const page of PAGES) {
    const res = await get(page);
    t.equal(res.statusCode, 303, page);
    t.match(String(res.headers.location), /\/sso\/authorize\?/, page);
  }
  const forged = await get('/admin', 'not-a-session');
  t.equal(forged.statusCode, 303, 'an unknown cookie is no session');
});

t.test('every page is served with the CSP and headers of the other pages, and loads no script', async (t) => {
  for (const page of PAGES) {
    const res = await get(page, adminCookie);
    t.equal(res.statusCode, 200, page);
    for (const [name, value] of Object.entries(PAGE_HEADERS)) t.equal(res.headers[name], value, `${page}: ${name}`);
    t.notMatch(res.body, /<script/, `${page}: no script`);
  }
  const css = await get('/admin/console.css');
  t.equal(css.statusCode, 200);
  t.match(css.headers['content-type'], /^text\/css/);
});

t.test('the dashboard draws its charts on the server as SVG with a text alternative', async (t) => {
  const res = await get('/admin', adminCookie);
  t.equal((res.body.match(/<svg class="chart"/g) ?? []).length, 10, 'five series, each over a day and a week');
  t.match(res.body, /role="img" aria-labelledby="chart-0-caption chart-0-desc"/);
  t.match(res.body, /New users, last 7 days, by day: \d+ in all/);
});

t.test('an auditor sees every page but no form, and every change is refused with 403', async (t) => {
  for (const page of PAGES) {
    const res = await get(page, auditorCookie);
    t.equal(res.statusCode, 200, page);
    t.equal((res.body.match(/method="post"/g) ?? []).length, 1, `${page}: the sign-out form only`);
  }
  for (const page of ['/admin/clients/new', '/admin/users/new', `/admin/clients/${CONFIDENTIAL.client_id}/delete`]) {
    t.equal((await get(page, auditorCookie)).statusCode, 403, page);
  }
  const res = await post(`/admin/users/${targetId}/disable`, auditorCookie, { csrf: auditorCsrf });
  t.equal(res.statusCode, 403);
  t.match(res.body, /auditor/);
  t.equal((await findUserByUsername(db, TARGET.username))!.disabled_at, null, 'nothing changed');
});

t.test("a form without the session's CSRF token is refused with 403 and changes nothing", async (t) => {
  const res = await post('/admin/clients', adminCookie, { csrf: auditorCsrf, client_id: 'forged', redirect_uris: 'https://x.example/cb' });
  t.equal(res.statusCode, 403);
  const missing = await post('/admin/clients', adminCookie, { client_id: 'forged', redirect_uris: 'https://x.example/cb' });
  t.equal(missing.statusCode, 403);
  t.notOk(await db.selectFrom('clients').select('client_id').where('client_id', '=', 'forged').executeTakeFirst());
});

t.test(
  'clients: create shows the secret once, edit, rotate, delete after a confirmation; each audited with the person as actor',
  async (t) => {
    const created = await adminPost('/admin/clients', {
      client_id: 'billing',
      client_name: 'Billing',
      redirect_uris: 'https://billing.example/cb',
      post_logout_redirect_uris: '',
      grant_types: 'authorization_code',
      token_endpoint_auth_method: 'client_secret_basic',
    });
    t.equal(created.statusCode, 201);
    const secret = /<code class="secret">([^<]+)<\/code>/.exec(created.body)?.[1];
    t.match(secret, /^[A-Za-z0-9_-]{40,}$/, 'the secret is shown');
    t.notMatch((await get('/admin/clients/billing', adminCookie)).body, secret!, 'and never again');
    const record = await lastAudit('admin.client.created');
    t.equal(record?.actor_kind, 'person');
    t.equal(record?.actor_id, adminId);
    t.notMatch(JSON.stringify(record?.changes), secret!, 'the record holds no secret');

    const list = await get('/admin/clients?q=bill', adminCookie);
    t.match(list.body, /billing/);
    t.notMatch(list.body, new RegExp(`>${CONFIDENTIAL.client_id}<`), 'the search leaves others out');

    const refused = await adminPost('/admin/clients/billing', {
      client_name: 'Billing',
      redirect_uris: 'not a url',
      grant_types: 'authorization_code',
      token_endpoint_auth_method: 'client_secret_basic',
    });
    t.equal(refused.statusCode, 400, 'an invalid change is refused');
    t.match(refused.body, /class="error"/);
    const edited = await adminPost('/admin/clients/billing', {
      client_name: 'Billing v2',
      redirect_uris: 'https://billing.example/cb\nhttps://billing.example/cb2',
      grant_types: 'authorization_code',
      token_endpoint_auth_method: 'client_secret_basic',
    });
    t.equal(edited.statusCode, 303);
    const row = await db.selectFrom('clients').selectAll().where('client_id', '=', 'billing').executeTakeFirstOrThrow();
    t.equal(row.client_name, 'Billing v2');
    t.same(row.redirect_uris, ['https://billing.example/cb', 'https://billing.example/cb2']);
    t.equal((await lastAudit('admin.client.updated'))?.actor_id, adminId);

    const rotated = await adminPost('/admin/clients/billing/rotate');
    t.equal(rotated.statusCode, 200);
    const next = /<code class="secret">([^<]+)<\/code>/.exec(rotated.body)?.[1];
    t.ok(next && next !== secret, 'a new secret, shown once');
    t.equal((await lastAudit('admin.client.secret_rotated'))?.actor_id, adminId);

    const confirm = await get('/admin/clients/billing/delete', adminCookie);
    t.equal(confirm.statusCode, 200);
    t.match(confirm.body, /cannot be undone/);
    t.ok(
      await db.selectFrom('clients').select('client_id').where('client_id', '=', 'billing').executeTakeFirst(),
      'the confirmation page deletes nothing',
    );
    const deleted = await adminPost('/admin/clients/billing/delete');
    t.equal(deleted.statusCode, 303);
    t.notOk(await db.selectFrom('clients').select('client_id').where('client_id', '=', 'billing').executeTakeFirst());
    t.equal((await lastAudit('admin.client.deleted'))?.actor_id, adminId);
    t.equal((await get('/admin/clients/billing', adminCookie)).statusCode, 404);
  },
);

t.test('users: create, edit, disable and enable, reset link, sessions; each audited with the person as actor', async (t) => {
  const created = await adminPost('/admin/users', {
    username: 'newbie',
    email: 'newbie@example.com',
    name: 'New Bie',
    password: 'a long enough password 123',
    role: 'none',
  });
  t.equal(created.statusCode, 303);
  const newbie = await findUserByUsername(db, 'newbie');
  t.ok(newbie);
  t.equal((await lastAudit('admin.user.created'))?.actor_id, adminId);
  t.notMatch(JSON.stringify((await lastAudit('admin.user.created'))?.changes), /a long enough password/, 'no password in the record');
  const taken = await adminPost('/admin/users', { username: 'newbie', password: 'a long enough password 123', role: 'none' });
  t.equal(taken.statusCode, 409, 'a taken username is refused');

  t.match((await get('/admin/users?q=newb', adminCookie)).body, /newbie@example.com/);

  const edited = await adminPost(`/admin/users/${newbie!.id}`, {
    username: 'newbie',
    email: 'nb@example.com',
    name: 'N. Bie',
    role: 'auditor',
  });
  t.equal(edited.statusCode, 303);
  t.equal((await findUserByUsername(db, 'newbie'))!.email, 'nb@example.com');
  t.equal((await db.selectFrom('user_roles').select('role').where('user_id', '=', newbie!.id).executeTakeFirst())?.role, 'auditor');
  t.equal((await lastAudit('admin.user.updated'))?.actor_id, adminId);
  t.equal((await lastAudit('admin.user.role_set'))?.actor_id, adminId);

  const disabled = await adminPost(`/admin/users/${targetId}/disable`);
  t.equal(disabled.statusCode, 303);
  t.ok((await findUserByUsername(db, TARGET.username))!.disabled_at, 'the user is disabled');
  t.equal((await lastAudit('admin.user.disabled'))?.actor_id, adminId);
  t.match((await get(`/admin/users/${targetId}?done=disabled`, adminCookie)).body, /User disabled/);
  const enabled = await adminPost(`/admin/users/${targetId}/enable`);
  t.equal(enabled.statusCode, 303);
  t.equal((await findUserByUsername(db, TARGET.username))!.disabled_at, null);

  const link = await adminPost(`/admin/users/${targetId}/reset-link/show`);
  t.equal(link.statusCode, 200);
  t.match(link.body, /<code class="secret">http:\/\/localhost:3000\/sso\/[^<]+<\/code>/, 'the link is shown on the page');
  t.equal((await lastAudit('admin.user.reset_link'))?.actor_id, adminId);

  const revoked = await adminPost(`/admin/users/${targetId}/sessions/revoke`);
  t.equal(revoked.statusCode, 303);
  t.equal((await lastAudit('admin.sessions.revoked'))?.actor_id, adminId);

  const reset = await adminPost(`/admin/users/${targetId}/second-factor/reset`);
  t.equal(reset.statusCode, 303);

  const noDevice = await adminPost(`/admin/users/${targetId}/devices/00000000-0000-4000-8000-000000000000/revoke`);
  t.equal(noDevice.statusCode, 404, 'an unknown device is refused on the user page');
  t.match(noDevice.body, /has no device/);
});

t.test('risk rules, signing keys, security events and the audit log', async (t) => {
  const bad = await adminPost('/admin/risk-rules', { kind: 'network', value: 'not a cidr', effect: 'block', note: '' });
  t.equal(bad.statusCode, 400);
  const added = await adminPost('/admin/risk-rules', { kind: 'network', value: '203.0.113.0/24', effect: 'block', note: 'test net' });
  t.equal(added.statusCode, 303);
  const rule = await db.selectFrom('risk_rules').selectAll().where('value', '=', '203.0.113.0/24').executeTakeFirstOrThrow();
  t.equal((await lastAudit('admin.rule.created'))?.actor_id, adminId);
  t.equal((await adminPost(`/admin/risk-rules/${rule.id}/delete`)).statusCode, 303);
  t.notOk(await db.selectFrom('risk_rules').select('id').where('id', '=', rule.id).executeTakeFirst());

  const before = (await db.selectFrom('signing_keys').select('kid').execute()).length;
  const rotated = await adminPost('/admin/signing-keys/rotate');
  t.ok(rotated.statusCode === 303 || rotated.statusCode === 200);
  t.ok((await db.selectFrom('signing_keys').select('kid').execute()).length > before, 'new keys were added');
  t.equal((await lastAudit('admin.key.rotated'))?.actor_id, adminId);

  const events = await get('/admin/security-events?type=sign_in_blocked&since=2020-01-01T00:00:00Z', adminCookie);
  t.equal(events.statusCode, 200);
  const badFilter = await get('/admin/security-events?since=yesterday', adminCookie);
  t.equal(badFilter.statusCode, 400);
  t.match(badFilter.body, /RFC 3339/);

  const audit = await get(`/admin/audit?actor=person:${adminId}&event=admin.user.disabled`, adminCookie);
  t.equal(audit.statusCode, 200);
  t.match(audit.body, /admin\.user\.disabled/);
  t.notMatch(audit.body, /admin\.client\.created/, 'the filter leaves other events out');
  t.equal((await get('/admin/audit?actor=nocolon', adminCookie)).statusCode, 400);
});

t.test("the console's own client is shown, but no admin can change or delete it from the console", async (t) => {
  const page = await get('/admin/clients/sso-console', adminCookie);
  t.equal(page.statusCode, 200);
  t.match(page.body, /http:\/\/localhost:3000\/admin\/callback/);
  t.notMatch(page.body, /action="[^"]*\/clients\/sso-console/, 'no form acts on it');
  t.equal((await get('/admin/clients/sso-console/delete', adminCookie)).statusCode, 403);
  t.equal((await adminPost('/admin/clients/sso-console/delete')).statusCode, 403);
  t.equal((await adminPost('/admin/clients/sso-console/rotate')).statusCode, 403);
  t.ok(await db.selectFrom('clients').select('client_id').where('client_id', '=', 'sso-console').executeTakeFirst(), 'it is still there');
});

t.test('starting a console session removes those past their lifetimes', async (t) => {
  const stale = await startConsoleSession({ db, clock: () => new Date(Date.now() - 9 * 3600 * 1000) }, adminId);
  t.equal((await get('/admin', stale)).statusCode, 303, 'past its absolute lifetime');
  await startConsoleSession({ db, clock: () => new Date() }, adminId);
  const rows = await db.selectFrom('console_sessions').select('id_hash').where('id_hash', '=', sha256(stale)).execute();
  t.equal(rows.length, 0);
});

t.test('the users list is read a page at a time from the database, searched there, with a link to the next page', async (t) => {
  const now = new Date();
  await db
    .insertInto('users')
    .values(
      Array.from({ length: 60 }, (_, i) => ({
        id: randomUUID(),
        username: `paged-${String(i).padStart(2, '0')}`,
        password_hash: 'not-a-hash',
        email: `paged-${i}@example.com`,
        email_verified: false,
        claims: JSON.stringify({}),
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();
  const names = (body: string) => [...body.matchAll(/>(paged-\d\d)<\/a>/g)].map((m) => m[1]!);
  const nextOf = (body: string) => /<a href="[^"?]*\/admin\/users\?([^"]+)">Next page<\/a>/.exec(body)?.[1]?.replace(/&amp;/g, '&');
  const first = await get('/admin/users?q=paged-', adminCookie);
  t.equal(first.statusCode, 200);
  t.equal(names(first.body).length, 50, 'fifty on a page');
  const next = nextOf(first.body);
  t.match(next, /^q=paged-&after=[0-9a-f-]{36}$/, 'the next page keeps the search');
  const second = await get(`/admin/users?${next}`, adminCookie);
  t.equal(names(second.body).length, 10);
  t.notOk(nextOf(second.body), 'no link after the last page');
  t.same(
    [...names(first.body), ...names(second.body)].sort(),
    Array.from({ length: 60 }, (_, i) => `paged-${String(i).padStart(2, '0')}`),
  );
  t.equal((await get('/admin/users?after=not-a-user-id', adminCookie)).statusCode, 400, 'a forged position is refused, not sent to SQL');
});

t.test('the clients list is read a page at a time from the database too, with the search kept', async (t) => {
  const now = new Date();
  await db
    .insertInto('clients')
    .values(
      Array.from({ length: 55 }, (_, i) => ({
        client_id: `listed-${String(i).padStart(2, '0')}`,
        client_name: `Listed ${i}`,
        redirect_uris: ['https://listed.example/cb'],
        post_logout_redirect_uris: [],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        metadata: JSON.stringify({}),
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();
  const ids = (body: string) => [...body.matchAll(/>(listed-\d\d)<\/a>/g)].map((m) => m[1]!);
  const nextOf = (body: string) => /<a href="[^"?]*\/admin\/clients\?([^"]+)">Next page<\/a>/.exec(body)?.[1]?.replace(/&amp;/g, '&');
  const first = await get('/admin/clients?q=LISTED-', adminCookie);
  t.same(
    ids(first.body),
    Array.from({ length: 50 }, (_, i) => `listed-${String(i).padStart(2, '0')}`),
    'the first fifty, by client id',
  );
  const second = await get(`/admin/clients?${nextOf(first.body)}`, adminCookie);
  t.same(ids(second.body), ['listed-50', 'listed-51', 'listed-52', 'listed-53', 'listed-54']);
  t.notOk(nextOf(second.body));
});

t.test('a client is limited to groups from its form, and the limit lifted again; an unknown group changes nothing', async (t) => {
  const now = new Date();
  await db
    .insertInto('groups')
    .values({ id: randomUUID(), name: 'Night Shift', description: null, created_at: now, updated_at: now })
    .execute();
  const form = {
    client_name: CONFIDENTIAL.client_name,
    redirect_uris: CONFIDENTIAL.redirect_uris.join('\n'),
    grant_types: 'authorization_code',
    token_endpoint_auth_method: 'client_secret_basic',
  };
  const limitOf = () =>
    db
      .selectFrom('clients')
      .leftJoin('client_allowed_groups as a', 'a.client_id', 'clients.client_id')
      .leftJoin('groups as g', 'g.id', 'a.group_id')
      .select(['clients.group_restricted', 'g.name'])
      .where('clients.client_id', '=', CONFIDENTIAL.client_id)
      .execute();

  const unknown = await adminPost(`/admin/clients/${CONFIDENTIAL.client_id}`, { ...form, limit_groups: 'on', allowed_groups: 'Day Shift' });
  t.equal(unknown.statusCode, 400);
  t.match(unknown.body, /Day Shift/, 'the form says which name is no group');
  t.same(await limitOf(), [{ group_restricted: false, name: null }], 'nothing written');

  const limited = await adminPost(`/admin/clients/${CONFIDENTIAL.client_id}`, {
    ...form,
    limit_groups: 'on',
    allowed_groups: 'night shift\n',
  });
  t.equal(limited.statusCode, 303);
  t.same(await limitOf(), [{ group_restricted: true, name: 'Night Shift' }], 'a name with a space, in any case');
  t.match((await lastAudit('admin.client.updated'))?.changes, { allowed_groups: ['night shift'] });
  const page = await get(`/admin/clients/${CONFIDENTIAL.client_id}`, adminCookie);
  t.match(page.body, /<input type="checkbox" id="limit_groups" name="limit_groups" checked>/);

  const lifted = await adminPost(`/admin/clients/${CONFIDENTIAL.client_id}`, form);
  t.equal(lifted.statusCode, 303);
  t.same(await limitOf(), [{ group_restricted: false, name: null }], 'an unticked box lifts the limit');
});
