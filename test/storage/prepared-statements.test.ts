// Named prepared statements on PostgreSQL (src/storage/hot-path/preparing-client.ts): planned once per connection,
// and a plan made stale by a schema change is replanned instead of failing.
import { sql } from 'kysely';
import t from 'tap';
import { createTestDatabase, onServer } from '../helpers/database.js';

const NEEDS_SERVER = onServer ? false : 'needs TEST_DATABASE_URL: prepared statements are a property of the pg connections';

t.test('a data statement is prepared once per connection and reused', { skip: NEEDS_SERVER }, async (t) => {
  const database = await createTestDatabase();
  t.teardown(() => database.drop());
  const { db } = database.handle;
  // One connection, so that both runs and the look at pg_prepared_statements share it.
  await db.connection().execute(async (conn) => {
    for (const id of ['a', 'b']) {
      const rows = await conn.selectFrom('clients').select('client_id').where('client_id', '=', id).execute();
      t.same(rows, []);
    }
    const prepared = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(conn);
    const mine = prepared.rows.filter((r) => r.statement.includes('from "clients" where "client_id" = $1'));
    t.equal(mine.length, 1, 'one prepared statement for the two runs');
  });
});

t.test('a statement whose result columns changed is replanned, not failed', { skip: NEEDS_SERVER }, async (t) => {
  const database = await createTestDatabase();
  t.teardown(() => database.drop());
  const { db } = database.handle;
  await db.connection().execute(async (conn) => {
    const before = await conn.selectFrom('users').selectAll().execute();
    t.same(before, []);
    // Another process migrates while this one runs: SELECT * now has one more column.
    await sql`alter table users add column nickname_probe text`.execute(conn);
    const after = await conn.selectFrom('users').selectAll().execute();
    t.same(after, [], 'the same statement runs again after the schema change');
    const prepared = await sql<{
      n: string;
    }>`select count(*) as n from pg_prepared_statements where statement like 'select * from "users"%'`.execute(conn);
    t.equal(Number(prepared.rows[0]!.n), 1, 'the stale plan was replaced, not kept beside the new one');
  });
});
