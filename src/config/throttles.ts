// The counters of sign-in attempts and of the other floods: free attempts, then locks that double (SIGN_IN_*), and
// the per-minute counters of the endpoints that take them.
import type { Reader } from './reader.js';

/** `freeAttempts` counted attempts, then a lock of base seconds that doubles with each further one, capped. */
export interface ThrottlePolicy {
  readonly freeAttempts: number;
  readonly lockBaseSeconds: number;
  readonly lockMaxSeconds: number;
}

export interface SignInThrottleSettings {
  readonly account: ThrottlePolicy;
  /** null when the per-address throttle is off (SIGN_IN_IP_FREE_ATTEMPTS=0). */
  readonly ip: ThrottlePolicy | null;
  /** A counter is forgotten this long after its last counted attempt. */
  readonly windowSeconds: number;
}

/** The lock of every counter that locks like sign-in attempts (SIGN_IN_LOCK_*). */
export type LockSeconds = Pick<ThrottlePolicy, 'lockBaseSeconds' | 'lockMaxSeconds'>;

/** SIGN_IN_*: the account's and the address's counters, and the lock they share with the other counters. */
export function signInThrottleSettings({ integer, problems }: Reader): { signInThrottle: SignInThrottleSettings; lock: LockSeconds } {
  const lockBaseSeconds = integer('SIGN_IN_LOCK_BASE_SECONDS');
  const lockMaxSeconds = integer('SIGN_IN_LOCK_MAX_SECONDS');
  const ipFreeAttempts = integer('SIGN_IN_IP_FREE_ATTEMPTS');
  const throttleWindowSeconds = integer('SIGN_IN_THROTTLE_WINDOW_SECONDS');
  if (lockMaxSeconds < lockBaseSeconds) problems.push('SIGN_IN_LOCK_MAX_SECONDS must be at least SIGN_IN_LOCK_BASE_SECONDS');
  // A counter forgotten before its lock ends would end the lock early.
  const lock: LockSeconds = { lockBaseSeconds, lockMaxSeconds };
  if (throttleWindowSeconds < lockMaxSeconds) problems.push('SIGN_IN_THROTTLE_WINDOW_SECONDS must be at least SIGN_IN_LOCK_MAX_SECONDS');
  const signInThrottle: SignInThrottleSettings = Object.freeze({
    account: Object.freeze({ freeAttempts: integer('SIGN_IN_ACCOUNT_FREE_ATTEMPTS'), lockBaseSeconds, lockMaxSeconds }),
    ip: ipFreeAttempts === 0 ? null : Object.freeze({ freeAttempts: ipFreeAttempts, lockBaseSeconds, lockMaxSeconds }),
    windowSeconds: throttleWindowSeconds,
  });

  return { signInThrottle, lock };
}

/** At most `n` requests without a minute's pause, then a minute's wait; 0 turns the counter off. */
export function perMinute(n: number): ThrottlePolicy | null {
  return n === 0 ? null : Object.freeze({ freeAttempts: n, lockBaseSeconds: 60, lockMaxSeconds: 60 });
}
