// The vocabulary of risk evaluation: what a sign-in attempt is scored with, and the verdict it gets.
// Shared by the evaluator (src/domain/risk/), the sign-in pages, the second factor and the security events.

import type { RiskReason } from '../../risk-reasons.js';

export { RISK_REASONS, type RiskReason } from '../../risk-reasons.js';

export const RISK_ACTIONS = ['ALLOW', 'CHALLENGE', 'BLOCK'] as const;
export type RiskAction = (typeof RISK_ACTIONS)[number];

/** The device as the verdict shows it: never the cookie, the address or the raw user agent. */
export interface VerdictDevice {
  /** The user's device record, when this browser's cookie is one of theirs. */
  id: string | null;
  /** "Firefox on Linux". */
  label: string;
  known: boolean;
  trusted: boolean;
}

export interface Verdict {
  action: RiskAction;
  /** 0 (no risk seen) to 100. */
  score: number;
  reasons: RiskReason[];
  device: VerdictDevice;
}
