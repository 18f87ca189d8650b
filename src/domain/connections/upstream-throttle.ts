// Callbacks from upstream providers counted per client network before any work (the state's lookup, the token
// request, the key set), in the database like the sign-in counters, with the address counter's policy
// (SIGN_IN_IP_FREE_ATTEMPTS, SIGN_IN_LOCK_*; 0 turns it off): a callback that signs someone in gives its count back,
// so only forged, replayed or refused ones add up.
import type { ProviderContext } from '../context.js';
import { claimNetworkCounter, giveBackNetworkCounter, type CounterClaim } from '../network-counter.js';

export function claimUpstreamCallback(ctx: ProviderContext, ip: string): Promise<CounterClaim> {
  return claimNetworkCounter(ctx, 'upstream-ip', ip, ctx.config.signInThrottle.ip);
}

export const upstreamCallbackSucceeded = giveBackNetworkCounter;
