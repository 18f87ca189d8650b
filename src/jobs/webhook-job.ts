// Sends webhook deliveries from this instance as they are queued (issue 38): each subscription has at most one
// delivery in flight, and its next one is claimed as soon as that one is delivered; up to WEBHOOK_CONCURRENCY
// subscriptions go side by side. The job is woken when deliveries commit (a NOTIFY from the database, listened to
// by src/storage/listen.ts) and when a subscription's turn ends; every WEBHOOK_POLL_SECONDS it looks anyway, for
// retries that came due and for a wake-up missed while the database was away. Every instance may run it: a
// delivery is claimed under a lease, so two never send one subscription's deliveries at once nor out of order.
// Connections to the receivers are kept open between deliveries (an OutboundPool of the job's, closed as it stops).
import type { ProviderContext } from '../domain/context.js';
import { batchedDeliveredWrites } from '../domain/webhooks/delivered-writes.js';
import { claimWebhookDeliveries, deliverWebhook } from '../domain/webhooks/deliver.js';
import type { ClaimedDelivery } from '../domain/webhooks/event-data.js';
import { OutboundPool } from '../outbound/guarded-fetch.js';
import type { Listen, Listening } from '../storage/listen.js';
import { WEBHOOK_CHANNEL } from '../storage/webhooks.js';

/**
 * A subscription keeps its turn for this many deliveries in a row, then goes back behind the others that wait, so
 * that a busy subscription cannot hold a place for ever while others wait for one.
 */
const TURN_DELIVERIES = 50;
/**
 * Looks for other subscriptions' deliveries at most this often while events keep coming: a burst of commits is one
 * look, not one per commit. A subscription in its turn never waits for it.
 */
const LOOK_GAP_MS = 20;

export interface WebhookJob {
  /** Looks for due deliveries now (they were just queued). */
  wake(): void;
  /** Stops claiming and waits for the deliveries in flight. */
  stop(): Promise<void>;
}

export function startWebhookJob(ctx: ProviderContext, options: { listen?: Listen | undefined } = {}): WebhookJob {
  const concurrency = ctx.config.webhookConcurrency;
  /** The subscriptions this instance is sending to, and the turn of each. */
  const turns = new Map<string, Promise<void>>();
  let looking: Promise<void> | undefined;
  let lookAgain = false;
  let stopped = false;
  /** Connections kept open to the receivers between deliveries; closed when the job stops. */
  const pool = new OutboundPool();
  /** Deliveries acknowledged together are recorded together, one statement for all (delivered-writes.ts). */
  const writeDelivered = batchedDeliveredWrites(ctx);

  const warn = (err: unknown, what: string) => ctx.log.warn({ err: (err as Error).message }, what);

  function wake(): void {
    if (stopped) return;
    if (looking) {
      lookAgain = true;
      return;
    }
    looking = look()
      .then(async () => {
        if (lookAgain) await new Promise((resolve) => setTimeout(resolve, LOOK_GAP_MS).unref());
      })
      .finally(() => {
        looking = undefined;
        if (lookAgain) {
          lookAgain = false;
          wake();
        }
      });
  }

  /**
   * A notification names the subscription of the delivery committed: one in its turn claims it itself (its turn's
   * end looks again, so that one committed as the turn ends is not missed). Without a name, look.
   */
  function notified(subscriptionId?: string): void {
    if (subscriptionId && turns.has(subscriptionId)) return;
    wake();
  }

  /** Claims the due heads of as many other subscriptions as there are free places, and starts a turn for each. */
  async function look(): Promise<void> {
    const free = concurrency - turns.size;
    if (free <= 0) return;
    let claimed: ClaimedDelivery[];
    try {
      claimed = await claimWebhookDeliveries(ctx, { limit: free, excluding: [...turns.keys()] });
    } catch (err) {
      warn(err, 'webhook claim failed');
      return;
    }
    for (const d of claimed) startTurn(d);
  }

  /** Sends the subscription's deliveries one after the other while each is delivered and the next is due. */
  function startTurn(first: ClaimedDelivery): void {
    const subscriptionId = first.subscriptionId;
    const turn = (async () => {
      let next: ClaimedDelivery | undefined = first;
      for (let sent = 1; next; sent += 1) {
        // The last of a turn, or one sent once the job stops, is only marked: its successor waits for a claim. One
        // claimed with it is sent even if the job stopped meanwhile, rather than left leased to no one.
        const outcome = await deliverWebhook(ctx, next, { claimNext: !stopped && sent < TURN_DELIVERIES, pool, writeDelivered });
        next = outcome.outcome === 'delivered' ? outcome.next : undefined;
      }
    })()
      // A delivery left claimed by a failed write is sent again once its lease is over.
      .catch((err: unknown) => warn(err, 'webhook delivery round failed'))
      .finally(() => {
        turns.delete(subscriptionId);
        wake();
      });
    turns.set(subscriptionId, turn);
  }

  const poll = setInterval(wake, ctx.config.webhookPollSeconds * 1000);
  poll.unref();
  let listening: Promise<Listening | undefined> = Promise.resolve(undefined);
  if (options.listen) {
    listening = options.listen(WEBHOOK_CHANNEL, notified).catch((err: unknown) => {
      warn(err, 'webhook listener failed; polling only');
      return undefined;
    });
  }
  wake();

  return {
    wake,
    async stop() {
      stopped = true;
      clearInterval(poll);
      await (await listening)?.close().catch(() => {});
      await looking;
      await Promise.all(turns.values());
      pool.close();
    },
  };
}
