// Changing one's password on the account page: the current password first (a guess at it is counted like a sign-in
// attempt, per account and per network, before argon2 runs), the new one twice and held to the policy; then one
// statement replaces it and signs the user out on every other device (their sessions end with back-channel logouts,
// refresh tokens and codes issued through them are revoked), while this browser stays signed in, as Keycloak's
// "sign out from other devices" does. A "password changed" mail follows. Open reset links end with the old password.
import type { Locale } from '../../i18n/catalog.js';
import { changeUserPassword } from '../../storage/password-replacement.js';
import { endPendingEmailChanges } from './email-change.js';
import type { UserRow } from '../../storage/schema.js';
import type { ProviderContext } from '../context.js';
import type { PasswordProblem } from './password-policy.js';
import { checkCurrentPassword } from './current-password.js';
import { isDirectoryUser } from '../directories/directory-sign-in.js';
import type { Db } from '../../storage/database.js';
import { emitSessionsEnded, emitUserEvent } from '../webhooks/emit.js';

export type PasswordChange =
  | { kind: 'changed'; sessionsEnded: number; logoutsQueued: number }
  | { kind: 'mismatch' }
  | { kind: 'weak'; problem: PasswordProblem }
  | { kind: 'wrong-current' }
  | { kind: 'throttled'; retryAfterSeconds: number }
  | { kind: 'busy' }
  /** The password changed meanwhile (another tab, a reset): nothing was written. */
  | { kind: 'conflict' }
  /** The user's directory holds their password (src/domain/directories/): it is changed there, never here. */
  | { kind: 'directory-managed' };

export async function changePassword(
  ctx: ProviderContext,
  input: {
    user: UserRow;
    sid: string;
    ip: string;
    current: string;
    password: string;
    repeat: string;
    /** The page's language: the notice mail speaks it. */
    locale?: Locale;
  },
): Promise<PasswordChange> {
  const { user } = input;
  if (isDirectoryUser(user)) return { kind: 'directory-managed' };
  if (input.password !== input.repeat) return { kind: 'mismatch' };
  const problem = ctx.passwordPolicy.problem(input.password, user);
  if (problem) return { kind: 'weak', problem };
  const current = await checkCurrentPassword(ctx, user, input.current, input.ip);
  if (current.kind === 'wrong') return { kind: 'wrong-current' };
  if (current.kind !== 'right') return current;
  const now = ctx.clock();
  const newHash = await ctx.passwords.hash(input.password);
  const changed = await ctx.db.transaction().execute(async (trx: Db) => {
    const done = await changeUserPassword(trx, {
      userId: user.id,
      oldHash: user.password_hash,
      newHash,
      keepSid: input.sid,
      now,
      notice: { at: now.toISOString(), ...(input.locale ? { locale: input.locale } : {}) },
    });
    if (done) {
      await endPendingEmailChanges(ctx, trx, user.id);
      await emitUserEvent(ctx, trx, 'user.updated', user, { changes: ['password'], via: 'account' });
      await emitSessionsEnded(ctx, trx, user.id, 'revoked', { count: done.sessionsEnded });
    }
    return done;
  });
  if (!changed) return { kind: 'conflict' };
  ctx.log.info({ event: 'password_changed', userId: user.id, sessionsEnded: changed.sessionsEnded }, 'password changed');
  return { kind: 'changed', sessionsEnded: changed.sessionsEnded, logoutsQueued: changed.logoutsQueued };
}
