// A database of the test's own: PGlite in memory, or (with TEST_DATABASE_URL) a database on that PostgreSQL
// server, as fresh as a new copy of the migrated template, and emptied for the process's next test at its end.
//
// Migrating a new database costs about a second of CPU on PGlite and half a second on PostgreSQL, and the suite
// makes hundreds. So the migrations run once per set of migration files: on PGlite into a dump of the data folder
// (kept in the temp folder for the next test process), on PostgreSQL into a template database; each test database
// starts as a copy of it. The name of either carries a digest of migrations/, so a changed migration makes a new one.
//
// Loading that dump into a new PGlite still costs about a second of CPU, and a copy of the template on PostgreSQL
// (CREATE DATABASE, then DROP DATABASE) some 0.3 s of the server's time, so a test process keeps a dropped database
// and hands it to the next one, emptied (emptyDataTables): its rows deleted but for the migrations' own, its identity
// sequences restarted, its session reset (a PGlite) or its connections closed (PostgreSQL). One that a test closed or
// changed (a database gone away, a setting of its own, a connection left open, another schema) is not kept.
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import pg from 'pg';
import type { Test } from 'tap';
import { memoryPGliteHandle, openDatabase, type DatabaseHandle } from '../../src/storage/database.js';
import { PGliteDialect } from '../../src/storage/pglite-dialect.js';
import type { Database } from '../../src/storage/schema.js';
import { MIGRATIONS_DIR, migrateToLatest } from '../../src/storage/migrate.js';
import { teardownAtProcessEnd } from './test-group.js';

export interface TestDatabase {
  handle: DatabaseHandle;
  /** The postgres:// URL of the test database, when running on a server. */
  url: string | undefined;
  /** The embedded database itself, when not: for a test that opens a Kysely of its own on it. */
  pglite: PGlite | undefined;
  /** Closes the handle and drops the database. */
  drop(): Promise<void>;
}

const serverUrl = process.env.TEST_DATABASE_URL;

export const onServer = serverUrl !== undefined && serverUrl !== '';

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A digest of the migration files (names and contents) and of the PGlite version that a dump is read by. */
function migrationsDigest(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(MIGRATIONS_DIR).sort()) hash.update(file).update(readFileSync(path.join(MIGRATIONS_DIR, file)));
  const pglite = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../node_modules/@electric-sql/pglite/package.json'), 'utf8'));
  hash.update(String(pglite.version));
  return hash.digest('hex').slice(0, 16);
}

function serverDatabaseUrl(name: string): string {
  const parsed = new URL(serverUrl!);
  parsed.pathname = `/${name}`;
  return parsed.href;
}

/** The migrated PGlite data folder as a dump: read from the temp folder, or made once and left there. */
async function makePgliteTemplate(): Promise<Blob> {
  const file = path.join(os.tmpdir(), `sso-test-pglite-${migrationsDigest()}.tar`);
  try {
    return new Blob([await fs.readFile(file)]);
  } catch {
    // Not made yet (or being made by another test process: both make one, the last rename wins, both are whole).
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = await PGlite.create();
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  await migrateToLatest(db);
  const dump = await pglite.dumpDataDir('none');
  await db.destroy();
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await fs.writeFile(partial, Buffer.from(await dump.arrayBuffer()));
  await fs.rename(partial, file);
  return dump;
}

/** A migrated template database on the server, made once under an advisory lock by whichever process comes first. */
async function makeServerTemplate(): Promise<string> {
  const name = `sso_template_${migrationsDigest()}`;
  await admin(async (c) => {
    await c.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    try {
      const found = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (found.rowCount) return;
      const building = `${name}_${process.pid}`;
      await c.query(`DROP DATABASE IF EXISTS ${building}`);
      await c.query(`CREATE DATABASE ${building}`);
      const handle = await openDatabase({ url: serverDatabaseUrl(building), dataDir: 'memory://', poolMax: 1 });
      await migrateToLatest(handle.db);
      await handle.close();
      // Renamed only when whole: a template is never seen half migrated.
      await c.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    } finally {
      await c.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
    }
  });
  return name;
}

let pgliteTemplate: Promise<Blob> | undefined;
let serverTemplate: Promise<string> | undefined;
/** Emptied PGlite instances of dropped test databases, for the next ones. */
const idlePGlites: PGlite[] = [];
let closingIdlePGlites = false;
/** The tables a test may fill: all of the migrated schema's but the migrations' own. */
let dataTables: Promise<string[]> | undefined;

async function migratedPGlite(): Promise<PGlite> {
  const idle = idlePGlites.pop();
  if (idle) return idle;
  // A PGlite loaded from a dump holds the process open until it is closed: the kept ones close as the process ends.
  if (!closingIdlePGlites) {
    closingIdlePGlites = true;
    teardownAtProcessEnd(() => Promise.all(idlePGlites.splice(0).map((p) => p.close())));
  }
  const loadDataDir = await (pgliteTemplate ??= makePgliteTemplate());
  const { PGlite } = await import('@electric-sql/pglite');
  return PGlite.create({ loadDataDir });
}

/** The data tables of a migrated database, quoted: all of the public schema's but the migrations' own. */
const DATA_TABLES = `select quote_ident(tablename) as name from pg_tables
  where schemaname = 'public' and tablename not in ('kysely_migration', 'kysely_migration_lock') order by tablename`;

/** What a test could change in the schema and not put back: the kept database must still look like the template. */
const SCHEMA_SHAPE = `select md5(string_agg(c.table_name || '.' || c.column_name || ':' || c.data_type || ':' || c.is_nullable
    || ':' || coalesce(c.column_default, ''), ',' order by c.table_name, c.column_name))
    || ':' || (select count(*) from pg_indexes where schemaname = 'public')
    || ':' || (select count(*) from pg_trigger t join pg_class r on r.oid = t.tgrelid join pg_namespace n on n.oid = r.relnamespace
      where n.nspname = 'public') as shape
  from information_schema.columns c where c.table_schema = 'public'`;

type Run = (sql: string) => Promise<Array<Record<string, unknown>>>;

/**
 * Deletes every row of the data tables that have any and restarts the identity sequences that were used: what
 * TRUNCATE ... RESTART IDENTITY CASCADE of every data table leaves, at a tenth of its cost (TRUNCATE gives each table
 * and index a new file, some 70 ms of CPU per test on PGlite). Foreign keys are not checked meanwhile
 * (session_replication_role), so the order does not matter; VACUUM then gives back the emptied pages.
 */
async function emptyDataTables(run: Run, tables: readonly string[]): Promise<void> {
  const filled = await run(tables.map((name) => `select '${name}' as name where exists (select from ${name})`).join(' union all '));
  const used = await run(
    `select quote_ident(sequencename) as name from pg_sequences where schemaname = 'public' and last_value is not null`,
  );
  const names = (rows: Array<Record<string, unknown>>) => rows.map((r) => String(r.name));
  if (filled.length > 0) {
    await run(
      `set session_replication_role = replica; ${names(filled)
        .map((name) => `delete from ${name};`)
        .join(' ')} reset session_replication_role;`,
    );
    await run(`vacuum ${names(filled).join(', ')}`);
  }
  if (used.length > 0)
    await run(
      names(used)
        .map((name) => `alter sequence ${name} restart;`)
        .join(' '),
    );
}

/** Empties a migrated PGlite as a fresh copy of the template would be, and keeps it for the next test database. */
async function keepForReuse(pglite: PGlite): Promise<void> {
  if (pglite.closed) return;
  const run: Run = async (sql) => ((await pglite.exec(sql)).at(-1)?.rows ?? []) as Array<Record<string, unknown>>;
  dataTables ??= run(DATA_TABLES).then((rows) => rows.map((row) => String(row.name)));
  const tables = await dataTables;
  // A transaction left open, a session setting, an advisory lock: none may reach the next test.
  await pglite.exec('rollback; reset all; select pg_advisory_unlock_all();');
  await emptyDataTables(run, tables);
  idlePGlites.push(pglite);
}

/** Server databases of dropped test databases, emptied, for the next ones; dropped when the process ends. */
const idleServerDatabases: string[] = [];
let droppingIdleServerDatabases = false;
/** The template's schema shape (SCHEMA_SHAPE), as the first test database copied from it shows it. */
let templateShape: Promise<string> | undefined;

async function serverShape(client: pg.Client): Promise<string> {
  return String((await client.query<{ shape: string }>(SCHEMA_SHAPE)).rows[0]!.shape);
}

/**
 * Empties a test database on the server and keeps it for the next test database of this process, once every
 * connection to it is closed; false when the test left it otherwise than a copy of the template would be (a setting
 * of the database's own, connections still open, another schema), to be dropped instead.
 */
async function keepServerDatabase(name: string): Promise<boolean> {
  try {
    if (!(await emptyServerDatabase(name))) return false;
  } catch {
    return false;
  }
  if (!droppingIdleServerDatabases) {
    droppingIdleServerDatabases = true;
    teardownAtProcessEnd(() =>
      admin(async (c) => {
        for (const idle of idleServerDatabases.splice(0)) await c.query(`DROP DATABASE IF EXISTS ${idle} WITH (FORCE)`);
      }),
    );
  }
  idleServerDatabases.push(name);
  return true;
}

/** Empties a test database on the server as a fresh copy would be; false if it is not kept (keepServerDatabase). */
async function emptyServerDatabase(name: string): Promise<boolean> {
  // A closed pool's sessions leave pg_stat_activity a moment after their sockets close.
  const row = await admin(async (c) => {
    for (let tries = 0; ; tries += 1) {
      const { rows } = await c.query<{ allowed: boolean; settings: number; sessions: number }>(
        `select d.datallowconn as allowed,
           (select count(*) from pg_db_role_setting s where s.setdatabase = d.oid)::int as settings,
           (select count(*) from pg_stat_activity a where a.datname = d.datname)::int as sessions
         from pg_database d where d.datname = $1`,
        [name],
      );
      if (rows[0]?.sessions === 0 || tries === 20) return rows[0];
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
  if (!row || !row.allowed || row.settings > 0 || row.sessions > 0) return false;
  const client = new pg.Client({ connectionString: serverDatabaseUrl(name) });
  await client.connect();
  try {
    if ((await serverShape(client)) !== (await templateShape)) return false;
    const run: Run = async (sql) => {
      const result = await client.query(sql);
      return (Array.isArray(result) ? result.at(-1)! : result).rows as Array<Record<string, unknown>>;
    };
    await emptyDataTables(
      run,
      (await run(DATA_TABLES)).map((r) => String(r.name)),
    );
  } finally {
    await client.end();
  }
  return true;
}

export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const migrate = options.migrate !== false;
  let url: string | undefined;
  let name: string | undefined;
  let kept: string | undefined;
  if (onServer) {
    kept = migrate ? idleServerDatabases.pop() : undefined;
    name = kept ?? `sso_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    if (!kept) {
      const template = migrate ? await (serverTemplate ??= makeServerTemplate()) : undefined;
      await admin((c) => c.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`));
    }
    url = serverDatabaseUrl(name);
    if (migrate) {
      const fresh = name;
      templateShape ??= (async () => {
        const client = new pg.Client({ connectionString: serverDatabaseUrl(fresh) });
        await client.connect();
        try {
          return await serverShape(client);
        } finally {
          await client.end();
        }
      })();
      await templateShape;
    }
  }
  const pglite = !onServer && migrate ? await migratedPGlite() : undefined;
  const handle = pglite ? memoryPGliteHandle(pglite) : await openDatabase({ url, dataDir: 'memory://', poolMax: 10 });
  let dropped = false;
  return {
    handle,
    url,
    pglite,
    async drop() {
      if (dropped) return;
      dropped = true;
      if (pglite && !pglite.closed) return keepForReuse(pglite);
      await handle.close();
      if (name && migrate && (await keepServerDatabase(name))) return;
      if (name) await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

let dataFolderTemplate: Promise<string> | undefined;

/**
 * A migrated PGlite data folder of the test's own, for child processes (a server, a script) that open it; removed
 * at teardown. A copy of one made once per test process: PGlite's first start in an empty folder (initdb) and the
 * migrations cost a child some four seconds. Tests of a first start use an empty folder instead.
 */
export async function migratedDataFolder(t: Test): Promise<string> {
  dataFolderTemplate ??= (async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sso-data-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    // The migrated dump loaded into the folder where the server keeps it: a second of CPU, where PGlite's first
    // start (initdb) and the migrations cost some six.
    const loadDataDir = await (pgliteTemplate ??= makePgliteTemplate());
    const { PGlite } = await import('@electric-sql/pglite');
    const pglite = await PGlite.create({ dataDir: path.join(dir, 'pglite'), loadDataDir });
    await pglite.close();
    return dir;
  })();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sso-data-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  await fs.cp(await dataFolderTemplate, dir, { recursive: true });
  return dir;
}
