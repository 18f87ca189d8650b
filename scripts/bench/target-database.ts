// The database the server under test runs on: BENCH_DATABASE_URL as given, a fresh PostgreSQL database
// created for this run and dropped after it, or the embedded PGlite in a temporary folder removed after it.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface TargetDatabase {
  readonly kind: 'postgres' | 'pglite';
  /** The server's (and the seed script's) database settings. */
  readonly env: Readonly<Record<string, string>>;
  /** Where the data lives, without credentials. */
  readonly description: string;
  /** PostgreSQL's server_version, when there is a server. */
  readonly serverVersion: string | undefined;
  /** Drops what this run created; keeps a database it was given. */
  dispose(): Promise<void>;
}

/** The benchmark sends nothing beyond this machine. */
export function assertLoopback(url: string, name: string): URL {
  const parsed = new URL(url);
  if (!/^postgres(ql)?:$/.test(parsed.protocol)) throw new Error(`${name} must be a postgres:// URL`);
  if (!LOOPBACK.has(parsed.hostname)) throw new Error(`${name} must point at 127.0.0.1 (got host "${parsed.hostname}")`);
  return parsed;
}

export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function serverVersion(url: string): Promise<string> {
  return withClient(url, async (c) => (await c.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version);
}

export function redacted(url: URL): string {
  return `postgres://${url.host}${url.pathname}`;
}

async function givenPostgres(url: string): Promise<TargetDatabase> {
  const parsed = assertLoopback(url, 'BENCH_DATABASE_URL');
  return {
    kind: 'postgres',
    env: { DATABASE_URL: url },
    description: `PostgreSQL ${redacted(parsed)} (BENCH_DATABASE_URL, kept)`,
    serverVersion: await serverVersion(url),
    dispose: async () => {},
  };
}

async function freshPostgres(adminUrl: string): Promise<TargetDatabase> {
  const admin = assertLoopback(adminUrl, 'BENCH_PG_ADMIN_URL');
  const name = `sso_bench_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}_${process.pid}`;
  await withClient(adminUrl, (c) => c.query(`CREATE DATABASE "${name}"`));
  const url = new URL(admin.href);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    kind: 'postgres',
    env: { DATABASE_URL: url.href },
    description: `PostgreSQL ${redacted(url)} (created for this run, dropped after it)`,
    serverVersion: await serverVersion(adminUrl),
    dispose: async () => {
      if (dropped) return;
      dropped = true;
      // FORCE ends the connections a killed server may have left behind (PostgreSQL 13+).
      await withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

async function embedded(): Promise<TargetDatabase> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'sso-bench-'));
  return {
    kind: 'pglite',
    // An empty DATABASE_URL means PGlite, and keeps a .env file from setting one.
    env: { DATABASE_URL: '', DATA_DIR: dataDir },
    description: `embedded PGlite in ${dataDir} (removed after the run)`,
    serverVersion: undefined,
    dispose: () => fs.rm(dataDir, { recursive: true, force: true }),
  };
}

export function prepareDatabase(options: { embedded: boolean; env: NodeJS.ProcessEnv }): Promise<TargetDatabase> {
  if (options.embedded) return embedded();
  const given = options.env.BENCH_DATABASE_URL?.trim();
  if (given) return givenPostgres(given);
  return freshPostgres(options.env.BENCH_PG_ADMIN_URL?.trim() || DEFAULT_ADMIN_URL);
}
