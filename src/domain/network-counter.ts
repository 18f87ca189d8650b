// One counter of requests per client network (IPv4 address, IPv6 /64), in the database like the sign-in counters
// (src/storage/sign-in-throttle.ts): counted before the work it guards, locked for longer and longer once its free
// requests are spent, forgotten SIGN_IN_THROTTLE_WINDOW_SECONDS after its last request. Open registration, user
// codes, passkey assertions, sign-ups and reset requests each keep one, under their own name and policy.
import type { ThrottlePolicy } from '../config.js';
import { networkPrefix } from '../net/ip-prefix.js';
import { TooManyRequests } from '../errors/oauth-error.js';
import { claimAttempt, refundAttempt } from '../storage/sign-in-throttle.js';
import { lockRule, retryAfterSeconds } from './accounts/sign-in-throttle.js';
import { addSeconds } from './clock.js';
import type { ProviderContext } from './context.js';
import { sha256 } from './secrets.js';

/** The counter's key: its name and a digest of the network, so that no address is stored. */
export function networkCounterKey(name: string, ip: string): string {
  return `${name}:${sha256(networkPrefix(ip, 32, 4))}`;
}

export type CounterClaim =
  /** Counted (`counter` null: the policy is off); `count` is this request's number. */
  { kind: 'claimed'; counter: { key: string; count: number } | null } | { kind: 'throttled'; retryAfterSeconds: number };

/** Counts one request of `ip` under `name` and `policy` (null: not counted); throttled while the network is locked. */
export async function claimNetworkCounter(
  ctx: Pick<ProviderContext, 'db' | 'clock' | 'config'>,
  name: string,
  ip: string,
  policy: ThrottlePolicy | null,
): Promise<CounterClaim> {
  if (policy === null) return { kind: 'claimed', counter: null };
  const key = networkCounterKey(name, ip);
  const now = ctx.clock();
  const count = await claimAttempt(ctx.db, {
    key,
    now,
    expiresAt: addSeconds(now, ctx.config.signInThrottle.windowSeconds),
    rule: lockRule(policy),
  });
  if (count !== undefined) return { kind: 'claimed', counter: { key, count } };
  return { kind: 'throttled', retryAfterSeconds: await retryAfterSeconds(ctx, key, now) };
}

/** A request that proved no guess gives its count back. */
export async function giveBackNetworkCounter(
  ctx: Pick<ProviderContext, 'db'>,
  claim: Extract<CounterClaim, { kind: 'claimed' }>,
): Promise<void> {
  if (claim.counter) await refundAttempt(ctx.db, claim.counter.key, claim.counter.count);
}

/**
 * Counts one request under each of `counters` (a key and its policy; null: not counted), in order, each counter
 * kept as long as its longest lock; throws TooManyRequests (429 with Retry-After, RFC 6585 4) saying `refusal` at
 * the first one that is locked. The device authorization and pushed request counters.
 */
export async function claimRequestCounters(
  ctx: Pick<ProviderContext, 'db' | 'clock' | 'config'>,
  counters: ReadonlyArray<readonly [string, ThrottlePolicy | null]>,
  refusal: string,
): Promise<void> {
  const now = ctx.clock();
  for (const [key, policy] of counters) {
    if (policy === null) continue;
    const count = await claimAttempt(ctx.db, { key, now, expiresAt: addSeconds(now, policy.lockMaxSeconds), rule: lockRule(policy) });
    if (count === undefined) throw new TooManyRequests(refusal, await retryAfterSeconds(ctx, key, now));
  }
}
