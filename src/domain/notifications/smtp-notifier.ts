// NOTIFIER=smtp: each outbox message is mailed to the user's address through the operator's SMTP server
// (nodemailer: STARTTLS whenever the server offers it on smtp://, TLS from the first byte on smtps://, RFC 8314).
// The outbox job calls this off the request path, so a slow or stopped mail server never holds up a sign-in: a
// temporary failure (no connection, a timeout, a 4xx answer) is tried again with backoff; a 5xx answer to the
// message (RFC 5321 4.2.1: permanent) is not. The Message-ID is the outbox row's, so a retry after an unknown
// outcome (the process died between the server's 250 and our bookkeeping) is the same message, which mail systems
// recognise. Neither the SMTP password nor the message's code reaches the log: errors are reduced to their code.
import type { Transporter } from 'nodemailer';
import type { SmtpSettings } from '../../config.js';
import type { ProviderContext } from '../context.js';
import { renderMail } from './mail-render.js';
import { messageContent, messageLocale, type MessageSetting } from './messages.js';
import { recipientOf, UndeliverableMessage, type Notifier } from './notifier.js';

/** Each SMTP step may take this long (connect, greeting, every answer) before the attempt is given up. */
const SMTP_TIMEOUT_MS = 10_000;

export function smtpNotifier(ctx: Pick<ProviderContext, 'db' | 'config'>, settings: SmtpSettings): Notifier {
  // Loaded on the first message, not at start (nodemailer costs every process about 100 ms to import). One connection
  // per message (no pool): nothing stays open between outbox rounds, nothing to close.
  let transport: Promise<Transporter> | undefined;
  const transporter = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        url: settings.url,
        connectionTimeout: SMTP_TIMEOUT_MS,
        greetingTimeout: SMTP_TIMEOUT_MS,
        socketTimeout: SMTP_TIMEOUT_MS,
        // Message parts are ours and plain strings: never a file path or URL for nodemailer to read.
        disableFileAccess: true,
        disableUrlAccess: true,
        requireTLS: settings.requireTls,
      }),
    ));
  const setting: MessageSetting = {
    serviceName: ctx.config.brand.name,
    accountUrl: `${ctx.config.issuer}/account`,
    codeMinutes: Math.max(1, Math.floor(ctx.config.secondFactorTtlSeconds / 60)),
    resetMinutes: Math.max(1, Math.floor(ctx.config.passwordResetTtlSeconds / 60)),
    forgotUrl: `${ctx.config.issuer}/account/forgot`,
    signupMinutes: Math.max(1, Math.floor(ctx.config.signup.verificationTtlSeconds / 60)),
  };
  const domain = new URL(ctx.config.issuer).hostname;
  return {
    async send(message) {
      const recipient = await recipientOf(ctx, message);
      const to = recipient?.address;
      if (!to) throw new UndeliverableMessage('the user has no email address');
      const locale = messageLocale(message.payload, recipient?.user?.locale, ctx.config.defaultLocale);
      const mail = renderMail(messageContent(message, setting, locale));
      try {
        await (
          await transporter()
        ).sendMail({
          from: settings.from,
          to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          messageId: `<outbox-${message.id}@${domain}>`,
        });
      } catch (err) {
        throw smtpFailure(err);
      }
    },
  };
}

/** What the log may say of a failed attempt: nodemailer's error code and the server's reply code, nothing it echoed. */
function smtpFailure(err: unknown): Error {
  const { code, responseCode } = err as { code?: unknown; responseCode?: unknown };
  const reply = typeof responseCode === 'number' ? responseCode : undefined;
  const name = typeof code === 'string' ? code : 'error';
  const summary = reply ? `the mail server answered ${reply} (${name})` : `could not reach the mail server (${name})`;
  // RFC 5321 4.2.1: 5yz is a permanent negative completion reply. To the recipient or the message (EENVELOPE,
  // EMESSAGE), sending the same message again will not help; to the login (EAUTH), the operator may still mend it.
  const refusedMessage = code === 'EENVELOPE' || code === 'EMESSAGE';
  return refusedMessage && reply !== undefined && reply >= 500 ? new UndeliverableMessage(summary) : new Error(summary);
}
