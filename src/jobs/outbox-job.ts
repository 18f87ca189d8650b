// Delivers the outbox from this instance every OUTBOX_POLL_SECONDS, and soon after a kick (a code just queued).
import { deliverDueMessages, type Notifier } from '../domain/notifications/notifier.js';
import type { ProviderContext } from '../domain/context.js';

export interface OutboxJob {
  kick(): void;
  stop(): Promise<void>;
}

export function startOutboxJob(ctx: ProviderContext, notifier: Notifier): OutboxJob {
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
    running = deliverDueMessages(ctx, notifier)
      .then(
        () => undefined,
        (err: unknown) => ctx.log.warn({ err: (err as Error).message }, 'outbox round failed'),
      )
      .finally(() => {
        running = undefined;
        schedule(ctx.config.outboxPollSeconds * 1000);
      });
  }
  schedule(0);
  return {
    kick: () => schedule(0),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
