// NOTIFIER=webhook: each outbox message is POSTed as JSON to the deployment's relay (which mails or texts it),
// signed so that the relay can tell our messages from anyone's. A non-2xx answer, a timeout or a refused
// connection throws, and the outbox tries the message again later. The body carries the one-time code: it goes
// only to an https URL or a loopback relay (checked in src/config.ts), and is never logged. The operator chose the
// URL, so any address is allowed; the request still goes through the guarded fetch (pinned, no redirects, bounded).
import { createHmac } from 'node:crypto';
import type { NotifierWebhookSettings } from '../../config.js';
import { guardedFetch } from '../../outbound/guarded-fetch.js';
import { policyFor } from '../../outbound/policy.js';
import type { ProviderContext } from '../context.js';
import { recipientOf, type Notifier } from './notifier.js';
import { messageLocale } from './messages.js';

const TIMEOUT_MS = 5_000;
/** The relay's answer is not read; a relay that sends more than this is cut off. */
const RESPONSE_MAX_BYTES = 64 * 1024;

/** `sha256=` and the hex HMAC-SHA256 of "<timestamp>.<body>": the timestamp signed too, so that a replay shows its age. */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export function webhookNotifier(
  ctx: Pick<ProviderContext, 'db' | 'clock' | 'config' | 'outbound'>,
  settings: NotifierWebhookSettings,
): Notifier {
  return {
    async send(message) {
      const recipient = await recipientOf(ctx, message);
      // The user was deleted since: there is nobody left to tell.
      if (!recipient) return;
      const { user } = recipient;
      const id = String(message.id);
      // A message to an address alone (a sign-up's verification) has no user: `to` says where it goes. `locale`: the
      // language the relay should write in, chosen as for a mail (src/domain/notifications/messages.ts).
      const body = JSON.stringify({
        id,
        kind: message.kind,
        locale: messageLocale(message.payload, user?.locale, ctx.config.defaultLocale),
        ...(user
          ? { user: { id: user.id, username: user.username, email: user.email, email_verified: user.email_verified } }
          : { user: null, to: recipient.address }),
        payload: message.payload,
      });
      const timestamp = String(Math.floor(ctx.clock().getTime() / 1000));
      const request = {
        url: settings.url,
        method: 'POST' as const,
        headers: {
          'content-type': 'application/json',
          // The same id on a retry: the relay can drop a message it already delivered.
          'x-sso-message-id': id,
          'x-sso-timestamp': timestamp,
          'x-sso-signature': webhookSignature(settings.secret, timestamp, body),
        },
        body,
        timeoutMs: TIMEOUT_MS,
        maxResponseBytes: RESPONSE_MAX_BYTES,
      };
      const response = await guardedFetch(request, policyFor(ctx.config, 'operator'), ctx.outbound);
      if (response.status < 200 || response.status > 299) throw new Error(`the relay answered ${response.status}`);
    },
  };
}
