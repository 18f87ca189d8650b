// Runs the purge of expired rows periodically in this instance; every instance may run it (see storage/purge.ts).
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Clock } from '../domain/clock.js';
import type { Db } from '../storage/database.js';
import { purgeExpired, readPurgeCursors, savePurgeCursors, type PurgeSettings } from '../storage/purge.js';

/** How long each kind of row is kept, from the settings that give each its lifetime. */
export function purgeRetention(config: Config): Omit<PurgeSettings, 'now'> {
  return {
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
    // The longest window a risk counter reads attempts over.
    signInAttemptRetentionSeconds: Math.max(config.risk.velocityWindowSeconds, config.risk.stuffingWindowSeconds),
    oneTimeCodeTtlSeconds: config.secondFactorTtlSeconds,
    passwordResetTtlSeconds: config.passwordResetTtlSeconds,
    signupTtlSeconds: config.signup.verificationTtlSeconds,
    securityEventRetentionSeconds: config.securityEventRetentionDays * 86_400,
    auditRetentionSeconds: config.auditRetentionDays * 86_400,
  };
}

/** How often the purge reads each table from its oldest expired row again. */
export const RESCAN_MS = 3_600_000;

/**
 * How long one run may go on starting rounds. A run that uses it all is followed at once by the next, which takes a
 * new `now`, and with it the rows that expired meanwhile, in every table, the finished ones too.
 */
export const RUN_BUDGET_MS = 10_000;

/** Issue 21: a batch should never hold its locks longer than this; one that does is logged as a warning. */
export const SLOW_BATCH_MS = 100;

export interface PurgeJobOptions {
  db: Db;
  clock: Clock;
  logger: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  intervalSeconds: number;
  /** How long each kind of row is kept (src/storage/purge.ts). */
  retention: Omit<PurgeSettings, 'now'>;
  /** A batch longer than this is logged as a warning; SLOW_BATCH_MS unless given (tests). */
  slowBatchMs?: number;
  /** RUN_BUDGET_MS unless given (tests). */
  runBudgetMs?: number;
  /** What a batch should take at most (PURGE_BATCH_TARGET_MS unless given; tests pass Infinity for fixed sizes). */
  batchTargetMs?: number;
}

export interface PurgeJob {
  /** Cancels the next run and waits for one in progress. */
  stop(): Promise<void>;
}

/**
 * Purges every `intervalSeconds` (give or take a tenth, so that instances started together spread out), and at once
 * again after a run that stopped for its budget (RUN_BUDGET_MS), never two runs at once in one process. The timer
 * does not keep the process alive, and a failed run is logged and tried again at the next interval, never thrown.
 */
export function startPurgeJob(options: PurgeJobOptions): PurgeJob {
  const { db, clock, logger, intervalSeconds, retention } = options;
  const { slowBatchMs = SLOW_BATCH_MS, runBudgetMs = RUN_BUDGET_MS, batchTargetMs } = options;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  // Each table's batch size as the last batches taught it (src/storage/purge.ts); a restart learns it again in a few.
  const batchSizes = new Map<string, number>();

  /** Runs once; says whether the run stopped for its budget (more may be waiting). */
  const run = async (): Promise<boolean> => {
    const started = performance.now();
    try {
      const now = clock();
      // Where each table's walk was left, by this instance or another (src/storage/purge.ts): a run goes on from there
      // instead of reading again the expired rows a table keeps and the index entries of rows deleted. A walk begun
      // over RESCAN_MS ago starts from the oldest again.
      const cursors = await readPurgeCursors(db, new Date(now.getTime() - RESCAN_MS));
      // Each batch is one DELETE in a transaction of its own: its duration bounds how long it held its rows' locks.
      let longest = { table: '', ms: 0 };
      const observe = (table: string, _rows: number, ms: number) => {
        if (ms > longest.ms) longest = { table, ms };
      };
      const deleted = await purgeExpired(
        db,
        { ...retention, now },
        { onBatch: observe, cursors, deadline: started + runBudgetMs, batchSizes, batchTargetMs },
      );
      await savePurgeCursors(db, cursors, now);
      const total = Object.values(deleted).reduce((a, b) => a + b, 0);
      const longestBatchMs = Math.round(longest.ms);
      if (total > 0) logger.info({ deleted, longestBatchMs }, `purged ${total} expired rows`);
      if (longest.ms > slowBatchMs)
        logger.warn({ table: longest.table, longestBatchMs }, `a purge batch took ${longestBatchMs} ms (more than ${slowBatchMs})`);
      return performance.now() - started >= runBudgetMs;
    } catch (err) {
      logger.error({ err }, 'purge of expired rows failed');
      return false;
    }
  };

  const schedule = (backlog: boolean) => {
    if (stopped) return;
    const delayMs = backlog ? 0 : intervalSeconds * 1000 * (0.9 + Math.random() * 0.2);
    timer = setTimeout(() => {
      running = run().then((more) => {
        running = undefined;
        schedule(more);
      });
    }, delayMs);
    timer.unref();
  };
  schedule(false);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
