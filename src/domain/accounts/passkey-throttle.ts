// Passkey assertions counted per client address before any verification, in the database like the sign-in counters
// (src/domain/accounts/sign-in-throttle.ts), with the same policy as their address counter (SIGN_IN_IP_FREE_ATTEMPTS,
// SIGN_IN_LOCK_*; 0 turns it off): a forged or replayed assertion keeps its attempt, a signed-in one gives it back.
import type { ProviderContext } from '../context.js';
import { claimNetworkCounter, giveBackNetworkCounter, networkCounterKey, type CounterClaim } from '../network-counter.js';

/** The address counter's key; an IPv6 client counts per /64, like the sign-in address counter. */
export function passkeyAddressKey(ip: string): string {
  return networkCounterKey('passkey-ip', ip);
}

export type PasskeyAttemptClaim = CounterClaim;

/** RFC 6749 10.10 (guessing), for assertions: counted before the signature is looked at; throttled while locked. */
export function claimPasskeyAttempt(ctx: ProviderContext, ip: string): Promise<PasskeyAttemptClaim> {
  return claimNetworkCounter(ctx, 'passkey-ip', ip, ctx.config.signInThrottle.ip);
}

/** A verified assertion is no guess: its attempt is given back. */
export const passkeyAttemptSucceeded = giveBackNetworkCounter;
