// A password sign-in attempt from the login form: throttle first, then argon2, then the counters.
import type { UserRow } from '../storage/schema.js';
import type { ProviderContext } from './context.js';
import { claimSignInAttempt, signInSucceeded } from './sign-in-throttle.js';
import { MAX_CREDENTIAL_LENGTH, authenticateUser } from './users.js';

export type PasswordSignIn =
  | { kind: 'signed-in'; user: UserRow }
  | { kind: 'wrong-credentials' }
  | { kind: 'throttled'; retryAfterSeconds: number };

/**
 * Checks a login and password typed by a person at `ip`. A locked account or address is answered
 * before any argon2 work; a known and an unknown login take the same path and cost the same work.
 * Throws TemporarilyUnavailable when this process has too many verifications waiting.
 */
export async function signInWithPassword(ctx: ProviderContext, login: string, password: string, ip: string): Promise<PasswordSignIn> {
  // Nothing to guess with: refused without counting and without hashing.
  if (!login.trim() || !password || login.length > MAX_CREDENTIAL_LENGTH || password.length > MAX_CREDENTIAL_LENGTH) {
    return { kind: 'wrong-credentials' };
  }
  const claim = await claimSignInAttempt(ctx, login, ip);
  if (claim.kind === 'throttled') return claim;
  const user = await authenticateUser(ctx, login, password);
  if (!user) return { kind: 'wrong-credentials' };
  await signInSucceeded(ctx, claim);
  return { kind: 'signed-in', user };
}
