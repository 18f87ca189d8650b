// The current password, asked again before a change to the account (its password, its email address): counted like
// a sign-in attempt, per account and per network, before argon2 runs; a right one resets the account's counter.
import { TemporarilyUnavailable } from '../../errors/oauth-error.js';
import type { UserRow } from '../../storage/schema.js';
import type { ProviderContext } from '../context.js';
import { claimSignInAttempt, signInNotChecked, signInSucceeded } from './sign-in-throttle.js';
import { MAX_CREDENTIAL_LENGTH } from './users.js';

export type CurrentPasswordCheck =
  | { kind: 'right' }
  | { kind: 'wrong' }
  | { kind: 'throttled'; retryAfterSeconds: number }
  /** The verifications were at their limits: not checked, and not counted. */
  | { kind: 'busy' };

export async function checkCurrentPassword(
  ctx: ProviderContext,
  user: UserRow,
  password: string,
  ip: string,
): Promise<CurrentPasswordCheck> {
  if (password.length > MAX_CREDENTIAL_LENGTH) return { kind: 'wrong' };
  const claim = await claimSignInAttempt(ctx, user.username, ip);
  if (claim.kind === 'throttled') return { kind: 'throttled', retryAfterSeconds: claim.retryAfterSeconds };
  let right: boolean;
  try {
    right = await ctx.passwords.verify(user.password_hash, password);
  } catch (err) {
    if (!(err instanceof TemporarilyUnavailable)) throw err;
    await signInNotChecked(ctx, claim);
    return { kind: 'busy' };
  }
  if (!right) return { kind: 'wrong' };
  await signInSucceeded(ctx, claim);
  return { kind: 'right' };
}
