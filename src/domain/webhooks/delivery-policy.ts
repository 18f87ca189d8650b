// When a failed webhook delivery is tried again (exponential backoff with jitter, capped), and when a subscription
// that keeps failing is paused: after PAUSE_AFTER_FAILURES failures in a row over at least PAUSE_AFTER_SECONDS, so
// that neither a short outage nor a burst of events pauses it. Pure: the job (deliver.ts) applies it.

/** The wait after the first failed attempt; it doubles after each further one. */
export const RETRY_BASE_SECONDS = 10;
/** The longest wait between two attempts. */
export const RETRY_CAP_SECONDS = 3600;
/** Failures in a row (of any of its deliveries) that pause a subscription, once they span PAUSE_AFTER_SECONDS. */
export const PAUSE_AFTER_FAILURES = 8;
export const PAUSE_AFTER_SECONDS = 15 * 60;
/** One POST may take this long (connection, request and answer). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/**
 * A claimed delivery is left to its instance this long; past it another instance (or this one, restarted after it
 * died) may send it again. Three times the longest attempt: no live instance is overtaken, and a subscription whose
 * instance died mid-send waits at most this long.
 */
export const DELIVERY_LEASE_SECONDS = 30;

/** Until when a delivery claimed at `now` is its instance's. */
export function leaseFrom(now: Date): Date {
  return new Date(now.getTime() + DELIVERY_LEASE_SECONDS * 1000);
}

/**
 * The wait after `attempts` failed attempts (1 after the first): base × 2^(attempts−1), capped, then scaled by a
 * random factor in [0.5, 1] ("equal jitter"), so that the deliveries of one outage do not all come back at once.
 */
export function retryDelayMs(attempts: number, random: () => number): number {
  const exponent = Math.min(Math.max(attempts, 1) - 1, 30);
  const ceiling = Math.min(RETRY_BASE_SECONDS * 2 ** exponent, RETRY_CAP_SECONDS) * 1000;
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(ceiling * (0.5 + r / 2));
}

/** A subscription whose failure streak is `failures` long and began at `failingSince` is paused at `now`. */
export function shouldPause(failures: number, failingSince: Date, now: Date): boolean {
  return failures >= PAUSE_AFTER_FAILURES && now.getTime() - failingSince.getTime() >= PAUSE_AFTER_SECONDS * 1000;
}
