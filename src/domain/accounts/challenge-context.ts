// What a sign-in keeps while it waits for its second factor, and the shapes it is stored in (read back through them
// by src/storage/second-factor-challenges.ts): during a rolling restart an instance may read what another wrote.
import { LOCALES, type Locale } from '../../i18n/catalog.js';
import { RISK_REASONS } from '../../risk-reasons.js';
import {
  arrayOf,
  boolean,
  literal,
  nullable,
  number,
  object,
  oneOf,
  optional,
  string,
  type Shape,
  type VersionedShapes,
} from '../../storage/json-shape.js';
import type { DeviceIdentity } from '../risk/device-identity.js';
import { RISK_ACTIONS, type Verdict, type VerdictDevice } from '../risk/verdict.js';
import type { AttemptClaim } from './sign-in-throttle.js';

type Claimed = Extract<AttemptClaim, { kind: 'claimed' }>;

/** What a sign-in keeps while it waits for its second factor, to be finished with once the right code comes back. */
export interface ChallengeContext {
  device: DeviceIdentity;
  verdict: Verdict;
  attemptId: string;
  /** Settled (the account's counter cleared) only when the right code comes back. */
  throttleClaim: Claimed;
  /** Where the browser goes once signed in: an issuer-local path. */
  returnTo: string;
  clientId: string | null;
  /** The language of the sign-in page, which the code page and the code's message speak too. */
  locale?: Locale | undefined;
  /** The amr of the first step (`fed` for an upstream sign-in, issue 19); absent: a password (`pwd`). */
  firstFactor?: string[] | undefined;
  /** The first step's acr (an upstream's, passed on); absent: none. */
  acr?: string | undefined;
}

/** Version 1; rows written before versions were kept have the same fields and no `v`. */
const CONTEXT_V1: Shape<ChallengeContext> = object<ChallengeContext>({
  device: object<DeviceIdentity>({
    cookieHash: nullable(string),
    fingerprint: string,
    networkKey: string,
    deviceKey: string,
    label: string,
    automation: boolean,
    hintsMismatch: boolean,
  }),
  verdict: object<Verdict>({
    action: oneOf(RISK_ACTIONS),
    score: number,
    reasons: arrayOf(oneOf(RISK_REASONS)),
    device: object<VerdictDevice>({ id: nullable(string), label: string, known: boolean, trusted: boolean }),
  }),
  attemptId: string,
  throttleClaim: object<Claimed>({
    kind: literal('claimed'),
    accountKey: string,
    accountCount: number,
    address: nullable(object<{ key: string; count: number }>({ key: string, count: number })),
  }),
  returnTo: string,
  clientId: nullable(string),
  // Added after version 1 was first written: a row without it was started before the pages had languages.
  locale: optional(oneOf(LOCALES)),
  // Added after version 1 was first written: absent in rows of password sign-ins.
  firstFactor: optional(arrayOf(string)),
  acr: optional(string),
});

export const CHALLENGE_CONTEXT: VersionedShapes<ChallengeContext> = { 1: CONTEXT_V1 };
