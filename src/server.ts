// Entry point: config, database, migrations, app, listen; stops gracefully on SIGTERM and SIGINT (src/shutdown.ts).
// With WORKERS above 1 this process only starts and watches that many workers (node:cluster), which share the
// port; each worker is a whole, stateless instance on the shared PostgreSQL database.
import cluster from 'node:cluster';
import { buildApp } from './app.js';
import { NOUNS } from './cli/nouns/index.js';
import { startAdminSocket } from './cli/remote.js';
import type { Config } from './config.js';
import { superviseWorkers } from './cluster.js';
import type { Lifecycle } from './domain/readiness.js';
import { shareMetricsWithPrimary, startMetricsServer } from './metrics-server.js';
import { createMetrics } from './metrics.js';
import { createLogger, loadRuntimeConfig, openMigratedDatabase } from './runtime.js';
import { stopOnSignals } from './shutdown.js';

const config = loadRuntimeConfig();
const logger = createLogger(config);

if (config.workers > 1 && cluster.isPrimary) superviseWorkers(config, logger);
else await serve(config);

async function serve(config: Config): Promise<void> {
  try {
    const database = await openMigratedDatabase(config, logger);
    const lifecycle: Lifecycle = { shuttingDown: false };
    const metrics = createMetrics();
    const app = await buildApp(config, {
      db: database.db,
      logger,
      lifecycle,
      poolStats: database.poolStats,
      metrics,
      listen: database.listen,
    });
    // METRICS_PORT: this process serves it, unless it is one of several workers (then the primary does).
    const metricsPort = config.operations.metricsPort !== undefined;
    if (metricsPort && cluster.isWorker) shareMetricsWithPrimary(metrics.registry);
    const metricsServer = metricsPort && !cluster.isWorker ? await startMetricsServer(config, logger, metrics.registry) : undefined;
    await app.listen({ port: config.port, host: config.host });
    // The embedded database is this process's alone: the admin command line reaches it through this socket.
    const adminSocket =
      database.kind === 'pglite' && config.dataDir !== 'memory://' ? await startAdminSocket(config, database.db, logger, NOUNS) : undefined;
    logger.info(
      {
        issuer: config.issuer,
        discovery: `${config.issuer}/.well-known/openid-configuration`,
        database: database.kind,
        location: database.location,
      },
      `issuer ${config.issuer} ready on ${database.kind === 'pglite' ? `embedded PGlite (${database.location})` : `PostgreSQL ${database.location}`}`,
    );
    stopOnSignals({
      app,
      lifecycle,
      logger,
      drainSeconds: config.operations.shutdownDrainSeconds,
      timeoutSeconds: config.operations.shutdownTimeoutSeconds,
      afterApp: [async () => metricsServer?.close(), async () => adminSocket?.close(), () => database.close()],
    });
  } catch (err) {
    logger.fatal({ err }, 'could not start');
    process.exit(1);
  }
}
