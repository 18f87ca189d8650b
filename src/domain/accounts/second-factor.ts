// The second factor a CHALLENGE verdict asks for: the code of the user's authenticator app when they have enrolled
// one, else a six-digit one-time code sent through the outbox; ahead of either, one of the user's passkeys. The
// sign-in is finished (device, session, events) only when a right answer comes back in time.
import type { Locale } from '../../i18n/catalog.js';
import { createHmac, randomInt } from 'node:crypto';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { insertOutboxMessage } from '../../storage/outbox.js';
import { countPasskeys } from '../../storage/passkeys.js';
import type { Db } from '../../storage/database.js';
import {
  checkChallengeCode,
  consumeChallenge,
  consumeLiveChallenge,
  liveChallenge,
  countChallengeAttempt,
  insertChallenge,
  liveChallengeMethod,
  lockLiveTotpChallenge,
} from '../../storage/second-factor-challenges.js';
import { findUserById } from '../../storage/users.js';
import { CHALLENGE_CONTEXT, type ChallengeContext } from './challenge-context.js';
import { canAnswerWithAuthenticator, checkAuthenticatorCode } from './authenticator.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import type { AcceptedPassword } from './password-sign-in.js';
import { randomToken, sha256 } from '../secrets.js';
import { recordSecurityEvent } from '../risk/security-events.js';
import { completeSignIn, type CompletedSignIn } from './sign-in-completion.js';
import { passkeyAmr, passkeyRequestOptions, verifyPasskeyAssertion } from './passkey-sign-in.js';
import { claimPasskeyAttempt, passkeyAttemptSucceeded } from './passkey-throttle.js';
import { signInSucceeded } from './sign-in-throttle.js';

/**
 * RFC 8176 2: `otp` is a "One-time password" (its specifications include RFC 4226 and RFC 6238, the authenticator
 * app's, and the code we send is one too), and `mfa` "Multiple-factor authentication": with the password, `pwd`.
 * Both kinds of code give the same values.
 */
export const SECOND_FACTOR_AMR = ['pwd', 'otp', 'mfa'];

export type SecondFactorMethod = 'otp' | 'totp';

/** The code's digest, keyed by the challenge id: a digest of six digits alone could be reversed by trying them all. */
function codeHash(challengeId: string, code: string): string {
  return createHmac('sha256', challengeId).update(code).digest('base64url');
}

/**
 * Starts a challenge for a correct password: with the user's authenticator app when they have one (nothing is
 * sent), else with a code sent through the outbox, the challenge row and the message written in one transaction.
 * Returns the challenge id, a secret the browser keeps in a cookie.
 */
export async function beginSecondFactor(
  ctx: ProviderContext,
  accepted: AcceptedPassword,
  returnTo: string,
  clientId: string | null,
  /** The sign-in page's language: the code page and the code's message speak it. */
  locale?: Locale,
  /** The amr of the first step when it was not a password (an upstream sign-in: `fed`). */
  firstFactor?: string[],
  /** The first step's authentication context class (OIDC Core 2 `acr`), when known: kept for the session. */
  acr?: string | null,
): Promise<string> {
  const challengeId = randomToken();
  const now = ctx.clock();
  const context: ChallengeContext = {
    device: accepted.device,
    verdict: accepted.verdict,
    attemptId: accepted.attemptId,
    throttleClaim: accepted.throttleClaim,
    returnTo,
    clientId,
    ...(locale ? { locale } : {}),
    ...(firstFactor ? { firstFactor } : {}),
    ...(acr ? { acr } : {}),
  };
  if (await canAnswerWithAuthenticator(ctx, accepted.user.id)) {
    await insertChallenge(ctx.db, CHALLENGE_CONTEXT, {
      idHash: sha256(challengeId),
      userId: accepted.user.id,
      method: 'totp',
      codeHash: null,
      context,
      createdAt: now,
      expiresAt: addSeconds(now, ctx.config.secondFactorTtlSeconds),
    });
    return challengeId;
  }
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  // Issue 38: a code is mailed only to a verified address: the one the user has now (outbox.address), not one set
  // meanwhile by someone else. Without one the message names the user alone, and the mail notifier refuses it
  // (notifier.ts recipientOf); a deployment's own notifier (a webhook to an SMS relay) is told email_verified.
  const to = accepted.user.email_verified ? accepted.user.email : null;
  await ctx.db.transaction().execute(async (trx) => {
    await insertChallenge(trx, CHALLENGE_CONTEXT, {
      idHash: sha256(challengeId),
      userId: accepted.user.id,
      codeHash: codeHash(challengeId, code),
      context,
      createdAt: now,
      expiresAt: addSeconds(now, ctx.config.secondFactorTtlSeconds),
    });
    await insertOutboxMessage(trx, {
      userId: accepted.user.id,
      ...(to !== null ? { address: to } : {}),
      kind: 'one-time-code',
      payload: { code, ...(locale ? { locale } : {}) },
      createdAt: now,
    });
  });
  return challengeId;
}

/** How the pending challenge is answered (which page to show); undefined when it is over. */
export async function pendingSecondFactor(ctx: ProviderContext, challengeId: string): Promise<SecondFactorMethod | undefined> {
  return liveChallengeMethod(ctx.db, sha256(challengeId), ctx.clock(), ctx.config.secondFactorMaxAttempts);
}

/** What the second-factor page offers: the code of `method`, and ahead of it the user's passkey when they have one. */
export async function secondFactorOffer(
  ctx: ProviderContext,
  challengeId: string,
): Promise<{ method: SecondFactorMethod; passkey: boolean; locale: Locale | undefined } | undefined> {
  const live = await liveChallenge(ctx.db, sha256(challengeId), ctx.clock(), ctx.config.secondFactorMaxAttempts);
  if (!live) return undefined;
  return { method: live.method, passkey: (await countPasskeys(ctx.db, live.userId)) > 0, locale: live.locale };
}

/** §5.5 options naming the challenged user's passkeys, bound to the challenge; undefined when the challenge is over. */
export async function secondFactorPasskeyOptions(
  ctx: ProviderContext,
  challengeId: string,
): Promise<PublicKeyCredentialRequestOptionsJSON | undefined> {
  const live = await liveChallenge(ctx.db, sha256(challengeId), ctx.clock(), ctx.config.secondFactorMaxAttempts);
  if (!live) return undefined;
  return passkeyRequestOptions(ctx, challengeId, 'second-factor', live.userId);
}

export type PasskeySecondFactorAnswer =
  | { kind: 'signed-in'; completed: CompletedSignIn; returnTo: string }
  | { kind: 'malformed' }
  | { kind: 'refused' }
  | { kind: 'throttled'; retryAfterSeconds: number }
  | { kind: 'dead' };

/**
 * A CHALLENGE answered with one of the user's passkeys instead of a code (WebAuthn L3 §7.2, user verification not
 * required: the password was the first factor). The challenge is used up only by a verified assertion; the sign-in
 * finishes with amr `pwd` plus the passkey's values (RFC 8176 2).
 */
export async function answerSecondFactorWithPasskey(
  ctx: ProviderContext,
  challengeId: string,
  credential: unknown,
  ip: string,
  replacesSession?: string,
): Promise<PasskeySecondFactorAnswer> {
  const idHash = sha256(challengeId);
  const live = await liveChallenge(ctx.db, idHash, ctx.clock(), ctx.config.secondFactorMaxAttempts);
  if (!live) return { kind: 'dead' };
  const claim = await claimPasskeyAttempt(ctx, ip);
  if (claim.kind === 'throttled') return claim;
  const check = await verifyPasskeyAssertion(ctx, {
    binding: challengeId,
    purpose: 'second-factor',
    credential,
    requireUserVerification: false,
    userId: live.userId,
  });
  if (check.kind !== 'verified') {
    await recordSecurityEvent(ctx, {
      type: 'second_factor_failed',
      userId: live.userId,
      details: { method: 'passkey', reason: check.kind },
    });
    return check.kind === 'malformed' ? check : { kind: 'refused' };
  }
  await passkeyAttemptSucceeded(ctx, claim);
  const consumed = await consumeLiveChallenge(ctx.db, CHALLENGE_CONTEXT, idHash, ctx.clock(), ctx.config.secondFactorMaxAttempts);
  if (!consumed) return { kind: 'dead' };
  if (!consumed.context.ok) {
    unreadable(ctx, consumed.userId, consumed.context.reason);
    return { kind: 'dead' };
  }
  const finished = await finishSignIn(
    ctx,
    consumed.userId,
    consumed.context.value,
    replacesSession,
    passkeyAmr(check, consumed.context.value.firstFactor ?? ['pwd']),
  );
  return finished.kind === 'signed-in' ? finished : { kind: 'dead' };
}

export type SecondFactorAnswer =
  | { kind: 'signed-in'; completed: CompletedSignIn; returnTo: string }
  | { kind: 'wrong-code'; attemptsLeft: number; method: SecondFactorMethod }
  /** The authenticator refuses codes for `retryAfterSeconds` after too many wrong ones (the challenge counts one more). */
  | { kind: 'locked'; attemptsLeft: number; retryAfterSeconds: number }
  | { kind: 'dead' };

/** Checks the code typed; a right one finishes the sign-in with amr pwd+otp+mfa. */
/** `replacesSession`: the session cookie the browser presented, ended when this sign-in completes (sign-in-completion.ts). */
export async function answerSecondFactor(
  ctx: ProviderContext,
  challengeId: string,
  code: string,
  replacesSession?: string,
  db: Db = ctx.db,
): Promise<SecondFactorAnswer> {
  const method = await liveChallengeMethod(db, sha256(challengeId), ctx.clock(), ctx.config.secondFactorMaxAttempts);
  if (method === undefined) return { kind: 'dead' };
  if (method === 'totp') return answerWithAuthenticator(ctx, challengeId, code, db, replacesSession);
  const typed = code.replace(/\s+/g, '');
  const check = /^\d{6}$/.test(typed)
    ? await checkChallengeCode(
        db,
        CHALLENGE_CONTEXT,
        sha256(challengeId),
        codeHash(challengeId, typed),
        ctx.clock(),
        ctx.config.secondFactorMaxAttempts,
      )
    : await checkChallengeCode(db, CHALLENGE_CONTEXT, sha256(challengeId), 'not-a-code', ctx.clock(), ctx.config.secondFactorMaxAttempts);
  if (check.kind === 'dead') return check;
  if (check.kind === 'unreadable') return unreadable(ctx, check.userId, check.reason);
  if (check.kind === 'wrong-code') {
    await recordSecurityEvent(ctx, {
      type: 'second_factor_failed',
      userId: check.userId,
      details: { method: 'otp', attemptsLeft: check.attemptsLeft },
    });
    return { kind: 'wrong-code', attemptsLeft: check.attemptsLeft, method: 'otp' };
  }
  return finishSignIn(ctx, check.userId, check.context, replacesSession);
}

/**
 * The authenticator app's code: in one transaction the challenge is locked, the code checked against the user's
 * app (which records its step, so the same code cannot serve twice), and the challenge consumed or one more
 * attempt counted. A removed authenticator ends the challenge.
 */
async function answerWithAuthenticator(
  ctx: ProviderContext,
  challengeId: string,
  code: string,
  db: Db,
  replacesSession: string | undefined,
): Promise<SecondFactorAnswer> {
  const idHash = sha256(challengeId);
  const max = ctx.config.secondFactorMaxAttempts;
  const outcome = await db.transaction().execute(async (trx) => {
    const challenge = await lockLiveTotpChallenge(trx, CHALLENGE_CONTEXT, idHash, ctx.clock(), max);
    if (!challenge) return { kind: 'dead' as const };
    if (challenge.context === undefined) {
      await consumeChallenge(trx, idHash, ctx.clock());
      return { kind: 'unreadable' as const, userId: challenge.userId, reason: challenge.unreadable };
    }
    const context = challenge.context;
    const check = await checkAuthenticatorCode(ctx, trx, challenge.userId, code, 'enrolled');
    if (check.kind === 'none') {
      await consumeChallenge(trx, idHash, ctx.clock());
      return { kind: 'dead' as const };
    }
    if (check.kind === 'accepted') {
      await consumeChallenge(trx, idHash, ctx.clock());
      return { kind: 'verified' as const, userId: challenge.userId, context };
    }
    const attempts = await countChallengeAttempt(trx, idHash);
    const retryAfterSeconds = check.kind === 'locked' ? check.retryAfterSeconds : 0;
    return { kind: check.kind, userId: challenge.userId, attemptsLeft: Math.max(0, max - attempts), retryAfterSeconds };
  });
  if (outcome.kind === 'dead') return outcome;
  if (outcome.kind === 'unreadable') return unreadable(ctx, outcome.userId, outcome.reason);
  if (outcome.kind === 'verified') return finishSignIn(ctx, outcome.userId, outcome.context, replacesSession);
  await recordSecurityEvent(ctx, {
    type: 'second_factor_failed',
    userId: outcome.userId,
    details: { method: 'totp', attemptsLeft: outcome.attemptsLeft, ...(outcome.kind === 'locked' ? { locked: true } : {}) },
  });
  if (outcome.kind === 'locked') {
    return { kind: 'locked', attemptsLeft: outcome.attemptsLeft, retryAfterSeconds: outcome.retryAfterSeconds };
  }
  return { kind: 'wrong-code', attemptsLeft: outcome.attemptsLeft, method: 'totp' };
}

/** A challenge written by a version of this code that stored another shape: the person signs in again, as after an expiry. */
function unreadable(ctx: ProviderContext, userId: string, reason: string): SecondFactorAnswer {
  ctx.log.warn({ userId, reason }, 'stored second-factor challenge unreadable; treated as expired');
  return { kind: 'dead' };
}

async function finishSignIn(
  ctx: ProviderContext,
  userId: string,
  context: ChallengeContext,
  replacesSession: string | undefined,
  amr: string[] = context.firstFactor ? [...context.firstFactor, 'otp', 'mfa'] : SECOND_FACTOR_AMR,
): Promise<SecondFactorAnswer> {
  const user = await findUserById(ctx.db, userId);
  if (!user || user.disabled_at !== null) return { kind: 'dead' };
  const completed = await completeSignIn(ctx, {
    user,
    device: context.device,
    verdict: context.verdict,
    attemptId: context.attemptId,
    amr,
    acr: context.acr ?? null,
    clientId: context.clientId,
    replacesSession,
    locale: context.locale,
  });
  await signInSucceeded(ctx, context.throttleClaim);
  return { kind: 'signed-in', completed, returnTo: context.returnTo };
}
