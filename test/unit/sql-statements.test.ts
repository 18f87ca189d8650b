// splitSqlStatements: one statement per semicolon, except inside quotes, dollar-quoted bodies and comments.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import t from 'tap';
import { MIGRATIONS_DIR } from '../../src/storage/migrate.js';
import { splitSqlStatements } from '../../src/storage/sql-statements.js';
import { createTestDatabase } from '../helpers/database.js';

t.test('statements are split on semicolons and trimmed', async (t) => {
  t.same(splitSqlStatements('select 1;\n  select 2 ;\nselect 3'), ['select 1', 'select 2', 'select 3']);
});

t.test('empty statements and trailing whitespace give no statement', async (t) => {
  t.same(splitSqlStatements(';;\n select 1;;  \n'), ['select 1']);
  t.same(splitSqlStatements(''), []);
  t.same(splitSqlStatements('   \n'), []);
});

t.test('a semicolon inside a single-quoted string does not split', async (t) => {
  t.same(splitSqlStatements("insert into t values ('a;b');select 2"), ["insert into t values ('a;b')", 'select 2']);
});

t.test("a doubled quote ('') inside a string does not end it early", async (t) => {
  t.same(splitSqlStatements("select 'it''s; fine';select 2"), ["select 'it''s; fine'", 'select 2']);
});

t.test('a semicolon inside a double-quoted identifier does not split', async (t) => {
  t.same(splitSqlStatements('create table "a;b" (x int);select 1'), ['create table "a;b" (x int)', 'select 1']);
});

t.test('a semicolon inside a $$ body does not split', async (t) => {
  const fn = 'create function f() returns int language plpgsql as $$ begin perform 1; return 2; end $$';
  t.same(splitSqlStatements(`${fn};\nselect f();`), [fn, 'select f()']);
});

t.test('a semicolon inside a $tag$ body does not split, and $$ inside it does not end it', async (t) => {
  const fn = "do $body$ begin execute $$select 1; select 2$$; raise notice 'x;y'; end $body$";
  t.same(splitSqlStatements(`${fn};select 3`), [fn, 'select 3']);
});

t.test('a $n parameter placeholder is not taken for a dollar quote', async (t) => {
  // "$1" is not followed by "$", so it opens no dollar-quoted body.
  t.same(splitSqlStatements('prepare p as select $1;select 2'), ['prepare p as select $1', 'select 2']);
});

t.test('a semicolon inside a -- comment does not split', async (t) => {
  t.same(splitSqlStatements('select 1 -- first; not a split\n;select 2'), ['select 1 -- first; not a split', 'select 2']);
});

t.test('a semicolon inside a /* */ comment does not split', async (t) => {
  t.same(splitSqlStatements('select /* a; b */ 1;select 2'), ['select /* a; b */ 1', 'select 2']);
});

t.test('a quote inside a comment does not open a string', async (t) => {
  t.same(splitSqlStatements("-- don't split here\nselect 1;\nselect 2;"), ["-- don't split here\nselect 1", 'select 2']);
});

t.test('a chunk holding only comments gives no statement', async (t) => {
  t.same(splitSqlStatements('select 1;\n-- the end\n'), ['select 1']);
  t.same(splitSqlStatements('-- header; with a semicolon\n-- another line\n'), []);
});

t.test('the real migrations split into statements that apply one by one', async (t) => {
  const files = (await fs.readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
  t.ok(files.length > 0, 'there is at least one migration');
  const initial = splitSqlStatements(await fs.readFile(path.join(MIGRATIONS_DIR, files[0]!), 'utf8'));
  t.equal(initial.filter((s) => /^(--[^\n]*\n)*\s*CREATE TABLE/i.test(s)).length, 8, 'the initial migration creates 8 tables');
  for (const s of initial) t.notMatch(s, /;\s*$/, 'no statement keeps its terminating semicolon');

  const database = await createTestDatabase({ migrate: false });
  t.teardown(() => database.drop());
  let applied = 0;
  const created: string[] = [];
  for (const file of files) {
    for (const statement of splitSqlStatements(await fs.readFile(path.join(MIGRATIONS_DIR, file), 'utf8'))) {
      await sql.raw(statement).execute(database.handle.db);
      applied += 1;
      const table = /^(?:--[^\n]*\n|\s)*CREATE TABLE (\w+)/i.exec(statement)?.[1];
      if (table) created.push(table);
    }
  }
  t.ok(applied >= 12, `${applied} statements applied`);
  const tables = await sql<{ table_name: string }>`
    select table_name from information_schema.tables where table_schema = 'public' order by table_name`.execute(database.handle.db);
  t.same(
    tables.rows.map((r) => r.table_name),
    created.sort(),
    'every table a migration creates exists, and no other',
  );
  for (const table of [
    'access_tokens',
    'authorization_codes',
    'clients',
    'consents',
    'interactions',
    'sessions',
    'signing_keys',
    'users',
  ]) {
    t.ok(created.includes(table), `the initial table ${table} is among them`);
  }
});
