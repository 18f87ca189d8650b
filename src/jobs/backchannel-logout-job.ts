// Sends queued back-channel logout tokens from this instance: at once when a session ends here, and every
// pollSeconds for what is due elsewhere (retries, or deliveries left behind by an instance that stopped).
import type { FastifyBaseLogger } from 'fastify';
import { deliverDueLogouts, guardedLogoutSender, type DeliveryOutcome, type LogoutSender } from '../domain/logout/backchannel-logout.js';
import type { ProviderContext } from '../domain/context.js';

export interface BackchannelLogoutJob {
  /** Runs a delivery round soon, without waiting for it: the user's response never waits on a client. */
  kick(): void;
  /** Cancels the next round and waits for one in progress. */
  stop(): Promise<void>;
}

type JobLogger = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

function logOutcome(logger: JobLogger, o: DeliveryOutcome): void {
  const fields = { client_id: o.clientId, attempts: o.attempts };
  if (o.outcome === 'delivered') logger.info(fields, 'back-channel logout delivered');
  else if (o.outcome === 'retry') logger.warn({ ...fields, reason: o.reason }, 'back-channel logout failed; will retry');
  else logger.error({ ...fields, reason: o.reason }, 'back-channel logout failed; given up');
}

/**
 * One round at a time per process; a kick during a round asks for another right after it, so a logout that
 * arrives mid-round is not left for the next poll. A failed round is logged, never thrown.
 */
export function startBackchannelLogoutJob(
  ctx: ProviderContext,
  logger: JobLogger,
  send: LogoutSender = guardedLogoutSender(ctx),
): BackchannelLogoutJob {
  const pollMs = ctx.config.backchannelLogout.pollSeconds * 1000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const round = async () => {
    try {
      for (const outcome of await deliverDueLogouts(ctx, send)) logOutcome(logger, outcome);
    } catch (err) {
      logger.error({ err }, 'back-channel logout round failed');
    }
  };

  const schedule = (delayMs: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(run, delayMs);
    timer.unref();
  };

  function run() {
    if (running) {
      again = true;
      return;
    }
    running = round().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        schedule(0);
      } else {
        // Spread instances started together over the poll period.
        schedule(pollMs * (0.9 + Math.random() * 0.2));
      }
    });
  }

  schedule(pollMs);
  return {
    kick() {
      if (stopped) return;
      if (running) again = true;
      else schedule(0);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
