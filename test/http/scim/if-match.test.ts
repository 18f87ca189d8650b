// SCIM If-Match (RFC 7644 3.14) compared with the user as locked in the request's transaction
// (src/domain/scim/users.ts lockedOrThrow): a change made after the client's GET is a 412 that writes nothing; on
// PostgreSQL the race is replayed with another connection holding the row and its change while the PATCH arrives.
import pg from 'pg';
import { sql } from 'kysely';
import t from 'tap';
import { onServer } from '../../helpers/database.js';
import { PATCH_OP, scimApp, USER_SCHEMA } from './scim-app.js';

const api = await scimApp(t);

async function provision(userName: string): Promise<string> {
  const res = await api.call('POST', '/Users', { body: { schemas: [USER_SCHEMA], userName, name: { givenName: 'First' } } });
  t.equal(res.statusCode, 201);
  return res.json().id as string;
}

const rename = (value: string) => ({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'name.givenName', value }] });

t.test('a user changed after the GET: PATCH, PUT and DELETE with the old version are 412 and write nothing', async (t) => {
  const id = await provision('stale@corp.example');
  const read = await api.call('GET', `/Users/${id}`);
  await sql`update users set claims = claims || '{"given_name":"Changed"}'::jsonb where id = ${id}`.execute(api.db);
  const old = { 'if-match': read.headers.etag as string };
  t.equal((await api.call('PATCH', `/Users/${id}`, { body: rename('Late'), headers: old })).statusCode, 412);
  t.equal((await api.call('DELETE', `/Users/${id}`, { headers: old })).statusCode, 412);
  const now = await api.call('GET', `/Users/${id}`);
  t.equal(now.json().name.givenName, 'Changed', 'the other change stands');
});

t.test(
  'the race on PostgreSQL: a change committed while the PATCH waits for the row is a 412',
  { skip: !onServer && 'PostgreSQL only: PGlite has one connection' },
  async (t) => {
    const id = await provision('race@corp.example');
    const read = await api.call('GET', `/Users/${id}`);
    const other = new pg.Client({ connectionString: api.database.url });
    await other.connect();
    t.teardown(() => other.end());
    await other.query('begin');
    await other.query('select id from users where id = $1 for update', [id]);
    await other.query(`update users set claims = claims || '{"given_name":"Meanwhile"}'::jsonb where id = $1`, [id]);
    const patching = api.call('PATCH', `/Users/${id}`, { body: rename('Late'), headers: { 'if-match': read.headers.etag as string } });
    for (let waiting = 0; waiting === 0;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      waiting = Number((await other.query('select count(*) as n from pg_locks where not granted')).rows[0].n);
    }
    await other.query('commit');
    t.equal((await patching).statusCode, 412);
    t.equal((await api.call('GET', `/Users/${id}`)).json().name.givenName, 'Meanwhile', 'not overwritten');
  },
);
