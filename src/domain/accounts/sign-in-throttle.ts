// Sign-in throttling: the rules for when a password attempt may be checked, and what it counts against.
//
// Every attempt is counted per account (the login as typed, trimmed and lower-cased, so that an unknown
// login behaves exactly like a known one) and per client address, in the database so that every instance
// sees the same counters. An attempt is claimed atomically BEFORE any argon2 work: a locked key costs no
// hashing, and concurrent attempts cannot slip past a lock together. A success forgets the account's
// counter and gives its attempt back to the address's; a failure keeps the count it was claimed with.
import type { ThrottlePolicy } from '../../config.js';
import { claimAttempt, deleteCounter, findLockedUntil, refundAttempt, type LockRule } from '../../storage/sign-in-throttle.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { networkPrefix } from '../../net/ip-prefix.js';
import { sha256 } from '../secrets.js';

/** Seconds an account or address stays locked after `attempts` counted attempts. */
export function lockSecondsAfter(attempts: number, policy: ThrottlePolicy): number {
  if (attempts < policy.freeAttempts) return 0;
  const doublings = Math.min(attempts - policy.freeAttempts, 32);
  return Math.min(policy.lockMaxSeconds, policy.lockBaseSeconds * 2 ** doublings);
}

/** The policy as the storage layer applies it: the lock lengths after the free attempts, up to the cap. */
export function lockRule(policy: ThrottlePolicy): LockRule {
  const ladder: number[] = [];
  for (let n = policy.freeAttempts; ; n += 1) {
    ladder.push(lockSecondsAfter(n, policy));
    if (ladder.at(-1)! >= policy.lockMaxSeconds) return { freeAttempts: policy.freeAttempts, ladder };
  }
}

/** The account counter's key: a digest of the login as typed, so an unknown login is counted like a known one. */
export function accountKey(login: string): string {
  return `account:${sha256(login.trim().toLowerCase())}`;
}

/**
 * The address counter's key. An IPv6 client usually holds a whole /64, so its addresses share one
 * counter; an IPv4-mapped IPv6 address counts as its IPv4 address.
 */
export function addressKey(ip: string): string {
  return `ip:${sha256(networkPrefix(ip, 32, 4))}`;
}

export type AttemptClaim =
  { kind: 'claimed'; accountKey: string; accountCount: number; address: { key: string; count: number } | null } | ThrottledClaim;

/** `account`: the address was claimed (its count in `address`) and the account's counter is what refused. */
type ThrottledClaim = { kind: 'throttled'; retryAfterSeconds: number; account?: { address: { key: string; count: number } | null } };

/**
 * RFC 6749 10.10: "The authorization server MUST prevent attackers from guessing [...] resource owner
 * passwords". Counts this attempt against the address, then the account; throttled when either is locked.
 */
export async function claimSignInAttempt(ctx: ProviderContext, login: string, ip: string): Promise<AttemptClaim> {
  const settings = ctx.config.signInThrottle;
  const now = ctx.clock();
  const expiresAt = addSeconds(now, settings.windowSeconds);
  // The address first: attempts from a locked address do not count against the accounts they name.
  let address: { key: string; count: number } | null = null;
  if (settings.ip) {
    const key = addressKey(ip);
    const count = await claimAttempt(ctx.db, { key, now, expiresAt, rule: lockRule(settings.ip) });
    if (count === undefined) return throttled(ctx, key, now);
    address = { key, count };
  }
  const account = accountKey(login);
  const accountCount = await claimAttempt(ctx.db, { key: account, now, expiresAt, rule: lockRule(settings.account) });
  if (accountCount === undefined) return { ...(await throttled(ctx, account, now)), account: { address } };
  return { kind: 'claimed', accountKey: account, accountCount, address };
}

/**
 * The account counter is keyed by the login as typed, so anyone can keep it locked with one attempt per lock period.
 * The account's owner on a device of theirs (a live device cookie recorded for that user) is not locked out by it:
 * their attempts count against a counter of that login and device, with the same policy, while the address
 * counter (already claimed) stays. A cookie the attacker does not hold cannot reach it; a fresh cookie is no device.
 */
export async function claimKnownDeviceAttempt(
  ctx: ProviderContext,
  login: string,
  cookieHash: string,
  refused: ThrottledClaim & { account: { address: { key: string; count: number } | null } },
): Promise<AttemptClaim> {
  const now = ctx.clock();
  const key = `${accountKey(login)}:device:${cookieHash}`;
  const rule = lockRule(ctx.config.signInThrottle.account);
  const count = await claimAttempt(ctx.db, { key, now, expiresAt: addSeconds(now, ctx.config.signInThrottle.windowSeconds), rule });
  if (count === undefined) return throttled(ctx, key, now);
  return { kind: 'claimed', accountKey: key, accountCount: count, address: refused.account.address };
}

/** A right password: the account starts afresh; the address gets its attempt back (a success is no failure). */
export async function signInSucceeded(ctx: ProviderContext, claim: Extract<AttemptClaim, { kind: 'claimed' }>): Promise<void> {
  await deleteCounter(ctx.db, claim.accountKey);
  if (claim.address) await refundAttempt(ctx.db, claim.address.key, claim.address.count);
}

/** The password was never checked (the verifications were at their limits): the attempt counts against nothing. */
export async function signInNotChecked(ctx: ProviderContext, claim: Extract<AttemptClaim, { kind: 'claimed' }>): Promise<void> {
  await refundAttempt(ctx.db, claim.accountKey, claim.accountCount);
  if (claim.address) await refundAttempt(ctx.db, claim.address.key, claim.address.count);
}

async function throttled(ctx: ProviderContext, key: string, now: Date): Promise<ThrottledClaim> {
  return { kind: 'throttled', retryAfterSeconds: await retryAfterSeconds(ctx, key, now) };
}

/** Whole seconds until a locked counter lets attempts in again (at least 1): every throttle's Retry-After (RFC 6585 4). */
export async function retryAfterSeconds(ctx: Pick<ProviderContext, 'db'>, key: string, now: Date): Promise<number> {
  const lockedUntil = await findLockedUntil(ctx.db, key);
  return Math.max(1, lockedUntil ? Math.ceil((lockedUntil.getTime() - now.getTime()) / 1000) : 1);
}
