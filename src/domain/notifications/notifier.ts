// Delivers outbox messages (one-time codes, new-device notices) to users. Pluggable: the deployment supplies a
// Notifier (mail, SMS, a webhook); the built-in `log` notifier writes the message to the log for development.
import { claimDueMessages, markMessageFailed, markMessageSent, type ClaimedMessage } from '../../storage/outbox.js';
import type { Config } from '../../config.js';
import { OUTBOX_RETENTION_SECONDS } from '../../storage/purge.js';
import type { UserRow } from '../../storage/schema.js';
import { findUserById } from '../../storage/users.js';
import type { ProviderContext } from '../context.js';

export interface Notifier {
  /** Resolves when the message is handed over; throws to have it tried again later (UndeliverableMessage: never). */
  send(message: ClaimedMessage): Promise<void>;
}

/** The message can never be delivered (no address, refused for good): trying again would not help. */
export class UndeliverableMessage extends Error {}

/**
 * What opens the account, and so goes only to a verified address (issue 38): an address someone else set is not
 * verified until its owner verifies it. Queued with that address (outbox.address) when the user had one.
 */
const VERIFIED_ONLY: ReadonlySet<string> = new Set(['one-time-code', 'password-reset']);

/**
 * Whom a message goes to: its own address (a sign-up, an invitation, a code or a reset link as queued), else its
 * user's email, if verified for a code or a reset link. Undefined when the user was deleted since. A user without
 * such an address has `address: null`.
 */
export async function recipientOf(
  ctx: Pick<ProviderContext, 'db'>,
  message: Pick<ClaimedMessage, 'userId' | 'address' | 'kind'>,
): Promise<{ address: string | null; user: UserRow | null } | undefined> {
  if (message.userId === null) return { address: message.address, user: null };
  const user = await findUserById(ctx.db, message.userId);
  if (!user) return undefined;
  const own = VERIFIED_ONLY.has(message.kind) && !user.email_verified ? null : user.email;
  return { address: message.address ?? own, user };
}

const LEASE_SECONDS = 30;
/** The longest wait between two attempts: a mail server back after an outage gets the queue within five minutes. */
const MAX_RETRY_WAIT_SECONDS = 300;

/**
 * How long a message is worth sending: a code or a link until it stops working, a notice for as long as the outbox
 * keeps it (a day). A failed delivery is tried again, with doubling waits up to MAX_RETRY_WAIT_SECONDS, until then.
 */
export function usefulLifeSeconds(config: Config, kind: string): number {
  switch (kind) {
    case 'one-time-code':
      return config.secondFactorTtlSeconds;
    case 'password-reset':
      return config.passwordResetTtlSeconds;
    case 'signup-verification':
    case 'invitation':
    case 'email-verification':
      return config.signup.verificationTtlSeconds;
    default:
      return OUTBOX_RETENTION_SECONDS;
  }
}

/** When to try a failed message again; null to give it up (no use any more, or it can never be delivered). */
function nextAttempt(config: Config, message: ClaimedMessage, err: unknown, now: Date): Date | null {
  if (err instanceof UndeliverableMessage) return null;
  const wait = Math.min(2 ** message.attempts, MAX_RETRY_WAIT_SECONDS) * 1000;
  const next = new Date(now.getTime() + wait);
  const usefulUntil = message.createdAt.getTime() + usefulLifeSeconds(config, message.kind) * 1000;
  return next.getTime() < usefulUntil ? next : null;
}

/** Development only (NOTIFIER=log): the one place a one-time code is written to the log, as the operator asked. */
export function logNotifier(ctx: ProviderContext): Notifier {
  return {
    async send(message) {
      ctx.log.info(
        { event: 'notification', userId: message.userId, kind: message.kind, ...message.payload },
        'notification (development notifier)',
      );
    },
  };
}

/** One delivery round: claims due messages and sends them; a failure is retried with doubling waits. */
export async function deliverDueMessages(ctx: ProviderContext, notifier: Notifier): Promise<number> {
  const now = ctx.clock();
  const claimed = await claimDueMessages(ctx.db, now, new Date(now.getTime() + LEASE_SECONDS * 1000), 50);
  for (const message of claimed) {
    try {
      await notifier.send(message);
      await markMessageSent(ctx.db, message.id, ctx.clock());
    } catch (err) {
      const retry = nextAttempt(ctx.config, message, err, ctx.clock());
      ctx.log.warn(
        {
          event: 'notification_failed',
          kind: message.kind,
          attempts: message.attempts,
          retry: retry !== null,
          err: (err as Error).message,
        },
        'notification failed',
      );
      await markMessageFailed(ctx.db, message.id, retry);
    }
  }
  return claimed.length;
}
