// The primary process of WORKERS > 1: forks the workers, replaces one that dies, and stops them all on
// SIGTERM or SIGINT. It opens no database and serves nothing itself.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { Config } from './config.js';

/** A worker that dies this soon after it started is not replaced: it would only die again (bad config, port taken). */
const MIN_UPTIME_MS = 5_000;

export function superviseWorkers(config: Config, logger: Logger): void {
  let stopping = false;
  const started = new Map<number, number>();

  const fork = () => {
    const worker = cluster.fork();
    started.set(worker.id, Date.now());
  };

  cluster.on('exit', (worker: Worker, code, signal) => {
    const uptime = Date.now() - (started.get(worker.id) ?? 0);
    started.delete(worker.id);
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
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

  const stop = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => process.exit(exitCode || 1), 12_000);
    force.unref();
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitCode);
  };
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGINT', () => void stop(0));

  logger.info({ workers: config.workers }, `starting ${config.workers} workers`);
  for (let i = 0; i < config.workers; i += 1) fork();
}
