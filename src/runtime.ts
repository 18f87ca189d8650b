// Start-up steps shared by the server and the command-line scripts.
import fs from 'node:fs';
import pino, { type Logger } from 'pino';
import { ConfigError, loadConfig, type Config } from './config.js';
import { loggerOptions } from './logger.js';
import { openDatabase, type DatabaseHandle } from './storage/database.js';
import { migrateToLatest } from './storage/migrate.js';

/** Reads ./.env when there is one (settings already in the environment win), then validates the config. */
export function loadRuntimeConfig(): Config {
  if (fs.existsSync('.env')) process.loadEnvFile('.env');
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

/** How long a request log line may wait in the server's buffer before it is written. */
const LOG_FLUSH_MS = 200;

/**
 * The server logs to stdout; the scripts log to stderr, keeping stdout for their report.
 *
 * The server writes one line per request: written one by one, that is a write system call per request, a
 * sizeable share of a fast request's CPU. So its lines are buffered (up to 4 KiB) and written at least every
 * LOG_FLUSH_MS; pino writes what is left synchronously when the process exits. A kill -9 can lose the last
 * fraction of a second of log lines, never data. The scripts, short-lived, write each line at once.
 */
export function createLogger(config: Config, fd: 1 | 2 = 1): Logger {
  if (fd === 2) return pino(loggerOptions(config.logLevel), pino.destination({ fd, sync: true }));
  const destination = pino.destination({ fd, sync: false, minLength: 4096 });
  setInterval(() => destination.flush(), LOG_FLUSH_MS).unref();
  return pino(loggerOptions(config.logLevel), destination);
}

/** Opens the configured database and brings its schema up to date. */
export async function openMigratedDatabase(config: Config, logger: Logger): Promise<DatabaseHandle> {
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    poolMax: config.databasePoolMax,
    logger,
  });
  try {
    const { applied, newer } = await migrateToLatest(database.db);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
    if (newer.length > 0) logger.warn({ newer }, 'the database was migrated by a newer version; running on it unchanged');
    return database;
  } catch (err) {
    await database.close();
    throw err;
  }
}
