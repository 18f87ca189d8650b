// Password hashing (argon2id), the bounds on verifications at once, and what a new password must be.
import type { Reader } from './reader.js';

/** What a new password must be (src/domain/accounts/password-policy.ts). */
export interface PasswordPolicySettings {
  /** PASSWORD_MIN_LENGTH: characters (code points) after NFKC normalisation; at least 8 (NIST's floor). */
  readonly minLength: number;
}

export interface Argon2Params {
  readonly memoryKiB: number;
  readonly timeCost: number;
  readonly parallelism: number;
}

export interface PasswordWorkLimits {
  /** Verifications running at once. */
  readonly maxConcurrent: number;
  /** Verifications waiting for a slot; one more is refused with temporarily_unavailable. */
  readonly maxQueued: number;
}

// With ARGON2_MIN_MEMORY_KIB (src/settings.ts): OWASP's weakest equivalent of m=19 MiB, t=2 is m=7 MiB, t=5
// (35,840 KiB-passes); nothing below that is accepted.
const ARGON2_MIN_MEMORY_PASSES = 35_840;

/** ARGON2_*, PASSWORD_MIN_LENGTH. */
export function passwordSettings({ integer, problems }: Reader): {
  argon2: Argon2Params;
  passwordWork: PasswordWorkLimits;
  passwordPolicy: PasswordPolicySettings;
} {
  const argon2 = {
    memoryKiB: integer('ARGON2_MEMORY_KIB'),
    timeCost: integer('ARGON2_TIME_COST'),
    parallelism: integer('ARGON2_PARALLELISM'),
  };
  if (argon2.memoryKiB * argon2.timeCost < ARGON2_MIN_MEMORY_PASSES) {
    problems.push(
      `ARGON2_MEMORY_KIB x ARGON2_TIME_COST must be at least ${ARGON2_MIN_MEMORY_PASSES} (OWASP minimum; got ${argon2.memoryKiB * argon2.timeCost})`,
    );
  }
  const passwordWork = {
    maxConcurrent: integer('ARGON2_MAX_CONCURRENT'),
    maxQueued: integer('ARGON2_MAX_QUEUED'),
  };

  return {
    argon2: Object.freeze(argon2),
    passwordWork: Object.freeze(passwordWork),
    passwordPolicy: Object.freeze({ minLength: integer('PASSWORD_MIN_LENGTH') }),
  };
}
