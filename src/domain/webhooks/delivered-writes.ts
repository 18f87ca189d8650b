// Records delivered webhooks (issue 38): a delivery the receiver took leaves its queue, its subscription's failure
// streak ends, and its subscription's next delivery is claimed, in one statement (markWebhooksDelivered). The job
// batches them: the deliveries acknowledged while one write is on its way go together in the next, one statement and
// one commit for all, so that as deliveries come faster than a write takes, the writes grow instead of queueing up;
// a lone delivery is written at once.
import type { ProviderContext } from '../context.js';
import { markWebhooksDelivered, type DeliveredWebhook } from '../../storage/webhooks.js';
import { leaseFrom } from './delivery-policy.js';
import { EVENT_DATA, type ClaimedDelivery } from './event-data.js';

export type DeliveredWriteContext = Pick<ProviderContext, 'db' | 'clock'>;

/** Records one delivered webhook; resolves with its subscription's next delivery when one was claimed with it. */
export type DeliveredWrite = (delivered: DeliveredWebhook) => Promise<ClaimedDelivery | undefined>;

/** Records the delivered webhooks now, in one statement; returns the next deliveries claimed with them. */
export function writeDelivered(ctx: DeliveredWriteContext, delivered: readonly DeliveredWebhook[]): Promise<ClaimedDelivery[]> {
  const now = ctx.clock();
  return markWebhooksDelivered(ctx.db, EVENT_DATA, { delivered, now, leaseUntil: leaseFrom(now) });
}

interface Waiting {
  delivered: DeliveredWebhook;
  resolve: (next: ClaimedDelivery | undefined) => void;
  reject: (err: unknown) => void;
}

/**
 * A DeliveredWrite that batches: one write at a time, each taking every delivery recorded since the one before began.
 * A failed write fails each of its deliveries (each stays claimed, and is sent again once its lease is over).
 */
export function batchedDeliveredWrites(ctx: DeliveredWriteContext): DeliveredWrite {
  let waiting: Waiting[] = [];
  let writing = false;

  async function writeWaiting(): Promise<void> {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        const claimed = await writeDelivered(
          ctx,
          batch.map((w) => w.delivered),
        );
        const next = new Map(claimed.map((c) => [c.subscriptionId, c]));
        for (const w of batch) w.resolve(next.get(w.delivered.subscriptionId));
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    writing = false;
  }

  return (delivered) =>
    new Promise((resolve, reject) => {
      waiting.push({ delivered, resolve, reject });
      if (!writing) void writeWaiting();
    });
}
