// Device intelligence: the points of each risk reason and the scores that ask for a second factor or refuse.
import { RISK_REASONS, type RiskReason } from '../risk-reasons.js';
import type { Reader } from './reader.js';

/** How sign-in attempts are scored and what the score leads to (src/domain/risk/). */
export interface RiskPolicy {
  /** Points each reason adds to the score (capped at 100). */
  readonly weights: Readonly<Record<RiskReason, number>>;
  /** A score at or above this asks for a second factor. */
  readonly challengeScore: number;
  /** A score at or above this refuses the attempt (before any argon2 work when the early signals reach it). */
  readonly blockScore: number;
  readonly velocityWindowSeconds: number;
  /** Attempts from one device within the velocity window before VELOCITY_DEVICE. */
  readonly deviceVelocity: number;
  /** Attempts from one network within the velocity window before VELOCITY_NETWORK. */
  readonly networkVelocity: number;
  readonly stuffingWindowSeconds: number;
  /** Distinct usernames failing from one device within the stuffing window before CREDENTIAL_STUFFING. */
  readonly stuffingDeviceLogins: number;
  /** Distinct usernames failing from one network within the stuffing window before CREDENTIAL_STUFFING. */
  readonly stuffingNetworkLogins: number;
  /**
   * Distinct usernames failing from one fingerprint on any network before CREDENTIAL_STUFFING for browsers without
   * an established cookie. A fingerprint is a browser model: raise this with the traffic of the most common one.
   */
  readonly stuffingFingerprintLogins: number;
  /** Failed attempts on one username within the stuffing window before FAILED_ATTEMPTS_USER. */
  readonly userFailures: number;
}

/** RISK_*, and DEVICE_SECRET, which keys the device fingerprints and network keys. */
export function riskSettings(reader: Reader): { risk: RiskPolicy; deviceSecret: string | undefined } {
  const { text, integer, problems } = reader;
  const deviceSecret = text('DEVICE_SECRET') || undefined;
  if (deviceSecret !== undefined && deviceSecret.length < 32)
    problems.push('DEVICE_SECRET must be at least 32 characters (e.g. openssl rand -base64 32)');
  const risk: RiskPolicy = {
    weights: Object.freeze(riskWeights(text('RISK_WEIGHTS'), problems)),
    challengeScore: integer('RISK_CHALLENGE_SCORE'),
    blockScore: integer('RISK_BLOCK_SCORE'),
    velocityWindowSeconds: integer('RISK_VELOCITY_WINDOW_SECONDS'),
    deviceVelocity: integer('RISK_DEVICE_VELOCITY'),
    networkVelocity: integer('RISK_NETWORK_VELOCITY'),
    stuffingWindowSeconds: integer('RISK_STUFFING_WINDOW_SECONDS'),
    stuffingDeviceLogins: integer('RISK_STUFFING_DEVICE_LOGINS'),
    stuffingNetworkLogins: integer('RISK_STUFFING_NETWORK_LOGINS'),
    stuffingFingerprintLogins: integer('RISK_STUFFING_FINGERPRINT_LOGINS'),
    userFailures: integer('RISK_USER_FAILURES'),
  };
  if (risk.blockScore < risk.challengeScore) problems.push('RISK_BLOCK_SCORE must be at least RISK_CHALLENGE_SCORE');

  return { risk: Object.freeze(risk), deviceSecret };
}

/** Points per reason; RISK_WEIGHTS="AUTOMATION=70,NEW_NETWORK=10" overrides some of them. */
export const DEFAULT_RISK_WEIGHTS: Readonly<Record<RiskReason, number>> = Object.freeze({
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

function riskWeights(raw: string, problems: string[]): Record<RiskReason, number> {
  const weights = { ...DEFAULT_RISK_WEIGHTS };
  for (const item of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [reason, value] = item.split('=').map((p) => p.trim());
    const points = Number(value);
    if (!(RISK_REASONS as readonly string[]).includes(reason ?? '') || !/^\d+$/.test(value ?? '') || points > 100) {
      problems.push(`RISK_WEIGHTS must be REASON=points pairs (0 to 100) with reasons among ${RISK_REASONS.join(', ')} (got "${item}")`);
      continue;
    }
    weights[reason as RiskReason] = points;
  }
  return weights;
}
