// A password sign-in attempt: throttle and early risk evaluation first (one statement also reads the user and
// their history), then argon2, then the user's own reasons and a verdict: signed in, a second factor first, or
// refused (as a wrong password when only a right password revealed the block).
import { performance } from 'node:perf_hooks';
import type { RiskPolicy } from '../../config.js';
import { TemporarilyUnavailable } from '../../errors/oauth-error.js';
import { excuseAttempt, recordAttempt, type CounterWindows, type UserFacts } from '../../storage/risk.js';
import { DirectoryUnavailable } from '../directories/directory-unavailable.js';
import type { UserRow } from '../../storage/schema.js';
import type { ProviderContext } from '../context.js';
import { deviceIdentity, type DeviceIdentity } from '../risk/device-identity.js';
import { attemptKeys } from '../risk/attempt-keys.js';
import { combinedReasons, earlyReasons, userReasons, verdictOf } from '../risk/evaluate.js';
import type { DeviceSignals } from '../risk/signals.js';
import type { Verdict } from '../risk/verdict.js';
import { logSecurityEvent, recordSecurityEvent } from '../risk/security-events.js';
import { emitWebhookEvent } from '../webhooks/emit.js';
import { claimKnownDeviceAttempt, claimSignInAttempt, signInNotChecked, signInSucceeded, type AttemptClaim } from './sign-in-throttle.js';
import { MAX_CREDENTIAL_LENGTH, checkPassword } from './users.js';
import { hasSecondFactor } from './second-factor-policy.js';

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
  /** Milliseconds the evaluation took (both stages, argon2 excluded), as observed in sso_risk_evaluation_seconds. */
  evaluationMs: number;
  /** Milliseconds the evaluation added to the sign-in: see EvaluationTime. */
  addedMs: number;
}

/**
 * What the evaluation made of a refused attempt, for measurement (npm run eval:risk): the BLOCK verdict, or for a
 * wrong password the verdict of the early stage (the user's own reasons need the right password). Never shown to
 * the person, who sees the same message for all of them.
 */
export interface RefusedEvaluation {
  verdict: Verdict;
  /**
   * The verdict blocked before the password was checked (a rule, the network, the device): saying so tells nothing
   * about the account or the password. A block after a right password is answered as a wrong password instead,
   * since any other answer would confirm the password.
   */
  blockedBeforePassword?: boolean;
  evaluationMs: number;
  addedMs: number;
}

export type PasswordSignIn =
  | ({ kind: 'signed-in' } & AcceptedPassword)
  | ({ kind: 'challenge' } & AcceptedPassword)
  /** A wrong login or password, and every BLOCK: the person cannot tell them apart. */
  | { kind: 'wrong-credentials'; evaluation?: RefusedEvaluation }
  | { kind: 'throttled'; retryAfterSeconds: number }
  /** A right password for a client that requires a second factor, from a user who has none to answer with. */
  | { kind: 'no-second-factor' };

/**
 * Checks a login and password typed by a person on the device the signals describe. A locked account or
 * address, and an attempt the early signals already block, are answered before any argon2 work; a known and
 * an unknown login take the same path and cost the same work.
 * Throws TemporarilyUnavailable when this process has too many verifications waiting.
 */
/**
 * `clientId`: the relying party the sign-in is for (null on the account page), recorded in its security events.
 * `requireMfa`: that client requires a second factor (second-factor-policy.ts): a sign-in let in goes on to one.
 * `stepUp`: the request waiting for this sign-in asks for a second factor (a SAML RequestedAuthnContext of
 * MultiFactor): a sign-in let in goes on to one when the user has one, and signs in with the password alone when not
 * (the request then gets its own answer, SAML Core 3.3.2.2.1 NoAuthnContext).
 */
export async function signInWithPassword(
  ctx: ProviderContext,
  login: string,
  password: string,
  signals: DeviceSignals,
  clientId: string | null = null,
  requireMfa = false,
  stepUp = false,
): Promise<PasswordSignIn> {
  // Nothing to guess with: refused without counting and without hashing.
  if (!login.trim() || !password || login.length > MAX_CREDENTIAL_LENGTH || password.length > MAX_CREDENTIAL_LENGTH) {
    return wrongCredentials(ctx, null);
  }
  const policy = ctx.config.risk;
  const device = deviceIdentity(signals, ctx.deviceSecret);
  const now = ctx.clock();
  // The attempt log (with the user the login names) and the throttle claim are independent statements: sent
  // together, the risk statement first. The evaluation's time is its own statement's and the rules'; what it adds
  // to the sign-in is the time the statement kept the sign-in waiting after the claim was in, and the rules.
  const started = performance.now();
  const recorded = recordAttempt(ctx.db, attemptKeys(login, signals.ip, device, ctx.deviceSecret), counterWindows(policy, now)).then(
    (facts) => ({ facts, at: performance.now() }),
  );
  const claimed = claimSignInAttempt(ctx, login, signals.ip).then((claim) => ({ claim, at: performance.now() }));
  const [{ facts: early, at: recordedAt }, { claim: firstClaim, at: claimedAt }] = await Promise.all([recorded, claimed]);
  // A locked account does not lock out its owner on a device of theirs (issue 16, finding 6): only then one more statement.
  const claim =
    firstClaim.kind === 'throttled' && firstClaim.account && device.cookieHash && early.account?.facts.device
      ? await claimKnownDeviceAttempt(ctx, login, device.cookieHash, { ...firstClaim, account: firstClaim.account })
      : firstClaim;
  if (claim.kind === 'throttled') {
    logSecurityEvent(ctx, 'sign_in_throttled', { retryAfterSeconds: claim.retryAfterSeconds });
    return claim;
  }
  const rulesStarted = performance.now();
  const before = earlyReasons(device, early, policy);
  const verdictDevice = { id: null, label: device.label, known: false, trusted: false };
  const earlyVerdict = verdictOf(before, policy, verdictDevice);
  const time = new EvaluationTime(recordedAt - started, Math.max(0, recordedAt - claimedAt));
  time.add(performance.now() - rulesStarted);
  if (earlyVerdict.action === 'BLOCK') {
    await refuse(ctx, earlyVerdict, null, time.ms, clientId);
    return { kind: 'wrong-credentials', evaluation: { verdict: earlyVerdict, blockedBeforePassword: true, ...time.figures() } };
  }

  const user = await checkPassword(ctx, early.account?.user, password, login).catch(async (err: unknown) => {
    // Refused as busy before any work, or a directory could not answer: no password was checked, so nothing counts
    // against the account or address, nor in the attempt log.
    if (err instanceof TemporarilyUnavailable) await signInNotChecked(ctx, claim);
    if (err instanceof DirectoryUnavailable) {
      await excuseAttempt(ctx.db, early.attemptId);
      ctx.log.warn({ event: 'directory_unavailable', directory: err.directoryId, error: err.errorClass }, 'a directory did not answer');
    }
    throw err;
  });
  if (!user) return wrongCredentials(ctx, device.label, { verdict: earlyVerdict, ...time.figures() }, early.account?.user?.id ?? null);

  // The early statement read the user's own facts with the user: the second stage is arithmetic.
  const afterPassword = performance.now();
  // A user the directory check provisioned just now has no history yet.
  const facts = early.account?.facts ?? NO_HISTORY;
  const verdict = verdictOf(combinedReasons(before, userReasons(facts)), policy, {
    id: facts.device?.id ?? null,
    label: device.label,
    known: facts.device !== null,
    trusted: facts.device?.trusted ?? false,
  });
  time.add(performance.now() - afterPassword);
  if (verdict.action === 'BLOCK') {
    await refuse(ctx, verdict, user.id, time.ms, clientId);
    return { kind: 'wrong-credentials', evaluation: { verdict, ...time.figures() } };
  }
  observe(ctx, verdict, time.ms);
  if (verdict.action === 'CHALLENGE') {
    await recordSecurityEvent(ctx, {
      type: 'sign_in_challenged',
      userId: user.id,
      deviceId: verdict.device.id,
      clientId,
      details: verdictDetails(verdict),
    });
    return { kind: 'challenge', user, verdict, device, attemptId: early.attemptId, throttleClaim: claim, ...time.figures() };
  }
  if (stepUp && !requireMfa && (await hasSecondFactor(ctx, user))) {
    return { kind: 'challenge', user, verdict, device, attemptId: early.attemptId, throttleClaim: claim, ...time.figures() };
  }
  if (requireMfa) {
    // Not a risk event: the client's rule. As for a challenge, the throttle claim settles when the second factor passes.
    if (await hasSecondFactor(ctx, user))
      return { kind: 'challenge', user, verdict, device, attemptId: early.attemptId, throttleClaim: claim, ...time.figures() };
    // The password was right, so this says nothing a code page would not: the counters settle as for a sign-in.
    await signInSucceeded(ctx, claim);
    return { kind: 'no-second-factor' };
  }
  await signInSucceeded(ctx, claim);
  return { kind: 'signed-in', user, verdict, device, attemptId: early.attemptId, throttleClaim: claim, ...time.figures() };
}

const NO_HISTORY: UserFacts = { deviceCount: 0, device: null, networkKnown: false, ruleEffects: [] };

/** The windows and caps of the attempt log's counters at `now` (also read by a passkey sign-in's evaluation). */
export function counterWindows(policy: RiskPolicy, now: Date): CounterWindows {
  return {
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
  };
}

/**
 * The evaluation's time two ways. `ms`: its own, the risk statement and the rules. `addedMs`: what it added to the
 * sign-in, the statement's wait beyond the throttle claim it runs beside, and the rules. The statement also reads
 * the user, which the sign-in needs with or without an evaluation, so `addedMs` overstates the cost if anything.
 */
class EvaluationTime {
  constructor(
    public ms: number,
    private addedMs: number,
  ) {}

  /** Work on the sign-in's own path (the rules): counted in both. */
  add(ms: number): void {
    this.ms += ms;
    this.addedMs += ms;
  }

  figures(): { evaluationMs: number; addedMs: number } {
    return { evaluationMs: this.ms, addedMs: this.addedMs };
  }
}

/**
 * A wrong login or password (never logged: a password is sometimes typed into the login field). One that was checked
 * (`evaluation`) is a sign_in.failed webhook event too, naming the user when the login named one.
 */
async function wrongCredentials(
  ctx: ProviderContext,
  device: string | null,
  evaluation?: RefusedEvaluation,
  userId: string | null = null,
): Promise<PasswordSignIn> {
  logSecurityEvent(ctx, 'sign_in_failed', device === null ? {} : { device });
  if (!evaluation) return { kind: 'wrong-credentials' };
  await emitWebhookEvent(ctx, ctx.db, 'sign_in.failed', { method: 'password', user_id: userId, device });
  return { kind: 'wrong-credentials', evaluation };
}

async function refuse(
  ctx: ProviderContext,
  verdict: Verdict,
  userId: string | null,
  evaluationMs: number,
  clientId: string | null,
): Promise<void> {
  observe(ctx, verdict, evaluationMs);
  await recordSecurityEvent(ctx, {
    type: 'sign_in_blocked',
    userId,
    deviceId: verdict.device.id,
    clientId,
    details: verdictDetails(verdict),
  });
}

/** The verdict in the risk metrics (sso_risk_*), for every evaluation that ends in one. */
export function observe(ctx: ProviderContext, verdict: Verdict, evaluationMs: number): void {
  ctx.metrics.riskEvaluationSeconds.observe(evaluationMs / 1000);
  ctx.metrics.riskVerdicts.inc({ action: verdict.action });
  for (const reason of verdict.reasons) ctx.metrics.riskReasons.inc({ reason, action: verdict.action });
}

/** What a security event keeps of a verdict: score, reasons, the device's label. */
export function verdictDetails(verdict: Verdict): Record<string, unknown> {
  return { action: verdict.action, score: verdict.score, reasons: verdict.reasons, device: verdict.device.label };
}
