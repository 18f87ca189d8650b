// Sends due webhook deliveries from this instance every WEBHOOK_POLL_SECONDS (src/domain/webhooks/deliver.ts); every
// instance may run it, since a delivery is claimed under a lease. One round at a time; a failed round is logged.
import type { ProviderContext } from '../domain/context.js';
import { deliverDueWebhooks } from '../domain/webhooks/deliver.js';
import { startPollingJob, type PollingJob } from './polling-job.js';

export type WebhookJob = PollingJob;

export function startWebhookJob(ctx: ProviderContext): WebhookJob {
  return startPollingJob(ctx, {
    name: 'webhook',
    intervalMs: ctx.config.webhookPollSeconds * 1000,
    round: () => deliverDueWebhooks(ctx),
  });
}
