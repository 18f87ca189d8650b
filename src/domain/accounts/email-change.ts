// Changing one's email address from the account page: the current password first (counted like a sign-in attempt
// before argon2), then a link to the new address. The change takes effect only when that link is followed: the
// address is set and verified at once. The current address gets a notice when the change is asked for, so that its
// owner learns of a change they did not ask for while it can still be stopped: its cancel link ends it, and so does
// any recovery (a password reset or change, signing out everywhere, being disabled, an admin setting the address:
// endPendingEmailChanges). An unverified current address is verified the same way: its owner, signed in, asks for
// it, and the link goes to it (an address someone else set is unverified until then, docs/accounts.md).
// If the new address is another account's, it gets a note saying so instead of a link, and the page says the same
// as for any address: the person learns nothing about other accounts unless they hold that mailbox.
import type { Locale } from '../../i18n/catalog.js';
import { text, type Text } from '../../i18n/translate.js';
import {
  cancelEmailChanges,
  completeEmailChange,
  createEmailChange,
  endPendingEmailChanges as endPendingRows,
  findCancellableEmailChange,
  findUsableEmailChange,
  type EmailChangeOutcome,
} from '../../storage/email-changes.js';
import type { Db } from '../../storage/database.js';
import type { UserRow } from '../../storage/schema.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { randomToken, sha256 } from '../secrets.js';
import { checkCurrentPassword } from './current-password.js';
import { emitUserEventById, emitWebhookEvent } from '../webhooks/emit.js';
import type { Clock } from '../clock.js';
import { isEmailAddress } from './signup.js';

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export type EmailChangeRequest =
  | { kind: 'sent' }
  | { kind: 'invalid'; message: Text }
  | { kind: 'wrong-password' }
  | { kind: 'throttled'; retryAfterSeconds: number }
  | { kind: 'busy' };

/** "a***@example.org": enough for the owner of the old address to recognise, not to read off. */
export function maskedAddress(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 1 ? '***' : `${email[0]}***${email.slice(at)}`;
}

export const emailChangeUrl = (issuer: string, token: string) => `${issuer}/account/email/verify?token=${token}`;
export const emailCancelUrl = (issuer: string, token: string) => `${issuer}/account/email/cancel?token=${token}`;

/**
 * A recovery ends every pending change of the user, in the recovery's own transaction (`db`): whoever asked for it,
 * its link stops working. Called by a password change, signing out everywhere, an admin setting the password or the
 * address; a password reset and disabling end them in their own statement (endPendingEmailChangesOf).
 */
export function endPendingEmailChanges(ctx: { readonly clock: Clock }, db: Db, userId: string): Promise<number> {
  return endPendingRows(db, userId, ctx.clock());
}

/** Who changed an address, as user.email_changed says it. */
export type EmailChangeVia = 'account' | 'admin' | 'scim' | 'directory';

/**
 * user.email_changed: the user's address was set (`email`, null when removed) and whether it is verified; `via` says
 * who set it. In `db`, the change's own transaction.
 */
export function emitEmailChanged(
  ctx: { readonly clock: Clock },
  db: Db,
  user: { id: string; username: string },
  change: { email: string | null; previous: string | null; verified: boolean; via: EmailChangeVia },
): Promise<number> {
  return emitWebhookEvent(ctx, db, 'user.email_changed', {
    user_id: user.id,
    username: user.username,
    email: change.email,
    previous_email: change.previous,
    email_verified: change.verified,
    via: change.via,
  });
}

export async function requestEmailChange(
  ctx: ProviderContext,
  input: {
    user: UserRow;
    ip: string;
    password: string;
    newEmail: string;
    /** The page's language: the mails to both addresses speak it. */
    locale?: Locale;
  },
): Promise<EmailChangeRequest> {
  const { user } = input;
  const newEmail = input.newEmail.trim();
  if (!isEmailAddress(newEmail)) return { kind: 'invalid', message: text('email.invalid') };
  // The current address again: refused once it is verified; while it is not, this is how its owner verifies it.
  const same = user.email !== null && user.email.toLowerCase() === newEmail.toLowerCase();
  if (same && user.email_verified) return { kind: 'invalid', message: text('email.same') };
  const current = await checkCurrentPassword(ctx, user, input.password, input.ip);
  if (current.kind === 'wrong') return { kind: 'wrong-password' };
  if (current.kind !== 'right') return current;
  const now = ctx.clock();
  const token = randomToken();
  const cancel = randomToken();
  const language = input.locale ? { locale: input.locale } : {};
  await createEmailChange(ctx.db, {
    userId: user.id,
    newEmail: same ? user.email! : newEmail,
    tokenDigest: sha256(token),
    cancelDigest: sha256(cancel),
    now,
    expiresAt: addSeconds(now, ctx.config.signup.verificationTtlSeconds),
    verification: { url: emailChangeUrl(ctx.config.issuer, token), ...language },
    notice: same ? null : { to: maskedAddress(newEmail), cancel: emailCancelUrl(ctx.config.issuer, cancel), ...language },
  });
  return { kind: 'sent' };
}

/** The new address of a usable link, for the confirmation page. */
export async function openEmailChange(ctx: ProviderContext, token: string | undefined): Promise<string | undefined> {
  if (!token || !TOKEN_PATTERN.test(token)) return undefined;
  return (await findUsableEmailChange(ctx.db, sha256(token), ctx.clock()))?.newEmail;
}

export async function confirmEmailChange(ctx: ProviderContext, token: string | undefined): Promise<EmailChangeOutcome> {
  if (!token || !TOKEN_PATTERN.test(token)) return { kind: 'unusable' };
  // The new address and its user.updated event commit together. A taken address fails the one statement that would set
  // it (the outcome says so): nothing was written, no event is queued, and the transaction ends with nothing to keep.
  const outcome = await ctx.db.transaction().execute(async (trx) => {
    const done = await completeEmailChange(trx, sha256(token), ctx.clock());
    if (done.kind === 'changed') {
      await emitUserEventById(ctx, trx, 'user.updated', done.userId, { changes: ['email'], via: 'account' });
      await emitEmailChanged(
        ctx,
        trx,
        { id: done.userId, username: done.username },
        { email: done.newEmail, previous: done.previous, verified: true, via: 'account' },
      );
    }
    return done;
  });
  if (outcome.kind === 'changed') ctx.log.info({ event: 'email_changed', userId: outcome.userId }, 'email address changed');
  return outcome;
}

/** Whether the notice's cancel link still has a change to end, for its confirmation page. */
export async function openEmailCancel(ctx: ProviderContext, token: string | undefined): Promise<boolean> {
  if (!token || !TOKEN_PATTERN.test(token)) return false;
  return findCancellableEmailChange(ctx.db, sha256(token), ctx.clock());
}

/** The notice's cancel link, confirmed: every pending change of the user ends. False when it had nothing to end. */
export async function cancelEmailChange(ctx: ProviderContext, token: string | undefined): Promise<boolean> {
  if (!token || !TOKEN_PATTERN.test(token)) return false;
  const userId = await cancelEmailChanges(ctx.db, sha256(token), ctx.clock());
  if (userId) ctx.log.info({ event: 'email_change_cancelled', userId }, 'email change cancelled');
  return userId !== undefined;
}
