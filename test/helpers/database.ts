// A database of the test's own: PGlite in memory, or (with TEST_DATABASE_URL) a fresh database on
// that PostgreSQL server, created for this test file and dropped at its end.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';

export interface TestDatabase {
  handle: DatabaseHandle;
  /** The postgres:// URL of the test database, when running on a server. */
  url: string | undefined;
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

export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  let url: string | undefined;
  let name: string | undefined;
  if (onServer) {
    name = `sso_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    await admin((c) => c.query(`CREATE DATABASE ${name}`));
    const parsed = new URL(serverUrl!);
    parsed.pathname = `/${name}`;
    url = parsed.href;
  }
  const handle = await openDatabase({ url, dataDir: 'memory://', poolMax: 10 });
  if (options.migrate !== false) await migrateToLatest(handle.db);
  return {
    handle,
    url,
    async drop() {
      await handle.close();
      if (name) await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
