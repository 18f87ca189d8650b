// Entry point: config, database, migrations, app, listen; closes cleanly on SIGTERM and SIGINT.
// With WORKERS above 1 this process only starts and watches that many workers (node:cluster), which share the
// port; each worker is a whole, stateless instance on the shared PostgreSQL database.
import cluster from 'node:cluster';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { superviseWorkers } from './cluster.js';
import { createLogger, loadRuntimeConfig, openMigratedDatabase } from './runtime.js';

const config = loadRuntimeConfig();
const logger = createLogger(config);

if (config.workers > 1 && cluster.isPrimary) superviseWorkers(config, logger);
else await serve(config);

async function serve(config: Config): Promise<void> {
  try {
    const database = await openMigratedDatabase(config, logger);
    const app = await buildApp(config, { db: database.db, logger });
    await app.listen({ port: config.port, host: config.host });
    logger.info(
      { issuer: config.issuer, discovery: `${config.issuer}/.well-known/openid-configuration`, database: database.kind, location: database.location },
      `issuer ${config.issuer} ready on ${database.kind === 'pglite' ? `embedded PGlite (${database.location})` : `PostgreSQL ${database.location}`}`,
    );

    let closing = false;
    const shutdown = async (signal: string) => {
      if (closing) return;
      closing = true;
      logger.info({ signal }, 'shutting down');
      const force = setTimeout(() => process.exit(1), 10_000);
      force.unref();
      await app.close();
      await database.close();
      process.exit(0);
    };
    process.on('SIGTERM', () => void shutdown('SIGTERM'));
    process.on('SIGINT', () => void shutdown('SIGINT'));
  } catch (err) {
    logger.fatal({ err }, 'could not start');
    process.exit(1);
  }
}
