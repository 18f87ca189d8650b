// Opens the one database the provider uses: PostgreSQL through pg when a URL is given, else embedded PGlite.
import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import type { Logger } from 'pino';
import { PGliteDialect } from './pglite-dialect.js';
import { PreparingClient } from './hot-path/preparing-client.js';
import { pgliteListen, postgresListen, type Listen } from './listen.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;

/** What the connection pool is doing now (for the metrics). */
export interface PoolStats {
  /** Connections the pool may open. */
  max: number;
  inUse: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
}

export interface DatabaseHandle {
  readonly db: Db;
  readonly kind: 'postgres' | 'pglite';
  /** Where the data lives, with no credentials: for the start log. */
  readonly location: string;
  /** Connections in use, idle and waited for, read at a metrics scrape. */
  poolStats(): PoolStats;
  /** LISTEN on a channel (src/storage/listen.ts): the webhook deliveries are woken by it. */
  readonly listen: Listen;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres:// URL; when absent, PGlite is used. */
  url?: string | undefined;
  /** Folder for PGlite's files; 'memory://' keeps everything in memory (tests). */
  dataDir: string;
  /** With dataDir 'memory://': start from this dump of a data folder (PGlite's dumpDataDir), as tests do. */
  initialData?: Blob | undefined;
  poolMax?: number;
  logger?: Pick<Logger, 'warn'>;
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  return options.url ? openPostgres(options.url, options) : openPGlite(options.dataDir, options.initialData);
}

function openPostgres(url: string, options: DatabaseOptions): DatabaseHandle {
  const pool = new pg.Pool({
    Client: PreparingClient,
    connectionString: url,
    max: options.poolMax ?? 10,
    // A request waits at most this long for a connection; then it fails fast with 503 instead of hanging.
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client whose server went away emits 'error' on the pool; without a listener that kills the process.
  pool.on('error', (err) => options.logger?.warn({ err: { message: err.message } }, 'database connection lost'));
  // A checked-out client also emits 'error' when its connection drops, and pg-pool listens only while it is
  // idle: without this listener that kills the process. The query in flight (or the next one) fails by itself.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const parsed = new URL(url);
  return {
    db,
    kind: 'postgres',
    location: `postgres://${parsed.host}${parsed.pathname}`,
    poolStats: () => ({ max: pool.options.max, inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    listen: postgresListen(url, options.logger),
    close: () => db.destroy(),
  };
}

async function openPGlite(dataDir: string, initialData: Blob | undefined): Promise<DatabaseHandle> {
  // Loaded only for the embedded database: the module alone costs a server on PostgreSQL some 45 MiB of memory.
  const { PGlite } = await import('@electric-sql/pglite');
  if (dataDir === 'memory://') return memoryPGliteHandle(await PGlite.create(initialData ? { loadDataDir: initialData } : {}));
  const dir = path.join(dataDir, 'pglite');
  fs.mkdirSync(dir, { recursive: true });
  const releaseLock = lockDataDir(dir);
  try {
    const pglite = await PGlite.create(dir);
    const dialect = new PGliteDialect(pglite);
    const db = new Kysely<Database>({ dialect });
    return {
      db,
      kind: 'pglite',
      location: dir,
      poolStats: () => pgliteStats(dialect),
      listen: pgliteListen(pglite, db),
      close: async () => {
        await db.destroy();
        releaseLock();
      },
    };
  } catch (err) {
    releaseLock();
    throw err;
  }
}

/** A handle on an open in-memory PGlite; closing it closes the PGlite. Tests open a handle on one they reuse. */
export function memoryPGliteHandle(pglite: PGlite): DatabaseHandle {
  const dialect = new PGliteDialect(pglite);
  const db = new Kysely<Database>({ dialect });
  // Kysely closes the driver only if it ran a query; a handle never used must still let PGlite go.
  const close = async () => {
    await db.destroy();
    if (!pglite.closed) await pglite.close();
  };
  return { db, kind: 'pglite', location: 'memory', poolStats: () => pgliteStats(dialect), listen: pgliteListen(pglite, db), close };
}

/** PGlite has one session: a pool of at most one connection, always open. */
function pgliteStats(dialect: PGliteDialect): PoolStats {
  const { inUse, waiting } = dialect.stats();
  return { max: 1, inUse, idle: 1 - inUse, waiting };
}

/**
 * PGlite's files must be opened by one process at a time (two would corrupt them), so a lock file
 * holds the owner's pid. A lock left by a process that no longer runs (kill -9) is taken over.
 */
function lockDataDir(dir: string): () => void {
  const lockFile = path.join(dir, '..', 'pglite.lock');
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(lockFile, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(fs.readFileSync(lockFile, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw new Error(
          `the embedded database in ${dir} is in use by process ${owner}; stop it first, or set DATABASE_URL to share a PostgreSQL server`,
        );
      }
      fs.rmSync(lockFile, { force: true });
    }
  }
  throw new Error(`could not lock the embedded database in ${dir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
