// A user's authenticator app (TOTP): enrolment confirmed by a first code, removal by a current code, and the
// check of a code typed at a challenged sign-in. Every check locks the user's row, so that two requests cannot
// both accept the same code, and counts wrong codes across all three uses; each run of wrong codes locks the app
// for longer than the one before.
import { randomBytes } from 'node:crypto';
import type { Db } from '../../storage/database.js';
import type { UserRow } from '../../storage/schema.js';
import {
  deleteAuthenticator,
  findAuthenticator,
  lockAuthenticator,
  recordCodeAccepted,
  recordCodeRefused,
  savePendingAuthenticator,
} from '../../storage/totp-authenticators.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { base32Encode } from './base32.js';
import { KeyEncryptionError } from '../keys/key-encryption.js';
import { recordSecurityEvent } from '../risk/security-events.js';
import { lockSecondsAfter } from './sign-in-throttle.js';
import { matchingStep, normaliseCode, otpauthUri, TOTP_SECRET_BYTES } from './totp.js';
import { openSecret, sealSecret } from '../keys/sealed-secrets.js';

export type AuthenticatorState = 'none' | 'pending' | 'enrolled';

export async function authenticatorState(ctx: ProviderContext, userId: string): Promise<AuthenticatorState> {
  const row = await findAuthenticator(ctx.db, userId);
  if (!row) return 'none';
  return row.confirmed_at === null ? 'pending' : 'enrolled';
}

/** Can a challenged sign-in of this user be answered with the app? Enrolled, and its secret opens. */
export async function canAnswerWithAuthenticator(ctx: ProviderContext, userId: string): Promise<boolean> {
  const row = await findAuthenticator(ctx.db, userId);
  if (!row || row.confirmed_at === null) return false;
  try {
    await openSecret(ctx, 'totp', userId, row.secret);
    return true;
  } catch (err) {
    if (!(err instanceof KeyEncryptionError)) throw err;
    ctx.log.warn({ userId, reason: err.message }, 'authenticator secret does not open; one-time code sent instead');
    return false;
  }
}

/**
 * A new random secret, stored (encrypted when KEYS_ENCRYPTION_SECRET is set) as pending; false when the user already
 * has a confirmed app.
 */
export async function beginEnrolment(ctx: ProviderContext, userId: string): Promise<boolean> {
  const secret = randomBytes(TOTP_SECRET_BYTES);
  return savePendingAuthenticator(ctx.db, { userId, secret: { ...(await sealSecret(ctx, 'totp', userId, secret)) }, now: ctx.clock() });
}

export interface PendingEnrolment {
  /** The otpauth:// URI the QR code carries. */
  uri: string;
  /** The same secret in base32, in groups of four, for typing into the app by hand. */
  manualKey: string;
}

/** What the enrolment page shows, while an enrolment is pending. */
export async function pendingEnrolment(ctx: ProviderContext, user: UserRow): Promise<PendingEnrolment | undefined> {
  const row = await findAuthenticator(ctx.db, user.id);
  if (!row || row.confirmed_at !== null) return undefined;
  const secret = await openSecret(ctx, 'totp', user.id, row.secret);
  const issuer = ctx.config.totpIssuer;
  return {
    uri: otpauthUri({ issuer, account: user.email ?? user.username, secret }),
    manualKey: base32Encode(secret).replace(/(.{4})(?=.)/g, '$1 '),
  };
}

/** The longest an authenticator stays locked: a day, reached at the tenth lock in a row at the defaults (300 s doubled). */
export const TOTP_LOCK_MAX_SECONDS = 86_400;

/**
 * RFC 4226 7.3 (throttling at the server; a six-digit code is guessable): every `secondFactorMaxAttempts`-th wrong code in
 * a row locks the app: the first lock for SECOND_FACTOR_TTL_SECONDS, each next one twice as long (as the sign-in
 * throttle's locks grow), up to TOTP_LOCK_MAX_SECONDS. A right code forgets the run.
 */
export function totpLockSeconds(ctx: ProviderContext, failedInARow: number): number {
  const max = ctx.config.secondFactorMaxAttempts;
  if (failedInARow === 0 || failedInARow % max !== 0) return 0;
  const policy = { freeAttempts: 1, lockBaseSeconds: ctx.config.secondFactorTtlSeconds, lockMaxSeconds: TOTP_LOCK_MAX_SECONDS };
  return lockSecondsAfter(failedInARow / max, policy);
}

export type CodeCheck =
  | { kind: 'accepted'; step: number }
  | { kind: 'wrong-code' }
  /** Too many wrong codes in a row: none is tried until the lock ends, `retryAfterSeconds` from now. */
  | { kind: 'locked'; retryAfterSeconds: number }
  /** No authenticator in the state asked for (removed, or not yet / already confirmed). */
  | { kind: 'none' };

/**
 * Checks `code` against the user's authenticator in `trx` (a transaction: the row stays locked until it ends).
 * A right code of an unused step is accepted and its step recorded; anything else is counted as a failure.
 */
export async function checkAuthenticatorCode(
  ctx: ProviderContext,
  trx: Db,
  userId: string,
  code: string,
  want: 'pending' | 'enrolled',
): Promise<CodeCheck> {
  const row = await lockAuthenticator(trx, userId);
  if (!row || (row.confirmed_at === null) !== (want === 'pending')) return { kind: 'none' };
  const now = ctx.clock();
  if (row.locked_until !== null && row.locked_until > now) {
    return { kind: 'locked', retryAfterSeconds: Math.max(1, Math.ceil((row.locked_until.getTime() - now.getTime()) / 1000)) };
  }
  const secret = await openSecret(ctx, 'totp', userId, row.secret);
  const lastUsed = row.last_used_step === null ? null : Number(row.last_used_step);
  const step = matchingStep(secret, normaliseCode(code), now, lastUsed);
  if (step === null) {
    // The row is locked for this transaction, so the count read with it is the count this failure adds to.
    const lockSeconds = totpLockSeconds(ctx, row.failed_attempts + 1);
    await recordCodeRefused(trx, userId, lockSeconds > 0 ? addSeconds(now, lockSeconds) : null);
    return { kind: 'wrong-code' };
  }
  await recordCodeAccepted(trx, userId, step, now);
  return { kind: 'accepted', step };
}

/** The first right code confirms the enrolment: from now on a challenged sign-in asks for the app's code. */
export async function confirmEnrolment(ctx: ProviderContext, userId: string, code: string): Promise<CodeCheck> {
  return ctx.db.transaction().execute(async (trx) => {
    const check = await checkAuthenticatorCode(ctx, trx, userId, code, 'pending');
    if (check.kind === 'accepted') await recordSecurityEvent(ctx, { type: 'totp_enrolled', userId }, trx);
    return check;
  });
}

/** A current code removes the app (someone holding only the session cannot). */
export async function removeAuthenticator(ctx: ProviderContext, userId: string, code: string): Promise<CodeCheck> {
  return ctx.db.transaction().execute(async (trx) => {
    const check = await checkAuthenticatorCode(ctx, trx, userId, code, 'enrolled');
    if (check.kind === 'accepted') {
      await deleteAuthenticator(trx, userId);
      await recordSecurityEvent(ctx, { type: 'totp_removed', userId }, trx);
    }
    return check;
  });
}
