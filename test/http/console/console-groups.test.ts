// The console's group pages (issue 20): an admin lists, creates, edits and deletes groups and adds and removes
// members (by username or email), each change audited with the person as actor; a refused form comes back saying
// why and writes nothing; an auditor reads every page but gets no form and no change; a form without the session's
// CSRF token changes nothing.
import t from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, FIXTURES, type TestApp } from '../../helpers/app.js';
import { postFromPage } from './console-forms.js';
import { startConsoleSession } from '../../../src/domain/console/console-sessions.js';
import { findUserByUsername } from '../../../src/storage/users.js';
import { PAGE_HEADERS } from '../../../src/http/views/layout.js';

const ADMIN = { username: 'ada', password: 'ada-password-0123', role: 'admin' as const };
const AUDITOR = { username: 'aud', password: 'aud-password-0123', role: 'auditor' as const };
const TOM = { username: 'tom', password: 'tom-password-0123', email: 'tom@example.com' };
const SUE = { username: 'sue', password: 'sue-password-0123', email: 'sue@example.com' };

const testApp: TestApp = await buildTestApp(t, {
  seed: {
    ...FIXTURES,
    clients: [
      ...FIXTURES.clients!,
      {
        client_id: 'payroll',
        client_secret: 'payroll-secret-0123456789',
        redirect_uris: ['https://payroll.example/cb'],
        allowed_groups: ['finance'],
      },
    ],
    users: [...FIXTURES.users, ADMIN, AUDITOR, TOM, SUE],
    groups: [{ name: 'finance', description: 'The finance team', members: ['tom'] }],
  },
});
const { app, db } = testApp;
const idOf = async (username: string) => (await findUserByUsername(db, username))!.id;
const adminId = await idOf(ADMIN.username);
const tomId = await idOf(TOM.username);
const sueId = await idOf(SUE.username);
const adminCookie = await startConsoleSession({ db, clock: () => new Date() }, adminId);
const auditorCookie = await startConsoleSession({ db, clock: () => new Date() }, await idOf(AUDITOR.username));

const get = (url: string, cookie: string) => app.inject({ method: 'GET', url, headers: { cookie: `sso_console=${cookie}` } });
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

const groupNamed = (name: string) => db.selectFrom('groups').selectAll().where('name', '=', name).executeTakeFirst();
const financeId = (await groupNamed('finance'))!.id;
const membersOf = async (groupId: string) =>
  (await db.selectFrom('group_members').select('user_id').where('group_id', '=', groupId).execute()).map((r) => r.user_id).sort();
const auditCount = async () =>
  Number((await db.selectFrom('admin_audit_records').select(db.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
const lastAudit = (event: string) =>
  db.selectFrom('admin_audit_records').selectAll().where('event', '=', event).orderBy('id', 'desc').executeTakeFirst();

t.test('the list shows each group with its member count, and the navigation leads to it', async (t) => {
  const res = await get('/admin/groups', adminCookie);
  t.equal(res.statusCode, 200);
  for (const [name, value] of Object.entries(PAGE_HEADERS)) t.equal(res.headers[name], value, name);
  t.notMatch(res.body, /<script/);
  t.match(res.body, /<a href="[^"]*\/admin\/groups" aria-current="page">Groups<\/a>/, 'marked in the navigation');
  t.match(res.body, new RegExp(`<a href="[^"]*/admin/groups/${financeId}">finance</a></td><td>The finance team</td><td>1</td>`));
  t.match(res.body, /New group/);
});

t.test('an auditor reads the list and a group but gets no form, and every change is refused', async (t) => {
  for (const page of ['/admin/groups', `/admin/groups/${financeId}`]) {
    const res = await get(page, auditorCookie);
    t.equal(res.statusCode, 200, page);
    t.equal((res.body.match(/method="post"/g) ?? []).length, 1, `${page}: the sign-out form only`);
    t.notMatch(res.body, /New group|Delete this group/, page);
  }
  const page = await get(`/admin/groups/${financeId}`, auditorCookie);
  t.match(page.body, />tom</, 'the members are listed');
  t.match(
    page.body,
    /<h2>Clients limited to this group<\/h2><ul><li><a href="[^"]*\/admin\/clients\/payroll">payroll<\/a>/,
    'and the clients limited to it',
  );
  for (const page of ['/admin/groups/new', `/admin/groups/${financeId}/delete`])
    t.equal((await get(page, auditorCookie)).statusCode, 403, page);
  const before = await auditCount();
  const refused = [
    await post('/admin/groups', auditorCookie, { csrf: auditorCsrf, name: 'by-auditor' }),
    await post(`/admin/groups/${financeId}/members`, auditorCookie, { csrf: auditorCsrf, member: 'sue' }),
    await post(`/admin/groups/${financeId}/members/${tomId}/remove`, auditorCookie, { csrf: auditorCsrf }),
    await post(`/admin/groups/${financeId}/delete`, auditorCookie, { csrf: auditorCsrf }),
  ];
  for (const res of refused) {
    t.equal(res.statusCode, 403);
    t.match(res.body, /auditor/);
  }
  t.notOk(await groupNamed('by-auditor'));
  t.same(await membersOf(financeId), [tomId], 'the members are as they were');
  t.equal(await auditCount(), before, 'nothing audited');
});

t.test("a form without the session's CSRF token is refused with 403 and changes nothing", async (t) => {
  t.equal((await post('/admin/groups', adminCookie, { csrf: auditorCsrf, name: 'forged' })).statusCode, 403);
  t.equal((await post('/admin/groups', adminCookie, { name: 'forged' })).statusCode, 403);
  t.equal((await post(`/admin/groups/${financeId}/members`, adminCookie, { member: 'sue' })).statusCode, 403);
  t.equal((await post(`/admin/groups/${financeId}/delete`, adminCookie, { csrf: 'x' })).statusCode, 403);
  t.notOk(await groupNamed('forged'));
  t.ok(await groupNamed('finance'));
  t.same(await membersOf(financeId), [tomId]);
});

t.test('create and edit: a bad name gives the form again saying why and writes nothing; each change audited', async (t) => {
  const newForm = await get('/admin/groups/new', adminCookie);
  t.equal(newForm.statusCode, 200);
  t.match(newForm.body, /name="csrf"/);

  const before = await auditCount();
  const taken = await adminPost('/admin/groups', { name: 'FINANCE', description: 'again' });
  t.equal(taken.statusCode, 409, 'names are unique in any case');
  t.match(taken.body, /class="error" role="alert">[^<]*exists already/);
  t.match(taken.body, /value="FINANCE"/, 'what was typed is kept');
  const long = await adminPost('/admin/groups', { name: 'x'.repeat(101) });
  t.equal(long.statusCode, 400);
  t.match(long.body, /at most 100 characters/);
  const empty = await adminPost('/admin/groups', { name: '' });
  t.equal(empty.statusCode, 400);
  t.equal(await auditCount(), before, 'nothing written');

  const created = await adminPost('/admin/groups', { name: 'ops', description: 'On call' });
  t.equal(created.statusCode, 303);
  const ops = (await groupNamed('ops'))!;
  t.equal(ops.description, 'On call');
  t.match(String(created.headers.location), new RegExp(`/admin/groups/${ops.id}\\?done=created$`));
  const record = await lastAudit('admin.group.created');
  t.equal(record?.actor_kind, 'person');
  t.equal(record?.actor_id, adminId);
  t.equal(record?.target_id, ops.id);
  t.match((await get(`/admin/groups/${ops.id}?done=created`, adminCookie)).body, /Group created\./);

  const clash = await adminPost(`/admin/groups/${ops.id}`, { name: 'Finance', description: 'On call' });
  t.equal(clash.statusCode, 409, 'a rename onto a taken name is refused');
  t.match(clash.body, /exists already/);
  t.match(clash.body, /value="Finance"/);
  t.equal((await groupNamed('ops'))?.id, ops.id, 'the name is unchanged');

  const edited = await adminPost(`/admin/groups/${ops.id}`, { name: 'operations', description: '' });
  t.equal(edited.statusCode, 303);
  t.match(String(edited.headers.location), /\?done=saved$/);
  const row = (await groupNamed('operations'))!;
  t.equal(row.id, ops.id);
  t.equal(row.description, null, 'an empty description removes it');
  const updated = await lastAudit('admin.group.updated');
  t.equal(updated?.actor_id, adminId);
  t.same(updated?.changes, { name: 'operations', description: null });

  const same = await adminPost(`/admin/groups/${ops.id}`, { name: 'operations', description: '' });
  t.match(String(same.headers.location), /\?done=unchanged$/);
});

t.test('members: add by username or email, remove; an unknown user is refused saying why', async (t) => {
  const before = await auditCount();
  const unknown = await adminPost(`/admin/groups/${financeId}/members`, { member: 'nobody@example.com' });
  t.equal(unknown.statusCode, 404);
  t.match(unknown.body, /no user has the username or email &quot;nobody@example.com&quot;/);
  t.match(unknown.body, /value="nobody@example.com"/, 'what was typed is kept');
  const blank = await adminPost(`/admin/groups/${financeId}/members`, { member: ' ' });
  t.equal(blank.statusCode, 400);
  t.equal(await auditCount(), before, 'nothing written');
  t.same(await membersOf(financeId), [tomId]);

  const byEmail = await adminPost(`/admin/groups/${financeId}/members`, { member: 'SUE@example.com' });
  t.equal(byEmail.statusCode, 303);
  t.match(String(byEmail.headers.location), /\?done=added$/);
  t.same(await membersOf(financeId), [tomId, sueId].sort());
  const added = await lastAudit('admin.group.member_added');
  t.equal(added?.actor_id, adminId);
  t.same(added?.changes, { member: sueId });

  const again = await adminPost(`/admin/groups/${financeId}/members`, { member: 'sue' });
  t.match(String(again.headers.location), /\?done=already-member$/, 'by username, a member already: nothing written');
  t.equal(await auditCount(), before + 1);

  const page = await get(`/admin/groups/${financeId}`, adminCookie);
  t.match(page.body, /aria-label="Remove sue"/);
  const removed = await adminPost(`/admin/groups/${financeId}/members/${sueId}/remove`);
  t.equal(removed.statusCode, 303);
  t.match(String(removed.headers.location), /\?done=removed$/);
  t.same(await membersOf(financeId), [tomId]);
  t.equal((await lastAudit('admin.group.member_removed'))?.actor_id, adminId);
});

t.test('delete after a confirmation, audited; an unknown or malformed group is refused', async (t) => {
  const temp = await adminPost('/admin/groups', { name: 'temp' });
  const id = /groups\/([0-9a-f-]{36})/.exec(String(temp.headers.location))![1]!;
  const confirm = await get(`/admin/groups/${id}/delete`, adminCookie);
  t.equal(confirm.statusCode, 200);
  t.match(confirm.body, /Delete the group <strong>temp<\/strong>/);
  t.notMatch(confirm.body, /These clients are limited to it/, 'no client is limited to it');
  t.match((await get(`/admin/groups/${id}`, adminCookie)).body, /None: no client admits only this group/);
  t.match(
    (await get(`/admin/groups/${financeId}/delete`, adminCookie)).body,
    /These clients are limited to it: payroll\./,
    'finance names its client',
  );
  t.ok(await groupNamed('temp'), 'the confirmation page deletes nothing');
  const deleted = await adminPost(`/admin/groups/${id}/delete`);
  t.equal(deleted.statusCode, 303);
  t.notOk(await groupNamed('temp'));
  const record = await lastAudit('admin.group.deleted');
  t.equal(record?.actor_id, adminId);
  t.equal(record?.target_id, id);

  t.equal((await get(`/admin/groups/${id}`, adminCookie)).statusCode, 404);
  t.equal((await adminPost(`/admin/groups/${id}/delete`)).statusCode, 404);
  const malformed = await get('/admin/groups/not-a-uuid', adminCookie);
  t.equal(malformed.statusCode, 400, 'a malformed id is refused, never a 500');
  t.match(malformed.headers['content-type'], /text\/html/);
});
