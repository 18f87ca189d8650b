// The second factor a CHALLENGE verdict asks for: a six-digit one-time code sent through the outbox. The sign-in
// is finished (device, session, events) only when the right code comes back in time.
import { createHmac, randomInt } from 'node:crypto';
import { insertOutboxMessage } from '../storage/outbox.js';
import type { Db } from '../storage/database.js';
import { challengeIsLive, checkChallengeCode, insertChallenge } from '../storage/second-factor-challenges.js';
import { findUserById } from '../storage/users.js';
import { addSeconds } from './clock.js';
import type { ProviderContext } from './context.js';
import type { AcceptedPassword } from './password-sign-in.js';
import type { DeviceIdentity } from './risk/device-identity.js';
import type { Verdict } from './risk/verdict.js';
import { randomToken, sha256 } from './secrets.js';
import { recordSecurityEvent } from './security-events.js';
import { completeSignIn, type CompletedSignIn } from './sign-in-completion.js';
import { signInSucceeded, type AttemptClaim } from './sign-in-throttle.js';

/** RFC 8176: a one-time password on top of the password is multiple-factor authentication. */
export const SECOND_FACTOR_AMR = ['pwd', 'otp', 'mfa'];

interface ChallengeContext {
  device: DeviceIdentity;
  verdict: Verdict;
  attemptId: string;
  /** Settled (the account's counter cleared) only when the right code comes back. */
  throttleClaim: Extract<AttemptClaim, { kind: 'claimed' }>;
  /** Where the browser goes once signed in: an issuer-local path. */
  returnTo: string;
  clientId: string | null;
}

/** The code's digest, keyed by the challenge id: a digest of six digits alone could be reversed by trying them all. */
function codeHash(challengeId: string, code: string): string {
  return createHmac('sha256', challengeId).update(code).digest('base64url');
}

/**
 * Starts a challenge for a correct password: the challenge row and the message carrying the code are written in
 * one transaction. Returns the challenge id, a secret the browser keeps in a cookie.
 */
export async function beginSecondFactor(
  ctx: ProviderContext,
  accepted: AcceptedPassword,
  returnTo: string,
  clientId: string | null,
): Promise<string> {
  const challengeId = randomToken();
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const now = ctx.clock();
  const context: ChallengeContext = {
    device: accepted.device,
    verdict: accepted.verdict,
    attemptId: accepted.attemptId,
    throttleClaim: accepted.throttleClaim,
    returnTo,
    clientId,
  };
  await ctx.db.transaction().execute(async (trx) => {
    await insertChallenge(trx, {
      idHash: sha256(challengeId),
      userId: accepted.user.id,
      codeHash: codeHash(challengeId, code),
      context: context as unknown as Record<string, unknown>,
      createdAt: now,
      expiresAt: addSeconds(now, ctx.config.secondFactorTtlSeconds),
    });
    await insertOutboxMessage(trx, { userId: accepted.user.id, kind: 'one-time-code', payload: { code }, createdAt: now });
  });
  return challengeId;
}

export async function secondFactorIsPending(ctx: ProviderContext, challengeId: string): Promise<boolean> {
  return challengeIsLive(ctx.db, sha256(challengeId), ctx.clock(), ctx.config.secondFactorMaxAttempts);
}

export type SecondFactorAnswer =
  | { kind: 'signed-in'; completed: CompletedSignIn; returnTo: string }
  | { kind: 'wrong-code'; attemptsLeft: number }
  | { kind: 'dead' };

/** Checks the code typed; the right one finishes the sign-in with amr pwd+otp+mfa. */
export async function answerSecondFactor(ctx: ProviderContext, challengeId: string, code: string, db: Db = ctx.db): Promise<SecondFactorAnswer> {
  const typed = code.replace(/\s+/g, '');
  const check = /^\d{6}$/.test(typed)
    ? await checkChallengeCode(db, sha256(challengeId), codeHash(challengeId, typed), ctx.clock(), ctx.config.secondFactorMaxAttempts)
    : await checkChallengeCode(db, sha256(challengeId), 'not-a-code', ctx.clock(), ctx.config.secondFactorMaxAttempts);
  if (check.kind === 'dead') return check;
  if (check.kind === 'wrong-code') {
    await recordSecurityEvent(ctx, { type: 'second_factor_failed', userId: check.userId, details: { attemptsLeft: check.attemptsLeft } });
    return { kind: 'wrong-code', attemptsLeft: check.attemptsLeft };
  }
  const context = check.context as unknown as ChallengeContext;
  const user = await findUserById(ctx.db, check.userId);
  if (!user || user.disabled_at !== null) return { kind: 'dead' };
  const completed = await completeSignIn(ctx, {
    user,
    device: context.device,
    verdict: context.verdict,
    attemptId: context.attemptId,
    amr: SECOND_FACTOR_AMR,
    clientId: context.clientId,
  });
  await signInSucceeded(ctx, context.throttleClaim);
  return { kind: 'signed-in', completed, returnTo: context.returnTo };
}
