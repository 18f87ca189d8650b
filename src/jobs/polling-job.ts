// A job that runs one round of work now, then again `intervalMs` after each round ends (sooner after a kick), one
// round at a time; a failed round is logged and the next one comes all the same. Stopping cancels the next round and
// waits for the one in progress. The outbox, the SAML metadata refresh and the domains' re-check run on it.
import type { ProviderContext } from '../domain/context.js';

export interface PollingJob {
  /** Runs a round now (when none is running), then on the usual interval. */
  kick(): void;
  /** Cancels the next round and waits for one in progress. */
  stop(): Promise<void>;
}

export function startPollingJob(
  ctx: Pick<ProviderContext, 'log'>,
  job: {
    name: string;
    intervalMs: number;
    round: () => Promise<unknown>;
    /** Default 0: the first round at once. */ firstRoundMs?: number;
  },
): PollingJob {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const schedule = (ms: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(run, ms);
    timer.unref();
  };
  function run() {
    if (running) return;
    running = job
      .round()
      .then(
        () => undefined,
        (err: unknown) => ctx.log.warn({ err: (err as Error).message }, `${job.name} round failed`),
      )
      .finally(() => {
        running = undefined;
        schedule(job.intervalMs);
      });
  }
  schedule(job.firstRoundMs ?? 0);
  return {
    kick: () => schedule(0),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
