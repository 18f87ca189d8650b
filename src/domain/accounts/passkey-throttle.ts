// Passkey assertions counted per client address before any verification, in the database like the sign-in counters
// (src/domain/accounts/sign-in-throttle.ts), with the same policy as their address counter (SIGN_IN_IP_FREE_ATTEMPTS,
// SIGN_IN_LOCK_*; 0 turns it off): a forged or replayed assertion keeps its attempt, a signed-in one gives it back.
import { claimAttempt, refundAttempt } from '../../storage/sign-in-throttle.js';
import { networkPrefix } from '../../net/ip-prefix.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { sha256 } from '../secrets.js';
import { lockRule, retryAfterSeconds } from './sign-in-throttle.js';

/** The address counter's key; an IPv6 client counts per /64, like the sign-in address counter. */
export function passkeyAddressKey(ip: string): string {
  return `passkey-ip:${sha256(networkPrefix(ip, 32, 4))}`;
}

export type PasskeyAttemptClaim =
  { kind: 'claimed'; counter: { key: string; count: number } | null } | { kind: 'throttled'; retryAfterSeconds: number };

/** RFC 6749 10.10 (guessing), for assertions: counted before the signature is looked at; throttled while locked. */
export async function claimPasskeyAttempt(ctx: ProviderContext, ip: string): Promise<PasskeyAttemptClaim> {
  const policy = ctx.config.signInThrottle.ip;
  if (policy === null) return { kind: 'claimed', counter: null };
  const key = passkeyAddressKey(ip);
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

/** A verified assertion is no guess: its attempt is given back. */
export async function passkeyAttemptSucceeded(
  ctx: ProviderContext,
  claim: Extract<PasskeyAttemptClaim, { kind: 'claimed' }>,
): Promise<void> {
  if (claim.counter) await refundAttempt(ctx.db, claim.counter.key, claim.counter.count);
}
