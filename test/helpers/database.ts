// A database of the test's own: PGlite in memory, or (with TEST_DATABASE_URL) a fresh database on
// that PostgreSQL server, created for this test file and dropped at its end.
//
// Migrating a new database costs about a second of CPU on PGlite and half a second on PostgreSQL, and the suite
// makes hundreds. So the migrations run once per set of migration files: on PGlite into a dump of the data folder
// (kept in the temp folder for the next test process), on PostgreSQL into a template database; each test database
// starts as a copy of it. The name of either carries a digest of migrations/, so a changed migration makes a new one.
//
// Loading that dump into a new PGlite still costs about a second of CPU, so a test process keeps the PGlite of a
// dropped database and hands it to the next one, emptied: its tables truncated but for the migrations' own, its
// session reset. One that a test closed (a database gone away) is not kept.
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

/** Empties a migrated PGlite as a fresh copy of the template would be, and keeps it for the next test database. */
async function keepForReuse(pglite: PGlite): Promise<void> {
  if (pglite.closed) return;
  dataTables ??= pglite
    .query<{ name: string }>(
      `select quote_ident(tablename) as name from pg_tables
       where schemaname = 'public' and tablename not in ('kysely_migration', 'kysely_migration_lock')`,
    )
    .then((r) => r.rows.map((row) => row.name));
  const tables = await dataTables;
  // A transaction left open, a session setting, an advisory lock: none may reach the next test.
  await pglite.exec(`rollback; reset all; select pg_advisory_unlock_all(); truncate ${tables.join(', ')} restart identity cascade;`);
  idlePGlites.push(pglite);
}

export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const migrate = options.migrate !== false;
  let url: string | undefined;
  let name: string | undefined;
  if (onServer) {
    name = `sso_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    const template = migrate ? await (serverTemplate ??= makeServerTemplate()) : undefined;
    await admin((c) => c.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`));
    url = serverDatabaseUrl(name);
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
