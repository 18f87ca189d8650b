// The console's pages of connections, directories, resource servers and SCIM tokens: an admin lists, shows, creates,
// changes and removes them through the domain functions the API and the command line call, each change audited with
// the person as actor; secrets are typed into password fields and never shown back, a SCIM token is shown once; an
// auditor reads every page but gets no form, and every change of theirs is refused; a form without the session's
// CSRF token changes nothing; the forms the API guards with If-Match carry its ETag and a stale one is a 412.
import t from 'tap';
import { ADMIN_FIXTURES, adminApiApp } from '../../helpers/admin-api.js';
import { startConsoleSession } from '../../../src/domain/console/console-sessions.js';
import { sha256 } from '../../../src/domain/secrets.js';
import { findUserByUsername } from '../../../src/storage/users.js';
import { revisionIn } from './console-forms.js';

const ADMIN = { username: 'ada', password: 'ada-password-0123', role: 'admin' as const };
const AUDITOR = { username: 'aud', password: 'aud-password-0123', role: 'auditor' as const };

const api = await adminApiApp(t, { seed: { ...ADMIN_FIXTURES, users: [...ADMIN_FIXTURES.users, ADMIN, AUDITOR] } });
const { app, db } = api;
const adminId = (await findUserByUsername(db, ADMIN.username))!.id;
const adminCookie = await startConsoleSession({ db, clock: () => new Date() }, adminId);
const auditorCookie = await startConsoleSession({ db, clock: () => new Date() }, (await findUserByUsername(db, AUDITOR.username))!.id);

const get = (url: string, cookie = adminCookie) => app.inject({ method: 'GET', url, headers: { cookie: `sso_console=${cookie}` } });
const csrfOf = async (cookie: string) => /name="csrf" value="([^"]+)"/.exec((await get('/admin', cookie)).body)![1]!;
const adminCsrf = await csrfOf(adminCookie);
const auditorCsrf = await csrfOf(auditorCookie);
const post = (url: string, form: Record<string, string>, cookie = adminCookie, csrf = adminCsrf) =>
  app.inject({
    method: 'POST',
    url,
    headers: { cookie: `sso_console=${cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ csrf, ...form }).toString(),
  });
const lastAudit = (event: string) =>
  db.selectFrom('admin_audit_records').selectAll().where('event', '=', event).orderBy('id', 'desc').executeTakeFirst();
const auditCount = async () =>
  Number((await db.selectFrom('admin_audit_records').select(db.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

const RS = 'https://orders.example/api';
const RS_PAGE = `/admin/resource-servers/${encodeURIComponent(RS)}`;
const entry = (value: unknown) => JSON.stringify(value);

t.test('resource servers: create, show, replace under the API revision (a stale one is a 412), delete', async (t) => {
  const bad = await post('/admin/resource-servers', { entry: '{ not json' });
  t.equal(bad.statusCode, 400, 'a form that is not JSON is refused, not a 500');
  t.match(bad.body, /not JSON/);
  const refused = await post('/admin/resource-servers', { entry: entry({ identifier: 'https://orders.example/api#v1' }) });
  t.equal(refused.statusCode, 400, 'the seed file rules apply');
  t.match(refused.body, /class="error"/);
  t.match(refused.body, /must not contain a fragment/, 'saying why');
  t.match(refused.body, /orders.example\/api#v1/, 'the typed entry is kept');

  const created = await post('/admin/resource-servers', {
    entry: entry({ identifier: RS, name: 'Orders', scopes: { 'orders:read': 'Read orders' } }),
  });
  t.equal(created.statusCode, 303);
  t.equal(created.headers.location, `http://localhost:3000${RS_PAGE}?done=created`);
  t.equal((await lastAudit('admin.resource.created'))?.actor_id, adminId, 'audited with the person as actor');
  const again = await post('/admin/resource-servers', { entry: entry({ identifier: RS }) });
  t.equal(again.statusCode, 409, 'the new form does not replace an existing one');

  t.match((await get('/admin/resource-servers')).body, /Orders/);
  const page = await get(RS_PAGE);
  t.equal(page.statusCode, 200);
  t.match(page.body, /orders:read: Read orders/);
  const revision = revisionIn(page.body)!;
  t.equal(
    revision,
    (await api.call(t, 'GET', `/resource-servers/${encodeURIComponent(RS)}`)).headers.etag,
    "the revision is the API's ETag",
  );

  const renamed = await post(RS_PAGE, { revision, entry: entry({ identifier: RS, name: 'Orders v2' }) });
  t.equal(renamed.statusCode, 303);
  t.equal((await api.call(t, 'GET', `/resource-servers/${encodeURIComponent(RS)}`)).json().name, 'Orders v2');
  const stale = await post(RS_PAGE, { revision, entry: entry({ identifier: RS, name: 'Orders v3' }) });
  t.equal(stale.statusCode, 412, 'the old revision no longer matches');
  t.equal((await api.call(t, 'GET', `/resource-servers/${encodeURIComponent(RS)}`)).json().name, 'Orders v2', 'nothing written');
  const moved = await post(RS_PAGE, { revision: revisionIn(stale.body)!, entry: entry({ identifier: 'https://other.example/' }) });
  t.equal(moved.statusCode, 400, 'the identifier cannot be changed');

  const confirm = await get(`${RS_PAGE}/delete`);
  t.match(confirm.body, /cannot be undone/);
  const deleted = await post(`${RS_PAGE}/delete`, { revision: revisionIn(confirm.body)! });
  t.equal(deleted.statusCode, 303);
  t.equal((await get(RS_PAGE)).statusCode, 404);
  t.equal((await lastAudit('admin.resource.deleted'))?.actor_id, adminId);
});

t.test('connections: the client secret goes in a password field, is never shown back, and must be retyped to be kept', async (t) => {
  const SECRET = 'upstream-secret-0123456789';
  const inEntry = await post('/admin/connections', {
    entry: entry({ id: 'gl', preset: 'gitlab', client_id: 'abc', client_secret: SECRET }),
  });
  t.equal(inEntry.statusCode, 400, 'a secret in the JSON is refused');
  t.notMatch(inEntry.body, SECRET, 'and not shown back in the form');
  const created = await post('/admin/connections', { entry: entry({ id: 'gl', preset: 'gitlab', client_id: 'abc' }), secret: SECRET });
  t.equal(created.statusCode, 303);
  const page = await get('/admin/connections/gl');
  t.match(page.body, /set \(sealed\)/);
  t.match(page.body, /http:\/\/localhost:3000\/sso\/connections\/gl\/callback|\/gl\//, 'the redirect URI to register upstream');
  t.notMatch(page.body, SECRET, 'never shown');
  t.notMatch(JSON.stringify((await lastAudit('admin.connection.created'))?.changes), SECRET, 'nor recorded');
  t.equal((await lastAudit('admin.connection.created'))?.actor_id, adminId);
  const revision = revisionIn(page.body)!;
  t.equal(revision, (await api.call(t, 'GET', '/connections/gl')).headers.etag);

  const dropped = await post('/admin/connections/gl', {
    revision,
    entry: entry({ id: 'gl', preset: 'gitlab', client_id: 'abc', display_name: 'GitLab (work)' }),
  });
  t.equal(dropped.statusCode, 400, 'saving without the secret would drop it: refused');
  t.match(dropped.body, /type it again/);
  const saved = await post('/admin/connections/gl', {
    revision,
    entry: entry({ id: 'gl', preset: 'gitlab', client_id: 'abc', display_name: 'GitLab (work)' }),
    secret: SECRET,
  });
  t.equal(saved.statusCode, 303);
  const after = (await api.call(t, 'GET', '/connections/gl')).json();
  t.equal(after.display_name, 'GitLab (work)');
  t.equal(after.has_client_secret, true);
  t.equal((await post('/admin/connections/gl/delete', { revision })).statusCode, 412, 'a deletion from a stale page is refused');
  const confirm = await get('/admin/connections/gl/delete');
  t.equal((await post('/admin/connections/gl/delete', { revision: revisionIn(confirm.body)! })).statusCode, 303);
  t.equal((await api.call(t, 'GET', '/connections/gl')).statusCode, 404);
});

t.test('directories: the bind password is typed on each save and never shown; a test that reaches nothing says so', async (t) => {
  const PASSWORD = 'bind-password-0123456789';
  const corp = {
    id: 'corp',
    display_name: 'Corp',
    url: 'ldaps://127.0.0.1:1',
    bind_dn: 'cn=sso,dc=example,dc=com',
    user_base: 'ou=people,dc=example,dc=com',
    user_filter: '(uid={login})',
    attributes: { username: 'uid', id_attribute: 'entryUUID' },
    connect_timeout_ms: 500,
    operation_timeout_ms: 500,
  };
  t.equal((await post('/admin/directories', { entry: entry(corp) })).statusCode, 400, 'no bind password: refused');
  const plain = await post('/admin/directories', { entry: entry({ ...corp, url: 'ldap://127.0.0.1:1' }), secret: PASSWORD });
  t.equal(plain.statusCode, 400);
  t.match(plain.body, /in the clear/, "the seed file's words");
  t.equal((await post('/admin/directories', { entry: entry(corp), secret: PASSWORD })).statusCode, 303);
  const page = await get('/admin/directories/corp');
  t.equal(page.statusCode, 200);
  t.notMatch(page.body, PASSWORD);
  t.notMatch(JSON.stringify((await lastAudit('admin.directory.added'))?.changes), PASSWORD);
  t.equal((await lastAudit('admin.directory.added'))?.actor_id, adminId);
  t.equal((await post('/admin/directories/corp', { entry: entry({ ...corp, display_name: 'Corp 2' }) })).statusCode, 400, 'retype it');
  t.equal((await post('/admin/directories/corp', { entry: entry({ ...corp, display_name: 'Corp 2' }), secret: PASSWORD })).statusCode, 303);
  t.match((await get('/admin/directories')).body, /Corp 2/);
  const tested = await post('/admin/directories/corp/test', { login: 'someone' });
  t.equal(tested.statusCode, 400);
  t.match(tested.body, /did not answer/);
  t.equal((await post('/admin/directories/corp/delete', {})).statusCode, 303);
  t.equal((await get('/admin/directories/corp')).statusCode, 404);
  t.equal((await lastAudit('admin.directory.removed'))?.actor_id, adminId);
});

t.test('SCIM tokens: created with the token shown once and kept as a digest only, listed, revoked after a confirmation', async (t) => {
  const bad = await post('/admin/scim-tokens', { name: 'Entra Prod', expires_in_days: '' });
  t.equal(bad.statusCode, 400);
  t.equal((await post('/admin/scim-tokens', { name: 'entra', expires_in_days: 'soon' })).statusCode, 400, 'days must be a number');
  const created = await post('/admin/scim-tokens', { name: 'entra', expires_in_days: '30' });
  t.equal(created.statusCode, 201);
  t.equal(created.headers['cache-control'], 'no-store');
  const token = /<code class="secret">([^<]+)<\/code>/.exec(created.body)?.[1];
  t.match(token, /^scim_[A-Za-z0-9_-]{43}$/);
  const row = await db.selectFrom('scim_tokens').selectAll().where('name', '=', 'entra').executeTakeFirstOrThrow();
  t.equal(row.token_hash, sha256(token!), 'only its digest is kept');
  t.notMatch((await get('/admin/scim-tokens')).body, token!, 'never shown again');
  t.notMatch((await get('/admin/scim-tokens/entra')).body, token!);
  t.match((await get('/admin/scim-tokens/entra')).body, /valid until/);
  t.equal((await lastAudit('admin.scim_token.created'))?.actor_id, adminId);
  t.equal((await post('/admin/scim-tokens', { name: 'entra', expires_in_days: '' })).statusCode, 409);
  t.match((await get('/admin/scim-tokens/entra/revoke')).body, /cannot be undone/);
  t.equal((await post('/admin/scim-tokens/entra/revoke', {})).statusCode, 303);
  t.equal((await get('/admin/scim-tokens/entra')).statusCode, 404);
  t.equal((await lastAudit('admin.scim_token.revoked'))?.actor_id, adminId);
});

t.test('an auditor reads the new pages but gets no form, and each change of theirs is refused with 403', async (t) => {
  await post('/admin/resource-servers', { entry: entry({ identifier: RS }) });
  await post('/admin/scim-tokens', { name: 'okta', expires_in_days: '' });
  for (const page of [
    '/admin/connections',
    '/admin/directories',
    '/admin/resource-servers',
    RS_PAGE,
    '/admin/scim-tokens',
    '/admin/scim-tokens/okta',
  ]) {
    const res = await get(page, auditorCookie);
    t.equal(res.statusCode, 200, page);
    t.equal((res.body.match(/method="post"/g) ?? []).length, 1, `${page}: the sign-out form only`);
    t.notMatch(res.body, /\/new"|\/delete"|\/revoke"/, `${page}: no link to a change`);
  }
  for (const page of [
    '/admin/connections/new',
    '/admin/directories/new',
    '/admin/resource-servers/new',
    `${RS_PAGE}/delete`,
    '/admin/scim-tokens/new',
    '/admin/scim-tokens/okta/revoke',
  ])
    t.equal((await get(page, auditorCookie)).statusCode, 403, page);
  const before = await auditCount();
  for (const [url, form] of [
    ['/admin/resource-servers', { entry: entry({ identifier: 'https://aud.example/' }) }],
    [`${RS_PAGE}/delete`, {}],
    ['/admin/connections', { entry: entry({ id: 'aud', preset: 'github', client_id: 'x' }) }],
    ['/admin/scim-tokens', { name: 'by-auditor', expires_in_days: '' }],
    ['/admin/scim-tokens/okta/revoke', {}],
  ] as const) {
    const res = await post(url, form, auditorCookie, auditorCsrf);
    t.equal(res.statusCode, 403, url);
    t.match(res.body, /auditor/);
  }
  t.equal(await auditCount(), before, 'nothing changed');
  t.ok(await db.selectFrom('scim_tokens').select('name').where('name', '=', 'okta').executeTakeFirst(), 'the token stays');
});

t.test("a form without the session's CSRF token changes nothing", async (t) => {
  const res = await post('/admin/scim-tokens', { name: 'forged', expires_in_days: '' }, adminCookie, auditorCsrf);
  t.equal(res.statusCode, 403);
  t.notOk(await db.selectFrom('scim_tokens').select('name').where('name', '=', 'forged').executeTakeFirst());
});
