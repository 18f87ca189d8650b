// High-entropy random values (codes, tokens, session ids) and the digests we store in their place.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 random bits, base64url: well above the 128 bits RFC 6749 10.10 and RFC 9700 ask for. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
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
