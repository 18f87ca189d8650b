// If-Match (RFC 9110 13.1.1) compared with the row as locked in the change's transaction (src/http/admin-api/etag.ts
// changeIfMatch): a change made by someone else after the client's GET is a 412 and the stale request writes nothing.
// On PostgreSQL the race itself is replayed: another connection holds the row locked with its change when the PATCH
// arrives; the PATCH waits for it, then sees it and answers 412 (compared before the lock, it answered 200 and
// overwrote the other change).
import pg from 'pg';
import { sql } from 'kysely';
import t from 'tap';
import { adminApiApp } from '../../helpers/admin-api.js';
import { onServer } from '../../helpers/database.js';

const api = await adminApiApp(t);

const auditCount = async () =>
  Number((await sql<{ n: string }>`select count(*)::text as n from admin_audit_records`.execute(api.db)).rows[0]!.n);

t.test('users: changed in the database after the GET, a PATCH or DELETE with the old ETag is a 412 and writes nothing', async (t) => {
  const read = await api.call(t, 'GET', '/users/bob');
  await sql`update users set claims = claims || '{"name":"Robert"}'::jsonb where username = 'bob'`.execute(api.db);
  const before = await auditCount();
  const stale = { 'if-match': read.headers.etag as string };
  const patched = await api.call(t, 'PATCH', '/users/bob', { body: { name: 'Bobby' }, headers: stale });
  t.equal(patched.statusCode, 412);
  t.equal(patched.json().code, 'precondition_failed');
  t.equal((await api.call(t, 'DELETE', '/users/bob', { headers: stale })).statusCode, 412);
  const now = await api.call(t, 'GET', '/users/bob');
  t.equal(now.json().claims.name, 'Robert', 'the other change stands');
  t.equal(await auditCount(), before, 'no audit record');
  const fresh = await api.call(t, 'PATCH', '/users/bob', { body: { name: 'Bobby' }, headers: { 'if-match': now.headers.etag as string } });
  t.equal(fresh.statusCode, 200, 'the ETag read after the change is current');
});

t.test('groups, risk rules and resource servers are checked the same way', async (t) => {
  const group = await api.call(t, 'POST', '/groups', { body: { name: 'night-shift' } });
  await sql`update groups set description = 'changed meanwhile' where name = 'night-shift'`.execute(api.db);
  const stale = { 'if-match': group.headers.etag as string };
  t.equal((await api.call(t, 'PATCH', '/groups/night-shift', { body: { name: 'day-shift' }, headers: stale })).statusCode, 412);
  t.equal((await api.call(t, 'DELETE', '/groups/night-shift', { headers: stale })).statusCode, 412);
  t.equal((await api.call(t, 'GET', '/groups/night-shift')).json().description, 'changed meanwhile');

  const rule = await api.call(t, 'POST', '/risk-rules', { body: { kind: 'network', value: '198.51.100.0/24', effect: 'block' } });
  await sql`update risk_rules set note = 'changed meanwhile' where id = ${rule.json().id}`.execute(api.db);
  const deleted = await api.call(t, 'DELETE', `/risk-rules/${rule.json().id}`, { headers: { 'if-match': rule.headers.etag as string } });
  t.equal(deleted.statusCode, 412);
  t.equal((await api.call(t, 'GET', `/risk-rules/${rule.json().id}`)).statusCode, 200, 'the rule stays');

  const path = `/resource-servers/${encodeURIComponent('https://api.example/ledger')}`;
  const created = await api.call(t, 'PUT', path, { body: { name: 'Ledger' } });
  await sql`update resource_servers set name = 'Changed' where identifier = 'https://api.example/ledger'`.execute(api.db);
  const old = { 'if-match': created.headers.etag as string };
  t.equal((await api.call(t, 'PUT', path, { body: { name: 'Ledger 2' }, headers: old })).statusCode, 412);
  t.equal((await api.call(t, 'DELETE', path, { headers: old })).statusCode, 412);
  t.equal((await api.call(t, 'GET', path)).json().name, 'Changed');
});

t.test(
  'the race on PostgreSQL: a change committed while the PATCH waits for the row is a 412',
  { skip: !onServer && 'PostgreSQL only: PGlite has one connection' },
  async (t) => {
    const read = await api.call(t, 'GET', '/users/alice');
    const other = new pg.Client({ connectionString: api.database.url });
    await other.connect();
    t.teardown(() => other.end());
    await other.query('begin');
    await other.query(`select id from users where username = 'alice' for update`);
    await other.query(`update users set claims = claims || '{"name":"Changed meanwhile"}'::jsonb where username = 'alice'`);
    const patching = api.call(t, 'PATCH', '/users/alice', { body: { name: 'Late' }, headers: { 'if-match': read.headers.etag as string } });
    // The PATCH is at the row, waiting for the other transaction's lock.
    for (let waiting = 0; waiting === 0;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      waiting = Number((await other.query(`select count(*) as n from pg_locks where not granted`)).rows[0].n);
    }
    await other.query('commit');
    const patched = await patching;
    t.equal(patched.statusCode, 412, 'compared with the row as committed by the other change');
    t.equal((await api.call(t, 'GET', '/users/alice')).json().claims.name, 'Changed meanwhile', 'not overwritten');
  },
);
