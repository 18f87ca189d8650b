// Sends due webhook deliveries from this instance every WEBHOOK_POLL_SECONDS (src/domain/webhooks/deliver.ts); every
// instance may run it, since a delivery is claimed under a lease. One round at a time; a failed round is logged.
import type { ProviderContext } from '../domain/context.js';
import { deliverDueWebhooks } from '../domain/webhooks/deliver.js';

export interface WebhookJob {
  /** Cancels the next round and waits for one in progress. */
  stop(): Promise<void>;
}

export function startWebhookJob(ctx: ProviderContext): WebhookJob {
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
    running = deliverDueWebhooks(ctx)
      .then(
        () => undefined,
        (err: unknown) => ctx.log.warn({ err: (err as Error).message }, 'webhook round failed'),
      )
      .finally(() => {
        running = undefined;
        schedule(ctx.config.webhookPollSeconds * 1000);
      });
  }
  schedule(0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
