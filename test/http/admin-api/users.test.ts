// /admin/api/v1/users (src/http/admin-api/users.ts): the user admin of the command line over HTTP, and what it does to
// a signed-in user: sessions ended, devices revoked, tokens refused; passwords never answered nor recorded.
import t from 'tap';
import { adminApiApp } from '../../helpers/admin-api.js';
import { ALICE, BOB } from '../../helpers/app.js';
import { obtainCode } from '../../helpers/flow.js';

const api = await adminApiApp(t);
const CAROL = { username: 'carol', password: 'carol-password-1234', email: 'carol@example.com', name: 'Carol' };

t.test('GET /users lists and searches; GET /users/{user} by id or username, with an ETag', async (t) => {
  const all = (await api.call(t, 'GET', '/users')).json();
  t.same(all.items.map((u: { username: string }) => u.username).sort(), ['alice', 'bob']);
  const found = (await api.call(t, 'GET', '/users?q=LIDDELL')).json();
  t.same(found.items, [], 'q searches username and email, not every claim');
  const byMail = (await api.call(t, 'GET', '/users?q=alice%40')).json();
  t.equal(byMail.items[0].username, 'alice');
  const one = await api.call(t, 'GET', '/users/alice');
  t.equal(one.statusCode, 200);
  t.equal(one.json().claims.name, ALICE.name);
  t.ok(one.headers.etag);
  const byId = await api.call(t, 'GET', `/users/${one.json().id}`);
  t.equal(byId.headers.etag, one.headers.etag);
  t.notOk(JSON.stringify(one.json()).includes('password'), 'no password nor hash');
  const missing = await api.call(t, 'GET', '/users/nobody');
  t.equal(missing.statusCode, 404);
  t.equal(missing.json().code, 'not_found');
});

t.test('POST /users creates a user checked by the password policy; a taken name is a 409', async (t) => {
  const weak = await api.call(t, 'POST', '/users', { body: { ...CAROL, password: 'carol' } });
  t.equal(weak.statusCode, 400);
  t.equal(weak.json().code, 'invalid');
  t.notOk(weak.body.includes('"carol"'), 'the refused password is not echoed');
  const res = await api.call(t, 'POST', '/users', { body: CAROL });
  t.equal(res.statusCode, 201);
  t.equal(res.json().username, 'carol');
  t.equal(res.json().claims.name, 'Carol');
  t.notOk(res.body.includes(CAROL.password));
  t.equal((await api.call(t, 'POST', '/users', { body: { ...CAROL, email: 'other@example.com' } })).statusCode, 409);
});

t.test('PATCH /users/{user} changes claims with If-Match; null removes a claim; a taken email is a 409', async (t) => {
  const read = await api.call(t, 'GET', '/users/carol');
  const res = await api.call(t, 'PATCH', '/users/carol', {
    body: { name: 'Carol Ann', locale: 'fr' },
    headers: { 'if-match': read.headers.etag as string },
  });
  t.equal(res.statusCode, 200);
  t.same({ name: res.json().claims.name, locale: res.json().claims.locale }, { name: 'Carol Ann', locale: 'fr' });
  const removed = await api.call(t, 'PATCH', '/users/carol', {
    body: { locale: null },
    headers: { 'if-match': res.headers.etag as string },
  });
  t.notOk('locale' in removed.json().claims);
  const stale = await api.call(t, 'PATCH', '/users/carol', { body: { name: 'x' }, headers: { 'if-match': read.headers.etag as string } });
  t.equal(stale.statusCode, 412);
  const taken = await api.call(t, 'PATCH', '/users/carol', { body: { email: BOB.email }, headers: { 'if-match': '*' } });
  t.equal(taken.statusCode, 409);
  const password = await api.call(t, 'PATCH', '/users/carol', { body: { password: 'a-new-password-1' }, headers: { 'if-match': '*' } });
  t.equal(password.statusCode, 400, 'the password is set apart');
});

t.test('a signed-in user: sessions and devices listed, revoked; disable and enable; reset link and second factor', async (t) => {
  await obtainCode(api.app, {}, { user: ALICE });
  const sessions = (await api.call(t, 'GET', '/users/alice/sessions')).json();
  t.equal(sessions.items.length, 1);
  const devices = (await api.call(t, 'GET', '/users/alice/devices')).json();
  t.equal(devices.items.length, 1);
  const ended = await api.call(t, 'DELETE', '/users/alice/sessions');
  t.equal(ended.json().sessions_ended, 1);
  t.equal((await api.call(t, 'GET', '/users/alice/sessions')).json().items.length, 0);
  const revoked = await api.call(t, 'DELETE', `/users/alice/devices/${devices.items[0].id}`);
  t.equal(revoked.statusCode, 200);
  t.equal((await api.call(t, 'DELETE', `/users/alice/devices/${devices.items[0].id}`)).statusCode, 404, 'a revoked device is gone');
  t.equal((await api.call(t, 'DELETE', '/users/alice/devices')).json().revoked.length, 0);

  const disabled = await api.call(t, 'POST', '/users/bob/disable');
  t.equal(disabled.statusCode, 200);
  t.equal(disabled.json().user.disabled, true);
  const link = await api.call(t, 'POST', '/users/bob/reset-link');
  t.equal(link.statusCode, 400, 'no reset link for a disabled user');
  const enabled = await api.call(t, 'POST', '/users/bob/enable');
  t.same([enabled.json().changed, enabled.json().user.disabled], [true, false]);
  const unverified = await api.call(t, 'POST', '/users/bob/reset-link');
  t.equal(unverified.statusCode, 400, 'issue 38: no link is mailed to an unverified address');
  await api.db.updateTable('users').set({ email_verified: true }).where('username', '=', 'bob').execute();
  const sent = await api.call(t, 'POST', '/users/bob/reset-link');
  t.equal(sent.statusCode, 202);
  t.notOk(sent.body.includes('http'), 'the link is mailed, never answered');
  const queued = await api.db.selectFrom('outbox').select('kind').execute();
  t.ok(
    queued.some((m) => m.kind === 'password-reset'),
    'the mail is in the outbox',
  );
  const factor = await api.call(t, 'DELETE', '/users/bob/second-factor');
  t.same(factor.json().removed, false, 'bob had no authenticator app');
});

t.test('PUT /users/{user}/password sets a password that then signs in; DELETE /users/{user} needs If-Match', async (t) => {
  const res = await api.call(t, 'PUT', '/users/carol/password', { body: { password: 'carol-new-password-99' } });
  t.equal(res.statusCode, 200);
  await obtainCode(api.app, {}, { user: { username: 'carol', password: 'carol-new-password-99' } });
  const unconditional = await api.call(t, 'DELETE', '/users/carol');
  t.equal(unconditional.statusCode, 428);
  const etag = (await api.call(t, 'GET', '/users/carol')).headers.etag as string;
  const deleted = await api.call(t, 'DELETE', '/users/carol', { headers: { 'if-match': etag } });
  t.equal(deleted.statusCode, 200);
  t.equal(deleted.json().sessions_ended, 1);
  t.equal((await api.call(t, 'GET', '/users/carol')).statusCode, 404);
});

t.test('a read-only token reads users but changes none', async (t) => {
  t.equal((await api.call(t, 'GET', '/users', { token: api.reader })).statusCode, 200);
  for (const [method, path] of [
    ['POST', '/users/bob/disable'],
    ['PUT', '/users/bob/password'],
    ['DELETE', '/users/bob/sessions'],
    ['DELETE', '/users/bob/second-factor'],
  ] as const) {
    const res = await api.call(t, method, path, {
      token: api.reader,
      body: method === 'PUT' ? { password: 'whatever-password-1' } : undefined,
    });
    t.equal(res.statusCode, 403, `${method} ${path} needs admin:write`);
  }
});
