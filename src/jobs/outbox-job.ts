// Delivers the outbox from this instance every OUTBOX_POLL_SECONDS, and soon after a kick (a code just queued).
import { deliverDueMessages, type Notifier } from '../domain/notifications/notifier.js';
import type { ProviderContext } from '../domain/context.js';
import { startPollingJob, type PollingJob } from './polling-job.js';

export type OutboxJob = PollingJob;

export function startOutboxJob(ctx: ProviderContext, notifier: Notifier): OutboxJob {
  return startPollingJob(ctx, {
    name: 'outbox',
    intervalMs: ctx.config.outboxPollSeconds * 1000,
    round: () => deliverDueMessages(ctx, notifier),
  });
}
