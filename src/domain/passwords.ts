// argon2id hashing for user passwords and client secrets, with the configured (OWASP) parameters.
// Verifications go through bounded semaphores, so that a flood of sign-ins cannot queue unbounded CPU work; client
// secrets have a semaphore of their own, so that a flood of wrong client secrets cannot take the slots people need.
import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import type { Argon2Params, PasswordWorkLimits } from '../config.js';
import { WorkLimiter } from './work-limiter.js';

export class PasswordHasher {
  private dummyHash: Promise<string> | undefined;
  private readonly limiter: WorkLimiter | undefined;
  private readonly secretLimiter: WorkLimiter | undefined;

  /** Without `limits` (the seed script), verifications are not bounded. */
  constructor(
    private readonly params: Argon2Params,
    limits?: PasswordWorkLimits,
  ) {
    this.limiter = limits && new WorkLimiter(limits.maxConcurrent, limits.maxQueued);
    this.secretLimiter = limits && new WorkLimiter(limits.maxConcurrent, limits.maxQueued);
  }

  hash(plain: string): Promise<string> {
    return argon2.hash(plain, {
      type: argon2.argon2id,
      memoryCost: this.params.memoryKiB,
      timeCost: this.params.timeCost,
      parallelism: this.params.parallelism,
    });
  }

  /** hash() within the same bounds as verifications: for hashing anyone may ask for (open client registration). */
  hashBounded(plain: string): Promise<string> {
    return this.limiter ? this.limiter.run(() => this.hash(plain)) : this.hash(plain);
  }

  /**
   * False for a wrong password and for a hash that cannot be parsed. Throws TemporarilyUnavailable,
   * before any work, when the verifications running and waiting in this process are at their limits.
   */
  verify(hash: string, plain: string): Promise<boolean> {
    return this.limiter ? this.limiter.run(() => check(hash, plain)) : check(hash, plain);
  }

  /** verify() for a client secret: the same work, bounded by the client secrets' own semaphore. */
  verifyClientSecret(hash: string, plain: string): Promise<boolean> {
    return this.secretLimiter ? this.secretLimiter.run(() => check(hash, plain)) : check(hash, plain);
  }

  /**
   * Spends the same work as a real verification, for a login whose user does not exist, so that
   * the response time does not tell whether an account exists.
   */
  async verifyNothing(plain: string): Promise<false> {
    this.dummyHash ??= this.hash(randomBytes(16).toString('base64url'));
    await this.verify(await this.dummyHash, plain);
    return false;
  }

  /** verifyNothing() for a client secret presented with a client_id that names no client. */
  async verifyNoClientSecret(plain: string): Promise<false> {
    this.dummyHash ??= this.hash(randomBytes(16).toString('base64url'));
    await this.verifyClientSecret(await this.dummyHash, plain);
    return false;
  }
}

async function check(hash: string, plain: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, plain);
  } catch {
    return false;
  }
}
