// The console's edit and delete forms under the management API's If-Match (RFC 9110 13.1.1; RFC 6585 3): each form
// carries the revision its page read, the very ETag the API answers for the resource; a form sent after someone else
// changed the resource is refused with 412 and writes nothing (not "last save wins"), the page showing the resource
// as it is now; a form with no revision is refused with 428.
import t, { type Test } from 'tap';
import { ADMIN_FIXTURES, adminApiApp } from '../../helpers/admin-api.js';
import { startConsoleSession } from '../../../src/domain/console/console-sessions.js';
import { findUserByUsername } from '../../../src/storage/users.js';
import { revisionIn } from './console-forms.js';

const ADMIN = { username: 'ada', password: 'ada-password-0123', role: 'admin' as const };
const TOM = { username: 'tom', password: 'tom-password-0123', email: 'tom@example.com' };

const api = await adminApiApp(t, {
  seed: {
    ...ADMIN_FIXTURES,
    clients: [
      ...ADMIN_FIXTURES.clients!,
      { client_id: 'billing', client_secret: 'billing-secret-0123456789', redirect_uris: ['https://billing.example/cb'] },
    ],
    users: [...ADMIN_FIXTURES.users, ADMIN, TOM],
    groups: [{ name: 'finance', description: 'The finance team', members: [] }],
    webhooks: [{ id: 'siem', url: 'https://siem.example/in', events: ['sign_in.failed'], secret: 's'.repeat(32) }],
  },
});
const { app, db } = api;
const cookie = await startConsoleSession({ db, clock: () => new Date() }, (await findUserByUsername(db, ADMIN.username))!.id);
const tomId = (await findUserByUsername(db, TOM.username))!.id;
const financeId = (await db.selectFrom('groups').select('id').where('name', '=', 'finance').executeTakeFirstOrThrow()).id;

const get = (url: string) => app.inject({ method: 'GET', url, headers: { cookie: `sso_console=${cookie}` } });
const csrf = /name="csrf" value="([^"]+)"/.exec((await get('/admin')).body)![1]!;
const post = (url: string, form: Record<string, string>) =>
  app.inject({
    method: 'POST',
    url,
    headers: { cookie: `sso_console=${cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ csrf, ...form }).toString(),
  });
const auditCount = async () =>
  Number((await db.selectFrom('admin_audit_records').select(db.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

/** The revision of a console page, checked to be the API's ETag of the same resource. */
async function revisionOf(t: Test, page: string, apiPath: string): Promise<string> {
  const res = await get(page);
  t.equal(res.statusCode, 200, page);
  const revision = revisionIn(res.body);
  t.equal(revision, (await api.call(t, 'GET', apiPath)).headers.etag, `${page}: the revision is the API's ETag`);
  return revision!;
}

/** A form sent with a stale revision and with none: 412 and 428, the page saying so, nothing written or audited. */
async function refusedStale(t: Test, url: string, form: Record<string, string>, stale: string) {
  const before = await auditCount();
  const res = await post(url, { ...form, revision: stale });
  t.equal(res.statusCode, 412, `${url}: changed meanwhile is 412`);
  t.match(res.body, /changed by someone else after you opened the page, so nothing was saved/);
  const none = await post(url, form);
  t.equal(none.statusCode, 428, `${url}: no revision is 428`);
  t.equal(await auditCount(), before, `${url}: nothing audited`);
  return res;
}

t.test('a client edited in the API after its page was read: the console form is a 412 and the API change stands', async (t) => {
  const read = await revisionOf(t, '/admin/clients/billing', '/clients/billing');
  const etag = (await api.call(t, 'GET', '/clients/billing')).headers.etag as string;
  t.equal(
    (await api.call(t, 'PATCH', '/clients/billing', { body: { client_name: 'From the API' }, headers: { 'if-match': etag } })).statusCode,
    200,
  );
  const form = {
    client_name: 'From the console',
    redirect_uris: 'https://billing.example/cb',
    grant_types: 'authorization_code',
    token_endpoint_auth_method: 'client_secret_basic',
  };
  const res = await refusedStale(t, '/admin/clients/billing', form, read);
  t.match(res.body, /name="client_name" value="From the API"/, 'the form shows the client as it is now');
  t.equal(
    (await db.selectFrom('clients').select('client_name').where('client_id', '=', 'billing').executeTakeFirstOrThrow()).client_name,
    'From the API',
  );
  const fresh = revisionIn(res.body)!;
  t.not(fresh, read, 'with the revision it is at now');
  t.equal((await post('/admin/clients/billing', { ...form, revision: fresh })).statusCode, 303, 'which saves');

  const deleteRead = revisionIn((await get('/admin/clients/billing/delete')).body)!;
  t.equal(deleteRead, (await api.call(t, 'GET', '/clients/billing')).headers.etag);
  const now = (await api.call(t, 'GET', '/clients/billing')).headers.etag as string;
  await api.call(t, 'PATCH', '/clients/billing', { body: { client_name: 'Renamed again' }, headers: { 'if-match': now } });
  await refusedStale(t, '/admin/clients/billing/delete', {}, deleteRead);
  t.ok(await db.selectFrom('clients').select('client_id').where('client_id', '=', 'billing').executeTakeFirst(), 'not deleted');
});

t.test('a user edited elsewhere after the page was read: the profile form is a 412, the other change stands', async (t) => {
  const read = await revisionOf(t, `/admin/users/${tomId}`, `/users/${tomId}`);
  const etag = (await api.call(t, 'GET', `/users/${tomId}`)).headers.etag as string;
  t.equal(
    (await api.call(t, 'PATCH', `/users/${tomId}`, { body: { email: 'thomas@example.com' }, headers: { 'if-match': etag } })).statusCode,
    200,
  );
  const form = { username: 'tom', email: 'tom@example.com', name: 'Tom', role: 'none' };
  const res = await refusedStale(t, `/admin/users/${tomId}`, form, read);
  t.match(res.body, /name="email" value="thomas@example.com"/, 'the form shows the user as they are now');
  t.equal((await findUserByUsername(db, 'tom'))!.email, 'thomas@example.com');
  t.equal((await post(`/admin/users/${tomId}`, { ...form, revision: revisionIn(res.body)! })).statusCode, 303);
  t.equal((await findUserByUsername(db, 'tom'))!.email, 'tom@example.com', 'the form read afresh saves');
});

t.test('a group renamed elsewhere: its edit and delete forms are 412s and the group stays as renamed', async (t) => {
  const read = await revisionOf(t, `/admin/groups/${financeId}`, '/groups/finance');
  const deleteRead = revisionIn((await get(`/admin/groups/${financeId}/delete`)).body)!;
  t.equal(deleteRead, read, 'the confirmation carries the same revision');
  const etag = (await api.call(t, 'GET', '/groups/finance')).headers.etag as string;
  t.equal((await api.call(t, 'PATCH', '/groups/finance', { body: { name: 'treasury' }, headers: { 'if-match': etag } })).statusCode, 200);
  const res = await refusedStale(t, `/admin/groups/${financeId}`, { name: 'money', description: '' }, read);
  t.match(res.body, /name="name" required maxlength="\d+" value="treasury"/);
  await refusedStale(t, `/admin/groups/${financeId}/delete`, {}, deleteRead);
  t.equal((await db.selectFrom('groups').select('name').where('id', '=', financeId).executeTakeFirstOrThrow()).name, 'treasury');
});

t.test('a webhook subscription changed elsewhere: its edit and delete forms are 412s', async (t) => {
  const read = await revisionOf(t, '/admin/webhooks/siem', '/webhooks/siem');
  const deleteRead = revisionIn((await get('/admin/webhooks/siem/delete')).body)!;
  const etag = (await api.call(t, 'GET', '/webhooks/siem')).headers.etag as string;
  t.equal(
    (await api.call(t, 'PATCH', '/webhooks/siem', { body: { url: 'https://siem2.example/in' }, headers: { 'if-match': etag } })).statusCode,
    200,
  );
  const form = { url: 'https://siem3.example/in', description: '', 'event:sign_in.failed': 'on', enabled: 'on' };
  const res = await refusedStale(t, '/admin/webhooks/siem/edit', form, read);
  t.match(res.body, /name="url" required value="https:\/\/siem2.example\/in"/, 'the form shows the subscription as it is now');
  await refusedStale(t, '/admin/webhooks/siem/delete', {}, deleteRead);
  t.equal(
    (await db.selectFrom('webhook_subscriptions').select('url').where('id', '=', 'siem').executeTakeFirstOrThrow()).url,
    'https://siem2.example/in',
  );
});
