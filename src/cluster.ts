// The primary process of WORKERS > 1: forks the workers, replaces one that dies, and on SIGTERM or SIGINT passes
// SIGTERM to every worker (each stops gracefully, src/shutdown.ts) and waits for them all. It opens no database
// and serves no request itself; with METRICS_PORT set it serves /metrics there, summed over its workers.
import cluster, { type Worker } from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { clusterMetricsSource, startMetricsServer } from './metrics-server.js';

/** A worker that dies this soon after it started is not replaced: it would only die again (bad config, port taken). */
const MIN_UPTIME_MS = 5_000;

export function superviseWorkers(config: Config, logger: Logger): void {
  let stopping = false;
  let exitCode = 0;
  let metrics: FastifyInstance | undefined;
  const started = new Map<number, number>();

  const fork = () => {
    const worker = cluster.fork();
    started.set(worker.id, Date.now());
  };

  const finish = async () => {
    await metrics?.close().catch(() => {});
    process.exit(exitCode);
  };

  cluster.on('exit', (worker: Worker, code, signal) => {
    const uptime = Date.now() - (started.get(worker.id) ?? 0);
    started.delete(worker.id);
    if (stopping) {
      if (code !== 0) exitCode = 1;
      if (Object.keys(cluster.workers ?? {}).length === 0) void finish();
      return;
    }
    if (uptime < MIN_UPTIME_MS) {
      logger.fatal({ worker: worker.process.pid, code, signal }, 'a worker stopped right after starting; stopping');
      void stop(1);
      return;
    }
    logger.error({ worker: worker.process.pid, code, signal }, 'a worker stopped; starting another');
    fork();
  });

  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    // The workers bound themselves (drain + timeout); this only catches one that hangs past that.
    const { shutdownDrainSeconds, shutdownTimeoutSeconds } = config.operations;
    const force = setTimeout(() => process.exit(1), (shutdownDrainSeconds + shutdownTimeoutSeconds + 15) * 1000);
    force.unref();
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    if (Object.keys(cluster.workers ?? {}).length === 0) await finish();
  };
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGINT', () => void stop(0));

  if (config.operations.metricsPort !== undefined) {
    startMetricsServer(config, logger, clusterMetricsSource()).then(
      (app) => {
        metrics = app;
      },
      (err: unknown) => {
        logger.fatal({ err }, 'could not serve METRICS_PORT');
        void stop(1);
      },
    );
  }

  logger.info({ workers: config.workers }, `starting ${config.workers} workers`);
  for (let i = 0; i < config.workers; i += 1) fork();
}
