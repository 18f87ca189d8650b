// argon2id hashing for user passwords and operator-chosen client secrets, with the configured (OWASP) parameters;
// client secrets this server generated are HMAC digests instead (src/domain/clients/client-secret-digest.ts).
// Verifications go through bounded semaphores, so that a flood of sign-ins cannot queue unbounded CPU work; client
// secrets have a semaphore of their own, so that a flood of wrong client secrets cannot take the slots people need.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import argon2 from 'argon2';
import type { Argon2Params, PasswordWorkLimits } from '../../config.js';
import { ClientSecretDigests } from '../clients/client-secret-digest.js';
import { WorkLimiter } from './work-limiter.js';

export interface PasswordHasherOptions {
  /** Bounds on verifications; without them (the seed script, the admin command line) they are not bounded. */
  readonly limits?: PasswordWorkLimits;
  /** KEYS_ENCRYPTION_SECRET: keys the digests of generated client secrets; undefined uses a public label. */
  readonly serverSecret?: string;
}

export class PasswordHasher {
  private dummyHash: Promise<string> | undefined;
  private readonly limiter: WorkLimiter | undefined;
  private readonly secretLimiter: WorkLimiter | undefined;
  private readonly digests: ClientSecretDigests;
  /** A digest nobody holds the secret of: the HMAC work of an unknown client_id. */
  private readonly dummyDigest: string;
  /** What one argon2 verification takes in this process, in milliseconds (a moving average); undefined until measured. */
  private argon2Ms: number | undefined;

  constructor(
    private readonly params: Argon2Params,
    options: PasswordHasherOptions = {},
  ) {
    const { limits, serverSecret } = options;
    this.limiter = limits && new WorkLimiter(limits.maxConcurrent, limits.maxQueued);
    this.secretLimiter = limits && new WorkLimiter(limits.maxConcurrent, limits.maxQueued);
    this.digests = new ClientSecretDigests(serverSecret);
    this.dummyDigest = this.digests.digest(randomBytes(32).toString('base64url'));
  }

  /** The argon2id hash of the NFKC form of the password (NIST SP 800-63B 5.1.1.2), so that any keyboard's form matches. */
  hash(plain: string): Promise<string> {
    return argon2.hash(plain.normalize('NFKC'), {
      type: argon2.argon2id,
      memoryCost: this.params.memoryKiB,
      timeCost: this.params.timeCost,
      parallelism: this.params.parallelism,
    });
  }

  /** What to store for a client secret this server generated (256 random bits): a keyed digest, no argon2 work. */
  digestGeneratedSecret(secret: string): string {
    return this.digests.digest(secret);
  }

  /**
   * False for a wrong password and for a hash that cannot be parsed. Throws TemporarilyUnavailable,
   * before any work, when the verifications running and waiting in this process are at their limits.
   */
  verify(hash: string, plain: string): Promise<boolean> {
    return this.limiter ? this.limiter.run(() => check(hash, plain)) : check(hash, plain);
  }

  /**
   * A client secret against what is stored: a keyed digest (generated secrets) at once and outside the semaphore; an
   * argon2 hash (seeded, operator-chosen secrets) as verify() does, in the client secrets' own semaphore.
   */
  async verifyClientSecret(stored: string, plain: string): Promise<boolean> {
    if (ClientSecretDigests.owns(stored)) {
      const started = performance.now();
      const ok = this.digests.verify(stored, plain);
      if (!ok) await this.waitOutArgon2(started);
      return ok;
    }
    const timed = () => this.timedCheck(stored, plain);
    return this.secretLimiter ? this.secretLimiter.run(timed) : timed();
  }

  /**
   * Spends the same work as a real verification, for a login whose user does not exist, so that
   * the response time does not tell whether an account exists.
   */
  async verifyNothing(plain: string): Promise<false> {
    await this.verify(await this.dummy(), plain);
    return false;
  }

  /**
   * verifyNothing() for a client secret presented with a client_id that names no client (finding 11). A wrong secret
   * takes argon2's time whatever the client: a refused digest waits out the rest of it (waitOutArgon2), so an unknown
   * client does what a client with a generated secret does, HMAC work and the wait. It costs no CPU and no slot, and
   * answers in the time of both kinds of known client; an argon2 client answers busy under a flood where it does not.
   */
  async verifyNoClientSecret(plain: string): Promise<false> {
    const started = performance.now();
    this.digests.verify(this.dummyDigest, plain);
    await this.waitOutArgon2(started);
    return false;
  }

  /** The time one argon2 verification takes here (milliseconds), as last measured; 0 before any. */
  argon2Estimate(): number {
    return this.argon2Ms ?? 0;
  }

  /** Sleeps (no CPU, no slot) until an argon2 verification begun at `started` would have ended. */
  private async waitOutArgon2(started: number): Promise<void> {
    if (this.argon2Ms === undefined) await this.dummy();
    const left = this.argon2Estimate() - (performance.now() - started);
    if (left > 0) await sleep(left);
  }

  /** A hash of a random value, made once; making it measures what argon2 costs before any verification has. */
  private dummy(): Promise<string> {
    this.dummyHash ??= this.timed(() => this.hash(randomBytes(16).toString('base64url')));
    return this.dummyHash;
  }

  private timedCheck(hash: string, plain: string): Promise<boolean> {
    return this.timed(() => check(hash, plain));
  }

  private async timed<T>(work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await work();
    const ms = performance.now() - started;
    this.argon2Ms = this.argon2Ms === undefined ? ms : 0.8 * this.argon2Ms + 0.2 * ms;
    return result;
  }
}

/**
 * The password against a hash: its NFKC form first (what hash() stores), then, when that differs and failed, the
 * password as typed (a hash stored before passwords were normalised). ASCII input is its own NFKC form: one argon2.
 */
async function check(hash: string, plain: string): Promise<boolean> {
  const normalised = plain.normalize('NFKC');
  if (await verifyOne(hash, normalised)) return true;
  return normalised !== plain && verifyOne(hash, plain);
}

async function verifyOne(hash: string, plain: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, plain);
  } catch {
    return false;
  }
}
