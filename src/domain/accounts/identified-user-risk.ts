// The risk evaluation of a sign-in whose user is already known by a proof other than a password (a passkey, an
// upstream provider): one statement records the attempt and reads the counters, the rules and the user's own facts,
// then both stages of the rules at once. A password sign-in evaluates in two stages around argon2 instead
// (password-sign-in.ts), since its user is only known once the password is right.
import { performance } from 'node:perf_hooks';
import { recordAttempt } from '../../storage/risk.js';
import type { UserRow } from '../../storage/schema.js';
import type { ProviderContext } from '../context.js';
import { attemptKeys } from '../risk/attempt-keys.js';
import { deviceIdentity, type DeviceIdentity } from '../risk/device-identity.js';
import { combinedReasons, earlyReasons, userReasons, verdictOf } from '../risk/evaluate.js';
import type { DeviceSignals } from '../risk/signals.js';
import type { Verdict } from '../risk/verdict.js';
import { counterWindows, observe } from './password-sign-in.js';

export interface IdentifiedUserEvaluation {
  device: DeviceIdentity;
  verdict: Verdict;
  /** The attempt's row in the attempt log, marked as succeeded when the sign-in completes. */
  attemptId: string;
  /** Milliseconds the evaluation took (the statement and the rules). */
  evaluationMs: number;
}

/** Evaluates a sign-in of `user` on the device the signals describe, and counts the verdict in the risk metrics. */
export async function evaluateIdentifiedUser(
  ctx: ProviderContext,
  user: UserRow,
  signals: DeviceSignals,
): Promise<IdentifiedUserEvaluation> {
  const policy = ctx.config.risk;
  const device = deviceIdentity(signals, ctx.deviceSecret);
  const started = performance.now();
  const facts = await recordAttempt(
    ctx.db,
    attemptKeys(user.username, signals.ip, device, ctx.deviceSecret),
    counterWindows(policy, ctx.clock()),
  );
  const own = facts.account?.user.id === user.id ? facts.account.facts : undefined;
  const verdict = verdictOf(combinedReasons(earlyReasons(device, facts, policy), own ? userReasons(own) : []), policy, {
    id: own?.device?.id ?? null,
    label: device.label,
    known: own?.device != null,
    trusted: own?.device?.trusted ?? false,
  });
  const evaluationMs = performance.now() - started;
  observe(ctx, verdict, evaluationMs);
  return { device, verdict, attemptId: facts.attemptId, evaluationMs };
}
