// Changing one's email address from the account page: the current password first (counted like a sign-in attempt
// before argon2), then a link to the new address. The change takes effect only when that link is followed: the
// address is set and verified at once. The current address gets a notice when the change is asked for, so that its
// owner learns of a change they did not ask for while it can still be stopped (by changing the password).
// If the new address is another account's, it gets a note saying so instead of a link, and the page says the same
// as for any address: the person learns nothing about other accounts unless they hold that mailbox.
import type { Locale } from '../../i18n/catalog.js';
import { text, type Text } from '../../i18n/translate.js';
import { completeEmailChange, createEmailChange, findUsableEmailChange, type EmailChangeOutcome } from '../../storage/email-changes.js';
import type { UserRow } from '../../storage/schema.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { randomToken, sha256 } from '../secrets.js';
import { checkCurrentPassword } from './current-password.js';
import { emitUserEventById } from '../webhooks/emit.js';
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
  if (user.email && user.email.toLowerCase() === newEmail.toLowerCase()) {
    return { kind: 'invalid', message: text('email.same') };
  }
  const current = await checkCurrentPassword(ctx, user, input.password, input.ip);
  if (current.kind === 'wrong') return { kind: 'wrong-password' };
  if (current.kind !== 'right') return current;
  const now = ctx.clock();
  const token = randomToken();
  const language = input.locale ? { locale: input.locale } : {};
  await createEmailChange(ctx.db, {
    userId: user.id,
    newEmail,
    tokenDigest: sha256(token),
    now,
    expiresAt: addSeconds(now, ctx.config.signup.verificationTtlSeconds),
    verification: { url: emailChangeUrl(ctx.config.issuer, token), ...language },
    notice: { to: maskedAddress(newEmail), ...language },
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
    if (done.kind === 'changed') await emitUserEventById(ctx, trx, 'user.updated', done.userId, { changes: ['email'], via: 'account' });
    return done;
  });
  if (outcome.kind === 'changed') ctx.log.info({ event: 'email_changed', userId: outcome.userId }, 'email address changed');
  return outcome;
}
