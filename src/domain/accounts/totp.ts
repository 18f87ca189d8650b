// Time-based one-time passwords (RFC 6238) over HOTP (RFC 4226), as authenticator apps compute them by default:
// HMAC-SHA-1, six digits, 30-second steps from the Unix epoch.
import { createHmac } from 'node:crypto';
import { base32Encode } from './base32.js';
import { safeEqual } from '../secrets.js';

export type TotpAlgorithm = 'sha1' | 'sha256' | 'sha512';

/** RFC 6238 4.1: X, "the time step in seconds (default value X = 30 seconds)", and T0 = 0. */
export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** RFC 4226 4 R6: "We RECOMMEND a shared secret length of 160 bits." */
export const TOTP_SECRET_BYTES = 20;
/**
 * RFC 6238 5.2: "We RECOMMEND that at most one time step is allowed as the network delay", and the verifier may
 * look "a specific number of time steps" back or forward for a drifting clock: one each way.
 */
export const TOTP_DRIFT_STEPS = 1;

/** RFC 4226 5.3: HMAC of the 8-byte big-endian counter, dynamic truncation, modulo 10^digits. */
export function hotp(secret: Uint8Array, counter: number, digits = TOTP_DIGITS, algorithm: TotpAlgorithm = 'sha1'): string {
  if (!Number.isSafeInteger(counter) || counter < 0) throw new RangeError('counter must be a non-negative safe integer');
  if (!Number.isInteger(digits) || digits < 6 || digits > 10) throw new RangeError('digits must be 6 to 10');
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, secret).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** RFC 6238 4.2: T = floor((Current Unix time - T0) / X). */
export function timeStep(at: Date, stepSeconds = TOTP_STEP_SECONDS): number {
  return Math.floor(at.getTime() / 1000 / stepSeconds);
}

/** The code for the step `at` falls in. */
export function totp(
  secret: Uint8Array,
  at: Date,
  options: { digits?: number; algorithm?: TotpAlgorithm; stepSeconds?: number } = {},
): string {
  return hotp(secret, timeStep(at, options.stepSeconds), options.digits, options.algorithm);
}

/**
 * The step whose code `code` is, among the current step and TOTP_DRIFT_STEPS either side, skipping every step at
 * or before `lastUsedStep`: RFC 6238 5.2, "the verifier MUST NOT accept the second attempt of the same OTP after
 * the successful validation has been issued for the first OTP". Every candidate is computed and compared in
 * constant time, so the answer's timing does not say which step matched. Null when none does.
 */
export function matchingStep(secret: Uint8Array, code: string, at: Date, lastUsedStep: number | null): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const current = timeStep(at);
  let found: number | null = null;
  for (let step = current - TOTP_DRIFT_STEPS; step <= current + TOTP_DRIFT_STEPS; step += 1) {
    const equal = safeEqual(hotp(secret, step), code);
    if (equal && found === null && (lastUsedStep === null || step > lastUsedStep)) found = step;
  }
  return found;
}

/** Six digits as typed: spaces (apps show "123 456") are dropped. */
export function normaliseCode(typed: string): string {
  return typed.replace(/\s+/g, '');
}

/**
 * The otpauth:// URI authenticator apps scan (the Key Uri Format of Google Authenticator, which the other apps
 * follow): `otpauth://totp/Issuer:account?secret=BASE32&issuer=Issuer&algorithm=SHA1&digits=6&period=30`.
 */
export function otpauthUri(input: { issuer: string; account: string; secret: Uint8Array }): string {
  const label = `${encodeURIComponent(input.issuer)}:${encodeURIComponent(input.account)}`;
  const query = new URLSearchParams({
    secret: base32Encode(input.secret),
    issuer: input.issuer,
    algorithm: 'SHA1',
    digits: String(TOTP_DIGITS),
    period: String(TOTP_STEP_SECONDS),
  });
  // URLSearchParams writes a space as "+", which the Key Uri Format does not read as a space.
  return `otpauth://totp/${label}?${query.toString().replace(/\+/g, '%20')}`;
}
