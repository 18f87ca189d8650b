// The audit trail (src/domain/admin/admin.ts logAdminAction, GET /admin/api/v1/audit): every change through the API
// is recorded with who, what, target, when, from where and the fields changed (never a secret); a refused change
// records nothing; and the command line records the same change the same way.
import t from 'tap';
import { listAuditRecords } from '../../../src/storage/audit-records.js';
import { adminApiApp, ADMIN_WRITER } from '../../helpers/admin-api.js';
import { adminStore, json, runAdmin } from '../../helpers/admin-cli.js';

const api = await adminApiApp(t);
const TWIN = { client_id: 'twin', client_name: 'Twin', redirect_uris: ['https://twin.example/cb'] };

t.test('a client created through the API is recorded: the client as actor, its address, the fields, the secret named only', async (t) => {
  const created = await api.call(t, 'POST', '/clients', { body: { ...TWIN, client_id: 'recorded' } });
  const secret = created.json().client_secret as string;
  const res = await api.call(t, 'GET', '/audit?target=client:recorded', { token: api.reader });
  t.equal(res.statusCode, 200);
  const [record] = res.json().items;
  t.match(record, {
    actor: { kind: 'client', id: ADMIN_WRITER.client_id },
    origin: '127.0.0.1',
    event: 'admin.client.created',
    target: { type: 'client', id: 'recorded' },
    changes: { client_id: 'recorded', client_name: 'Twin', redirect_uris: TWIN.redirect_uris, client_secret: '(not recorded)' },
  });
  t.notOk(res.body.includes(secret), 'the secret is in no record');

  await api.call(t, 'POST', '/clients/recorded/secret');
  await api.call(t, 'PUT', '/users/bob/password', { body: { password: 'bob-new-password-42' } });
  const all = await api.call(t, 'GET', '/audit');
  t.notOk(all.body.includes('bob-new-password-42'), 'no password in any record');
  t.match(all.json().items[0], { event: 'admin.user.password_set', changes: { password: '(not recorded)' } });
});

t.test('a refused change writes no record (the record is in the transaction of the change)', async (t) => {
  const count = async () =>
    (
      await api.db
        .selectFrom('admin_audit_records')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
    ).n;
  const before = await count();
  t.equal((await api.call(t, 'POST', '/clients', { body: { ...TWIN, client_id: 'recorded' } })).statusCode, 409);
  t.equal((await api.call(t, 'POST', '/clients', { body: { ...TWIN, client_id: 'bad', redirect_uris: ['nope'] } })).statusCode, 400);
  t.equal((await api.call(t, 'DELETE', '/users/nobody', { headers: { 'if-match': '*' } })).statusCode, 404);
  t.equal(await count(), before);
});

t.test('GET /audit filters by actor, event and time, and pages with a cursor', async (t) => {
  const byEvent = (await api.call(t, 'GET', '/audit?event=admin.client.secret_rotated')).json().items;
  t.equal(byEvent.length, 1);
  const byActor = (await api.call(t, 'GET', `/audit?actor=client:${ADMIN_WRITER.client_id}&limit=1`)).json();
  t.equal(byActor.items.length, 1);
  t.type(byActor.next_cursor, 'string');
  const next = (await api.call(t, 'GET', `/audit?actor=client:${ADMIN_WRITER.client_id}&limit=1&cursor=${byActor.next_cursor}`)).json();
  t.not(next.items[0].id, byActor.items[0].id);
  t.ok(Number(next.items[0].id) < Number(byActor.items[0].id), 'newest first');
  const none = (await api.call(t, 'GET', '/audit?actor=cli:nobody')).json();
  t.same(none, { items: [], next_cursor: null });
  const future = (await api.call(t, 'GET', '/audit?since=2999-01-01T00:00:00Z')).json();
  t.same(future.items, []);
  t.equal((await api.call(t, 'GET', '/audit?since=yesterday')).statusCode, 400);
  t.equal((await api.call(t, 'GET', '/audit?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z')).statusCode, 400);
  t.equal((await api.call(t, 'GET', '/audit?cursor=e30')).statusCode, 400, 'a forged cursor is refused');
  t.equal((await api.call(t, 'GET', '/audit', { token: null })).statusCode, 401);
});

t.test('the command line and the API record the same change the same way (actor, time and ids aside)', async (t) => {
  const store = await adminStore(t);
  const strip = (r: { event: string; target_type?: string; target?: { type: string }; changes: Record<string, unknown> }) => ({
    event: r.event,
    target_type: r.target_type ?? r.target?.type,
    changes: r.changes,
  });

  // A client created both ways.
  json(
    await runAdmin(
      ['clients', 'create', TWIN.client_id, '--client-name', TWIN.client_name, '--redirect-uri', TWIN.redirect_uris[0]!, '--json'],
      store.env,
    ),
  );
  t.equal((await api.call(t, 'POST', '/clients', { body: TWIN })).statusCode, 201);
  // A user disabled both ways.
  json(await runAdmin(['users', 'create', 'dana', '--password-stdin', '--json'], store.env, { input: 'dana-password-12345' }));
  json(await runAdmin(['users', 'disable', 'dana', '--yes', '--json'], store.env));
  await api.call(t, 'POST', '/users', { body: { username: 'dana', password: 'dana-password-12345' } });
  await api.call(t, 'POST', '/users/dana/disable');

  const cli = await store.withDb((db) => listAuditRecords(db, {}, 10));
  const viaApi = (await api.call(t, 'GET', '/audit?limit=3')).json().items;
  t.same(viaApi.reverse().map(strip), cli.reverse().map(strip), 'same events, targets and fields changed');
  t.match(cli[0], { actor_kind: 'cli', origin: null }, 'the command line records its OS user, from no address');
  t.match(viaApi[0], { actor: { kind: 'client' }, origin: '127.0.0.1' });
});
