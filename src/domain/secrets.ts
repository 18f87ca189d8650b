// High-entropy random values (codes, tokens, session ids) and the digests we store in their place.
import { hash, randomBytes, randomFillSync, timingSafeEqual } from 'node:crypto';

/** 256 random bits, base64url: well above the 128 bits RFC 6749 10.10 and RFC 9700 ask for. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** The moment a timed value was made: milliseconds since 1970 in 12 hex digits, which sort as the numbers do. */
const TIME_DIGITS = 12;
/** A timed value of 16 or 32 random bytes (a JWT's jti; a code or token): no value made before them had either length. */
const TIMED = /^[0-9a-f]{12}(?:[A-Za-z0-9_-]{22}|[A-Za-z0-9_-]{43})$/;

/**
 * The 12 hex digits of a moment, as two numbers of 24 bits: a millisecond count is no small integer to V8, and its
 * toString(16) takes the slow path of a double (about a microsecond a token on the hot paths).
 */
function momentDigits(now: Date): string {
  const ms = now.getTime();
  const high = Math.floor(ms / 0x1000000);
  return high.toString(16).padStart(6, '0') + (ms - high * 0x1000000).toString(16).padStart(6, '0');
}

/** Random bytes fetched at once: 128 values of 32 bytes. */
const POOL_BYTES = 4096;

/**
 * Random values for the hot paths (codes, tokens, session and interaction ids), their bytes drawn from the CSPRNG a
 * pool at a time, as Node's own crypto.randomUUID draws 128 UUIDs' worth at once. Each randomBytes call builds a
 * crypto job object and takes OpenSSL's DRBG through its locks, re-keying and fork check for 32 bytes: about 12 us of
 * CPU a call in a perf profile of authorize, which makes one (a code exchange up to four). The bytes are the
 * CSPRNG's all the same; each is handed out once and zeroed as it is, so the pool never holds a value that was
 * issued. One per ProviderContext, never module state.
 */
export class RandomSource {
  private readonly pool = Buffer.alloc(POOL_BYTES);
  private offset = POOL_BYTES;

  /** `bytes` random bytes (at most the pool's size), base64url, as randomToken makes them. */
  token(bytes = 32): string {
    return this.draw(bytes, (pool, start, end) => pool.toString('base64url', start, end));
  }

  /**
   * A code's or token's value: the moment it was made (12 hex digits) before `bytes` random bytes in base64url. The
   * moment leads the row's key too (see storedKey), so that each new row of a table of millions lands at the right
   * edge of its index, among the pages the last rows touched, not on a random one of tens of thousands: issue 21
   * measured a digest key costing a code exchange 1.1 full-page images and 10 KB of WAL on a large database, against
   * 0.14 and 2.6 KB on an empty one. The moment is no secret (the token's row and an ID token's iat say it).
   */
  timedToken(now: Date, bytes = 32): string {
    return `${momentDigits(now)}${this.token(bytes)}`;
  }

  /**
   * A UUID version 7 (RFC 9562 5.7): the moment in its first 48 bits, then random bits. For the ids of refresh token
   * families, which key indexes of millions of rows, for the reason timedToken gives.
   */
  timeOrderedUuid(now: Date): string {
    return this.draw(16, (pool, start) => {
      const bytes = Buffer.from(pool.subarray(start, start + 16));
      bytes.writeUIntBE(now.getTime(), 0, 6);
      bytes[6] = (bytes[6]! & 0x0f) | 0x70; // version 7
      bytes[8] = (bytes[8]! & 0x3f) | 0x80; // variant 10
      const hex = bytes.toString('hex');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    });
  }

  /** The next `bytes` of the pool (refilled first when too few are left), read by `read`, then zeroed. */
  private draw(bytes: number, read: (pool: Buffer, start: number, end: number) => string): string {
    if (bytes > POOL_BYTES) throw new RangeError(`at most ${POOL_BYTES} random bytes at a time`);
    if (this.offset + bytes > POOL_BYTES) {
      randomFillSync(this.pool);
      this.offset = 0;
    }
    const start = this.offset;
    this.offset += bytes;
    const value = read(this.pool, start, this.offset);
    this.pool.fill(0, start, this.offset);
    return value;
  }
}

/**
 * The key a code's or token's row is stored and found under: the SHA-256 of `digested` (the value itself unless
 * given), after the value's moment when the value is a timed one. A value made before timed values keeps its plain
 * digest, and one that only looks timed finds no row: its key is still the digest of all of it.
 */
export function storedKey(value: string, digested = value): string {
  return TIMED.test(value) ? value.slice(0, TIME_DIGITS) + sha256(digested) : sha256(digested);
}

/**
 * SHA-256, base64url. A fast hash is right for values that already carry 128+ random bits. crypto.hash, not a Hash
 * object: every grant digests several values, and creating the object costs more than the digest of a short string.
 */
export function sha256(value: string): string {
  return hash('sha256', value, 'base64url');
}

/** Constant-time string equality (lengths may leak; contents do not). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
