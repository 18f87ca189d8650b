// User-code entry throttling on the verification page (RFC 8628 5.1): every code typed is counted per client
// address, in the database like the sign-in counters (src/domain/accounts/sign-in-throttle.ts), before it is looked up.
// A code that finds its request gives its attempt back; a wrong one keeps it, and the locks grow as for sign-in.
import { claimAttempt, refundAttempt } from '../../storage/sign-in-throttle.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { networkPrefix } from '../../net/ip-prefix.js';
import { sha256 } from '../secrets.js';
import { lockRule, retryAfterSeconds } from '../accounts/sign-in-throttle.js';

/** The address counter's key; an IPv6 client counts per /64, like the sign-in address counter. */
export function userCodeEntryKey(ip: string): string {
  return `user-code-ip:${sha256(networkPrefix(ip, 32, 4))}`;
}

export type UserCodeEntryClaim =
  { kind: 'claimed'; counter: { key: string; count: number } | null } | { kind: 'throttled'; retryAfterSeconds: number };

/**
 * RFC 8628 5.1: "the authorization server should rate-limit user code attempts". Counts this entry against the
 * address, unless the address is locked (USER_CODE_IP_FREE_ATTEMPTS=0 turns the counter off).
 */
export async function claimUserCodeEntry(ctx: ProviderContext, ip: string): Promise<UserCodeEntryClaim> {
  const policy = ctx.config.deviceFlow.userCodeEntry;
  if (policy === null) return { kind: 'claimed', counter: null };
  const key = userCodeEntryKey(ip);
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

/** A code that found its request is no guess: its attempt is given back. */
export async function userCodeEntrySucceeded(ctx: ProviderContext, claim: Extract<UserCodeEntryClaim, { kind: 'claimed' }>): Promise<void> {
  if (claim.counter) await refundAttempt(ctx.db, claim.counter.key, claim.counter.count);
}
