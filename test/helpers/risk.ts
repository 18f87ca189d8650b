// Risk settings written out in full for the tests, so that a tuning of the defaults in src/config.ts (npm run
// eval:risk) changes no test's outcome; and the facts the evaluator reads, for unit tests.
import type { RiskPolicy } from '../../src/config.js';
import type { RiskReason } from '../../src/domain/risk/verdict.js';
import type { EarlyFacts, UserFacts } from '../../src/storage/risk.js';

export const WEIGHTS: Readonly<Record<RiskReason, number>> = Object.freeze({
  NEW_DEVICE: 20,
  KNOWN_DEVICE: 0,
  NEW_NETWORK: 15,
  AUTOMATION: 60,
  UA_HINTS_MISMATCH: 40,
  COOKIE_FINGERPRINT_MISMATCH: 60,
  VELOCITY_DEVICE: 40,
  VELOCITY_NETWORK: 30,
  CREDENTIAL_STUFFING: 80,
  FAILED_ATTEMPTS_USER: 30,
  RULE_ALLOW: 0,
  RULE_BLOCK: 100,
});

export const POLICY: RiskPolicy = Object.freeze({
  weights: WEIGHTS,
  challengeScore: 30,
  blockScore: 80,
  velocityWindowSeconds: 600,
  deviceVelocity: 10,
  networkVelocity: 100,
  stuffingWindowSeconds: 3600,
  stuffingDeviceLogins: 6,
  stuffingNetworkLogins: 20,
  stuffingFingerprintLogins: 20,
  userFailures: 3,
});

/** The weights as RISK_WEIGHTS, with `overrides` on top. */
export function weightsEnv(overrides: Partial<Record<RiskReason, number>> = {}): string {
  return Object.entries({ ...WEIGHTS, ...overrides })
    .map(([reason, points]) => `${reason}=${points}`)
    .join(',');
}

/** POLICY as environment variables, with `overrides` (environment names) on top. */
export function riskEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    RISK_WEIGHTS: weightsEnv(),
    RISK_CHALLENGE_SCORE: String(POLICY.challengeScore),
    RISK_BLOCK_SCORE: String(POLICY.blockScore),
    RISK_VELOCITY_WINDOW_SECONDS: String(POLICY.velocityWindowSeconds),
    RISK_DEVICE_VELOCITY: String(POLICY.deviceVelocity),
    RISK_NETWORK_VELOCITY: String(POLICY.networkVelocity),
    RISK_STUFFING_WINDOW_SECONDS: String(POLICY.stuffingWindowSeconds),
    RISK_STUFFING_DEVICE_LOGINS: String(POLICY.stuffingDeviceLogins),
    RISK_STUFFING_NETWORK_LOGINS: String(POLICY.stuffingNetworkLogins),
    RISK_STUFFING_FINGERPRINT_LOGINS: String(POLICY.stuffingFingerprintLogins),
    RISK_USER_FAILURES: String(POLICY.userFailures),
    SECOND_FACTOR_TTL_SECONDS: '300',
    SECOND_FACTOR_MAX_ATTEMPTS: '5',
    ...overrides,
  };
}

/** What the attempt log says of a quiet device: nothing. */
export function earlyFacts(overrides: Partial<EarlyFacts> = {}): EarlyFacts {
  return {
    attemptId: '1',
    establishedCookie: false,
    deviceAttempts: 0,
    networkAttempts: 0,
    deviceLogins: 0,
    networkLogins: 0,
    fingerprintLogins: 0,
    loginFailures: 0,
    cookieFingerprints: [],
    ruleEffects: [],
    account: null,
    ...overrides,
  };
}

export function userFactsOf(overrides: Partial<UserFacts> = {}): UserFacts {
  return { deviceCount: 0, device: null, networkKnown: false, ruleEffects: [], ...overrides };
}
