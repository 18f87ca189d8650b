// Named prepared statements on PostgreSQL (src/storage/hot-path/preparing-client.ts): planned once per connection,
// and a plan made stale by a schema change is replanned instead of failing.
import { sql } from 'kysely';
import type pg from 'pg';
import t from 'tap';
import { PreparingClient } from '../../src/storage/hot-path/preparing-client.js';
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

// hot-path/described-query.ts: a prepared statement's result description is asked for once per connection; later
// runs are Bind and Execute only, their rows parsed with the description remembered, and a replanned statement is
// described afresh.
t.test("a prepared statement's result is described once per connection, and again after a replan", { skip: NEEDS_SERVER }, async (t) => {
  const database = await createTestDatabase();
  t.teardown(() => database.drop());
  const client = new PreparingClient({ connectionString: database.url });
  await client.connect();
  t.teardown(() => client.end());
  const connection = (client as unknown as { connection: { describe(msg: unknown): void } }).connection;
  const describe = connection.describe.bind(connection);
  let described = 0;
  connection.describe = (msg) => {
    described += 1;
    describe(msg);
  };
  const query = (text: string, values: unknown[]) =>
    (client.query as unknown as (text: string, values: unknown[]) => Promise<pg.QueryResult>)(text, values);
  const typed = `select $1::timestamptz as at, $2::boolean as yes, $3::jsonb as doc, $4::int as n`;
  for (const [i, at] of ['2026-01-02T03:04:05.000Z', '2027-06-07T08:09:10.000Z'].entries()) {
    const { rows, fields } = await query(typed, [at, i === 0, JSON.stringify({ i }), i]);
    t.same(rows, [{ at: new Date(at), yes: i === 0, doc: { i }, n: i }], `run ${i + 1}: every column parsed by its type`);
    t.ok(rows[0].at instanceof Date, `run ${i + 1}: a timestamp is a Date`);
    t.same(
      fields.map((f) => f.name),
      ['at', 'yes', 'doc', 'n'],
    );
  }
  t.equal(described, 1, 'the second run did not ask for a description');

  await query(`select * from clients where client_id = $1`, ['none']);
  await query(`select * from clients where client_id = $1`, ['none']);
  t.equal(described, 2, 'one description for the two runs of a second statement');
  await query('alter table clients add column described_probe text', []);
  const { fields } = await query(`select * from clients where client_id = $1`, ['none']);
  t.ok(
    fields.some((f) => f.name === 'described_probe'),
    'after the schema change the result carries the new column',
  );
  t.equal(described, 3, 'the replanned statement was described afresh');
});
