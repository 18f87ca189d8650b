// The reasons a sign-in attempt is scored with: named by the risk settings (RISK_WEIGHTS, src/config.ts) and by the
// risk evaluation (src/domain/risk/), so kept below both.
export const RISK_REASONS = [
  'NEW_DEVICE',
  'KNOWN_DEVICE',
  'NEW_NETWORK',
  'AUTOMATION',
  'UA_HINTS_MISMATCH',
  'COOKIE_FINGERPRINT_MISMATCH',
  'VELOCITY_DEVICE',
  'VELOCITY_NETWORK',
  'CREDENTIAL_STUFFING',
  'FAILED_ATTEMPTS_USER',
  'RULE_ALLOW',
  'RULE_BLOCK',
] as const;
export type RiskReason = (typeof RISK_REASONS)[number];
