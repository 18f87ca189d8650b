// A password sign-in attempt: throttle and early risk evaluation first, then argon2, then the user's own
// history, and a verdict: signed in, a second factor first, or refused like a wrong password.
import { performance } from 'node:perf_hooks';
import { riskEvaluationSeconds, riskReasons, riskVerdicts } from '../metrics.js';
import { recordAttempt, userFacts } from '../storage/risk.js';
import type { UserRow } from '../storage/schema.js';
import type { ProviderContext } from './context.js';
import { deviceIdentity, type DeviceIdentity } from './risk/device-identity.js';
import { attemptKeys } from './risk/attempt-keys.js';
import { combinedReasons, earlyReasons, userReasons, verdictOf } from './risk/evaluate.js';
import type { DeviceSignals } from './risk/signals.js';
import type { Verdict } from './risk/verdict.js';
import { logSecurityEvent, recordSecurityEvent } from './security-events.js';
import { claimSignInAttempt, signInSucceeded, type AttemptClaim } from './sign-in-throttle.js';
import { MAX_CREDENTIAL_LENGTH, authenticateUser } from './users.js';

/** A correct password from a device the verdict lets in (`signed-in`) or asks a second factor of (`challenge`). */
export interface AcceptedPassword {
  user: UserRow;
  verdict: Verdict;
  device: DeviceIdentity;
  /** The attempt's row in the attempt log, marked as succeeded when the sign-in completes. */
  attemptId: string;
  /**
   * The attempt's throttle claim. A sign-in let in has settled it already; a challenged one settles it only when
   * the second factor passes, so that someone with the password alone cannot start challenges without end.
   */
  throttleClaim: Extract<AttemptClaim, { kind: 'claimed' }>;
}

export type PasswordSignIn =
  | ({ kind: 'signed-in' } & AcceptedPassword)
  | ({ kind: 'challenge' } & AcceptedPassword)
  /** A wrong login or password, and every BLOCK: the person cannot tell them apart. */
  | { kind: 'wrong-credentials' }
  | { kind: 'throttled'; retryAfterSeconds: number };

/**
 * Checks a login and password typed by a person on the device the signals describe. A locked account or
 * address, and an attempt the early signals already block, are answered before any argon2 work; a known and
 * an unknown login take the same path and cost the same work.
 * Throws TemporarilyUnavailable when this process has too many verifications waiting.
 */
export async function signInWithPassword(ctx: ProviderContext, login: string, password: string, signals: DeviceSignals): Promise<PasswordSignIn> {
  // Nothing to guess with: refused without counting and without hashing.
  if (!login.trim() || !password || login.length > MAX_CREDENTIAL_LENGTH || password.length > MAX_CREDENTIAL_LENGTH) {
    return wrongCredentials(ctx, null);
  }
  const policy = ctx.config.risk;
  const device = deviceIdentity(signals, ctx.deviceSecret);
  const now = ctx.clock();
  const started = performance.now();
  // The throttle claim and the attempt log are independent statements: sent together.
  const [claim, early] = await Promise.all([
    claimSignInAttempt(ctx, login, signals.ip),
    recordAttempt(ctx.db, attemptKeys(login, signals.ip, device, ctx.deviceSecret), {
      now,
      velocitySince: new Date(now.getTime() - policy.velocityWindowSeconds * 1000),
      stuffingSince: new Date(now.getTime() - policy.stuffingWindowSeconds * 1000),
    }),
  ]);
  if (claim.kind === 'throttled') {
    logSecurityEvent(ctx, 'sign_in_throttled', { retryAfterSeconds: claim.retryAfterSeconds });
    return claim;
  }
  const before = earlyReasons(device, early, policy);
  const verdictDevice = { id: null, label: device.label, known: false, trusted: false };
  const earlyVerdict = verdictOf(before, policy, verdictDevice);
  let evaluationMs = performance.now() - started;
  if (earlyVerdict.action === 'BLOCK') {
    await refuse(ctx, earlyVerdict, null, evaluationMs);
    return { kind: 'wrong-credentials' };
  }

  const user = await authenticateUser(ctx, login, password);
  if (!user) return wrongCredentials(ctx, device.label);

  const afterPassword = performance.now();
  const facts = await userFacts(ctx.db, user.id, device.cookieHash, device.networkKey);
  const verdict = verdictOf(combinedReasons(before, userReasons(facts)), policy, {
    id: facts.device?.id ?? null,
    label: device.label,
    known: facts.device !== null,
    trusted: facts.device?.trusted ?? false,
  });
  evaluationMs += performance.now() - afterPassword;
  if (verdict.action === 'BLOCK') {
    await refuse(ctx, verdict, user.id, evaluationMs);
    return { kind: 'wrong-credentials' };
  }
  observe(verdict, evaluationMs);
  if (verdict.action === 'CHALLENGE') {
    await recordSecurityEvent(ctx, { type: 'sign_in_challenged', userId: user.id, deviceId: verdict.device.id, details: verdictDetails(verdict) });
    return { kind: 'challenge', user, verdict, device, attemptId: early.attemptId, throttleClaim: claim };
  }
  await signInSucceeded(ctx, claim);
  return { kind: 'signed-in', user, verdict, device, attemptId: early.attemptId, throttleClaim: claim };
}

/** A wrong login or password (never logged: a password is sometimes typed into the login field). */
function wrongCredentials(ctx: ProviderContext, device: string | null): PasswordSignIn {
  logSecurityEvent(ctx, 'sign_in_failed', device === null ? {} : { device });
  return { kind: 'wrong-credentials' };
}

async function refuse(ctx: ProviderContext, verdict: Verdict, userId: string | null, evaluationMs: number): Promise<void> {
  observe(verdict, evaluationMs);
  await recordSecurityEvent(ctx, { type: 'sign_in_blocked', userId, deviceId: verdict.device.id, details: verdictDetails(verdict) });
}

function observe(verdict: Verdict, evaluationMs: number): void {
  riskEvaluationSeconds.observe(evaluationMs / 1000);
  riskVerdicts.inc({ action: verdict.action });
  for (const reason of verdict.reasons) riskReasons.inc({ reason, action: verdict.action });
}

/** What a security event keeps of a verdict: score, reasons, the device's label. */
export function verdictDetails(verdict: Verdict): Record<string, unknown> {
  return { action: verdict.action, score: verdict.score, reasons: verdict.reasons, device: verdict.device.label };
}
