// High-entropy random values (codes, tokens, session ids) and the digests we store in their place.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 random bits, base64url: well above the 128 bits RFC 6749 10.10 and RFC 9700 ask for. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** The moment a timed value was made: milliseconds since 1970 in 12 hex digits, which sort as the numbers do. */
const TIME_DIGITS = 12;
/** A timed value of 16 or 32 random bytes (a JWT's jti; a code or token): no value made before them had either length. */
const TIMED = /^[0-9a-f]{12}(?:[A-Za-z0-9_-]{22}|[A-Za-z0-9_-]{43})$/;

/**
 * A code's or token's value: the moment it was made (12 hex digits) before `bytes` random bytes, as many as
 * randomToken's. The moment leads the row's key too (see storedKey), so that each new row of a table of millions lands
 * at the right edge of its index, among the pages the last rows touched, not on a random one of tens of thousands:
 * issue 21 measured a digest key costing a code exchange 1.1 full-page images and 10 KB of WAL on a large database,
 * against 0.14 and 2.6 KB on an empty one. The moment is no secret (the token's row and an ID token's iat say it).
 */
export function timedToken(now: Date, bytes = 32): string {
  return `${now.getTime().toString(16).padStart(TIME_DIGITS, '0')}${randomToken(bytes)}`;
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
 * A UUID version 7 (RFC 9562 5.7): the moment in its first 48 bits, then random bits. For the ids of refresh token
 * families, which key indexes of millions of rows, for the reason timedToken gives.
 */
export function timeOrderedUuid(now: Date): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now.getTime(), 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70; // version 7
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // variant 10
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
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
