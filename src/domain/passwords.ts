// argon2id hashing for user passwords and client secrets, with the configured (OWASP) parameters.
import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import type { Argon2Params } from '../config.js';

export class PasswordHasher {
  private dummyHash: Promise<string> | undefined;

  constructor(private readonly params: Argon2Params) {}

  hash(plain: string): Promise<string> {
    return argon2.hash(plain, {
      type: argon2.argon2id,
      memoryCost: this.params.memoryKiB,
      timeCost: this.params.timeCost,
      parallelism: this.params.parallelism,
    });
  }

  /** False for a wrong password and for a hash that cannot be parsed. */
  async verify(hash: string, plain: string): Promise<boolean> {
    try {
      return await argon2.verify(hash, plain);
    } catch {
      return false;
    }
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
}
