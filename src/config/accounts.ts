// Self-service sign-up and what an ID token carries by default.
import type { Reader } from './reader.js';

/** Self-service sign-up (src/domain/accounts/signup.ts). */
export interface SignupSettings {
  /** SIGNUP: off (admins create accounts), open (a link on the sign-in page), invite (links an admin sends). */
  readonly mode: 'off' | 'open' | 'invite';
  /** SIGNUP_USERNAME: `email` (the address is the username) or `optional` (a field; blank takes the address). */
  readonly username: 'email' | 'optional';
  /** How long a verification link and code, and an invitation, work. */
  readonly verificationTtlSeconds: number;
}

/** SIGNUP, SIGNUP_USERNAME, SIGNUP_VERIFICATION_TTL_SECONDS. */
export function signupSettings({ text, integer, problems }: Reader): SignupSettings {
  const signupModes = ['off', 'open', 'invite'] as const;
  const signupMode = signupModes.find((m) => m === text('SIGNUP'));
  if (!signupMode) problems.push(`SIGNUP must be off, open or invite (got "${text('SIGNUP')}")`);
  const signupUsernames = ['email', 'optional'] as const;
  const signupUsername = signupUsernames.find((m) => m === text('SIGNUP_USERNAME'));
  if (!signupUsername) problems.push(`SIGNUP_USERNAME must be email or optional (got "${text('SIGNUP_USERNAME')}")`);

  return Object.freeze({
    mode: signupMode ?? 'off',
    username: signupUsername ?? 'email',
    verificationTtlSeconds: integer('SIGNUP_VERIFICATION_TTL_SECONDS'),
  });
}

/** ID_TOKEN_CLAIMS: scopes or minimal. */
export function idTokenClaimsSetting({ text, problems }: Reader): 'scopes' | 'minimal' {
  const idTokenClaimsModes = ['scopes', 'minimal'] as const;
  const idTokenClaims = idTokenClaimsModes.find((m) => m === text('ID_TOKEN_CLAIMS'));
  if (!idTokenClaims) problems.push(`ID_TOKEN_CLAIMS must be scopes or minimal (got "${text('ID_TOKEN_CLAIMS')}")`);

  return idTokenClaims ?? 'scopes';
}
