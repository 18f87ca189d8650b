// The rules that turn what is known about an attempt into reasons, and reasons into a verdict. Pure: the
// facts come from src/storage/hot-path/record-attempt.ts, the policy from configuration.
import type { RiskPolicy } from '../../config.js';
import type { EarlyFacts, UserFacts } from '../../storage/risk.js';
import { coarseFingerprint, type DeviceIdentity } from './device-identity.js';
import type { RiskReason, Verdict, VerdictDevice } from './verdict.js';

/** Reasons known before the password is checked: enough to refuse a flood without any argon2 work. */
export function earlyReasons(device: DeviceIdentity, facts: EarlyFacts, policy: RiskPolicy): RiskReason[] {
  const reasons: RiskReason[] = [];
  if (facts.ruleEffects.includes('block')) reasons.push('RULE_BLOCK');
  else if (facts.ruleEffects.includes('allow')) reasons.push('RULE_ALLOW');
  if (device.automation) reasons.push('AUTOMATION');
  if (device.hintsMismatch) reasons.push('UA_HINTS_MISMATCH');
  // A cookie seen before with another browser or system family: copied to another machine. A browser update
  // changes only the fine part, so it does not count.
  const coarse = coarseFingerprint(device.fingerprint);
  const copied = facts.cookieFingerprints.length > 0 && !facts.cookieFingerprints.some((f) => coarseFingerprint(f) === coarse);
  if (copied) reasons.push('COOKIE_FINGERPRINT_MISMATCH');
  // The counts are of earlier attempts; this one makes one more.
  if (facts.deviceAttempts + 1 > policy.deviceVelocity) reasons.push('VELOCITY_DEVICE');
  if (facts.networkAttempts + 1 > policy.networkVelocity) reasons.push('VELOCITY_NETWORK');
  // A network or a fingerprint is a crowd: many failing logins there say a tool is in it, not that this browser is
  // the tool. A browser holding an established cookie (it signed in before, on this kind of machine) answers only
  // for its own attempts; every browser of one model, make and language shares a fingerprint, and the failures
  // of others must not block it.
  const inCrowd = !facts.establishedCookie || copied;
  if (
    facts.deviceLogins >= policy.stuffingDeviceLogins ||
    (inCrowd && (facts.networkLogins >= policy.stuffingNetworkLogins || facts.fingerprintLogins >= policy.stuffingFingerprintLogins))
  ) {
    reasons.push('CREDENTIAL_STUFFING');
  }
  if (facts.loginFailures >= policy.userFailures) reasons.push('FAILED_ATTEMPTS_USER');
  return reasons;
}

/**
 * Reasons that need the user: a username rule that names them (the login typed may have been their email), is
 * this one of their devices, one of their networks. A user's first device is enrolled without NEW_DEVICE or
 * NEW_NETWORK: there is nothing yet to compare with, and every first sign-in would otherwise be challenged. Only
 * the very first: after the user revoked every device (a theft, say) the next one is news, not an enrolment.
 */
export function userReasons(facts: UserFacts): RiskReason[] {
  const rule: RiskReason[] = facts.ruleEffects.includes('block')
    ? ['RULE_BLOCK']
    : facts.ruleEffects.includes('allow')
      ? ['RULE_ALLOW']
      : [];
  if (facts.device)
    return [...rule, ...(facts.networkKnown ? ['KNOWN_DEVICE' as const] : ['KNOWN_DEVICE' as const, 'NEW_NETWORK' as const])];
  if (facts.deviceCount === 0) return rule;
  return [...rule, ...(facts.networkKnown ? ['NEW_DEVICE' as const] : ['NEW_DEVICE' as const, 'NEW_NETWORK' as const])];
}

/** The early reasons and the user's, each once; a block rule found either way wins over an allow rule. */
export function combinedReasons(early: RiskReason[], user: RiskReason[]): RiskReason[] {
  const reasons = [...new Set([...early, ...user])];
  return reasons.includes('RULE_BLOCK') ? reasons.filter((r) => r !== 'RULE_ALLOW') : reasons;
}

/** An admin rule decides outright; otherwise the score against the two thresholds. */
export function verdictOf(reasons: RiskReason[], policy: RiskPolicy, device: VerdictDevice): Verdict {
  const score = Math.min(
    100,
    reasons.reduce((sum, r) => sum + policy.weights[r], 0),
  );
  let action: Verdict['action'];
  if (reasons.includes('RULE_BLOCK')) action = 'BLOCK';
  else if (reasons.includes('RULE_ALLOW')) action = 'ALLOW';
  else if (score >= policy.blockScore) action = 'BLOCK';
  else if (score >= policy.challengeScore) action = 'CHALLENGE';
  else action = 'ALLOW';
  return { action, score, reasons, device };
}
