// Checks organizations' verified domains again (src/domain/organizations/domain-verification.ts) from this instance:
// a first round a minute after start, then every INTERVAL_MS (polling-job.ts); a failed round is logged and the next
// comes all the same. Every instance may run it: each domain is claimed by one instance for its check (SKIP LOCKED),
// and a domain is due only RECHECK_INTERVAL_HOURS after its last check, so a round finds little to do most of the time.
import type { ProviderContext } from '../domain/context.js';
import { recheckVerifiedDomains } from '../domain/organizations/domain-verification.js';
import { startPollingJob } from './polling-job.js';

const FIRST_ROUND_MS = 60_000;
const INTERVAL_MS = 15 * 60_000;

export interface OrganizationDomainsJob {
  /** Cancels the next round and waits for the one in progress (which stops after its batch). */
  stop(): Promise<void>;
}

export function startOrganizationDomainsJob(ctx: ProviderContext): OrganizationDomainsJob {
  let stopped = false;
  const job = startPollingJob(ctx, {
    name: 'organization domain re-check',
    intervalMs: INTERVAL_MS,
    firstRoundMs: FIRST_ROUND_MS,
    round: async () => {
      const round = await recheckVerifiedDomains(ctx, () => !stopped);
      if (round.unverified > 0 || round.unavailable > 0) ctx.log.info({ ...round }, 'organization domains checked again');
    },
  });
  return {
    stop() {
      stopped = true;
      return job.stop();
    },
  };
}
