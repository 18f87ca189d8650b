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

/** The server logs to stdout; the scripts log to stderr, keeping stdout for their report. */
export function createLogger(config: Config, fd: 1 | 2 = 1): Logger {
  return pino(loggerOptions(config.logLevel), pino.destination({ fd, sync: true }));
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
    const { applied } = await migrateToLatest(database.db);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
    return database;
  } catch (err) {
    await database.close();
    throw err;
  }
}
