// User-code entry throttling on the verification page (RFC 8628 5.1): every code typed is counted per client
// address, in the database like the sign-in counters (src/domain/accounts/sign-in-throttle.ts), before it is looked up.
// A code that finds its request gives its attempt back; a wrong one keeps it, and the locks grow as for sign-in.
import type { ProviderContext } from '../context.js';
import { claimNetworkCounter, giveBackNetworkCounter, networkCounterKey, type CounterClaim } from '../network-counter.js';

/** The address counter's key; an IPv6 client counts per /64, like the sign-in address counter. */
export function userCodeEntryKey(ip: string): string {
  return networkCounterKey('user-code-ip', ip);
}

export type UserCodeEntryClaim = CounterClaim;

/**
 * RFC 8628 5.1: "the authorization server should rate-limit user code attempts". Counts this entry against the
 * address, unless the address is locked (USER_CODE_IP_FREE_ATTEMPTS=0 turns the counter off).
 */
export function claimUserCodeEntry(ctx: ProviderContext, ip: string): Promise<UserCodeEntryClaim> {
  return claimNetworkCounter(ctx, 'user-code-ip', ip, ctx.config.deviceFlow.userCodeEntry);
}

/** A code that found its request is no guess: its attempt is given back. */
export const userCodeEntrySucceeded = giveBackNetworkCounter;
