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
  /** Milliseconds the evaluation added (both stages, argon2 excluded), as observed in sso_risk_evaluation_seconds. */
  evaluationMs: number;
}

/**
 * What the evaluation made of a refused attempt, for measurement (npm run eval:risk): the BLOCK verdict, or for a
 * wrong password the verdict of the early stage (the user's own reasons need the right password). Never shown to
 * the person, who sees the same message for all of them.
 */
export interface RefusedEvaluation {
  verdict: Verdict;
  evaluationMs: number;
}

export type PasswordSignIn =
  | ({ kind: 'signed-in' } & AcceptedPassword)
  | ({ kind: 'challenge' } & AcceptedPassword)
  /** A wrong login or password, and every BLOCK: the person cannot tell them apart. */
  | { kind: 'wrong-credentials'; evaluation?: RefusedEvaluation }
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
  // The attempt log and the throttle claim are independent statements: sent together, the risk statement first.
  // The evaluation's time is its own statement's (and the rules'), not the throttle's it runs beside.
  const started = performance.now();
  const recorded = recordAttempt(ctx.db, attemptKeys(login, signals.ip, device, ctx.deviceSecret), {
    now,
    velocitySince: new Date(now.getTime() - policy.velocityWindowSeconds * 1000),
    stuffingSince: new Date(now.getTime() - policy.stuffingWindowSeconds * 1000),
    caps: {
      deviceAttempts: policy.deviceVelocity,
      networkAttempts: policy.networkVelocity,
      deviceLogins: policy.stuffingDeviceLogins,
      networkLogins: policy.stuffingNetworkLogins,
      fingerprintLogins: policy.stuffingFingerprintLogins,
      loginFailures: policy.userFailures,
    },
  }).then((facts) => ({ facts, ms: performance.now() - started }));
  const [{ facts: early, ms: statementMs }, claim] = await Promise.all([recorded, claimSignInAttempt(ctx, login, signals.ip)]);
  if (claim.kind === 'throttled') {
    logSecurityEvent(ctx, 'sign_in_throttled', { retryAfterSeconds: claim.retryAfterSeconds });
    return claim;
  }
  const rulesStarted = performance.now();
  const before = earlyReasons(device, early, policy);
  const verdictDevice = { id: null, label: device.label, known: false, trusted: false };
  const earlyVerdict = verdictOf(before, policy, verdictDevice);
  let evaluationMs = statementMs + (performance.now() - rulesStarted);
  if (earlyVerdict.action === 'BLOCK') {
    await refuse(ctx, earlyVerdict, null, evaluationMs);
    return { kind: 'wrong-credentials', evaluation: { verdict: earlyVerdict, evaluationMs } };
  }

  const user = await authenticateUser(ctx, login, password);
  if (!user) return wrongCredentials(ctx, device.label, { verdict: earlyVerdict, evaluationMs });

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
    return { kind: 'wrong-credentials', evaluation: { verdict, evaluationMs } };
  }
  observe(verdict, evaluationMs);
  if (verdict.action === 'CHALLENGE') {
    await recordSecurityEvent(ctx, { type: 'sign_in_challenged', userId: user.id, deviceId: verdict.device.id, details: verdictDetails(verdict) });
    return { kind: 'challenge', user, verdict, device, attemptId: early.attemptId, throttleClaim: claim, evaluationMs };
  }
  await signInSucceeded(ctx, claim);
  return { kind: 'signed-in', user, verdict, device, attemptId: early.attemptId, throttleClaim: claim, evaluationMs };
}

/** A wrong login or password (never logged: a password is sometimes typed into the login field). */
function wrongCredentials(ctx: ProviderContext, device: string | null, evaluation?: RefusedEvaluation): PasswordSignIn {
  logSecurityEvent(ctx, 'sign_in_failed', device === null ? {} : { device });
  return evaluation ? { kind: 'wrong-credentials', evaluation } : { kind: 'wrong-credentials' };
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
