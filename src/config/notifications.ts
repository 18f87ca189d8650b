// Who delivers one-time codes and notices (NOTIFIER): the log, an SMTP server, a webhook relay, or nobody.
import { isLoopbackUrl } from '../net/loopback.js';
import type { Reader } from './reader.js';

export interface SmtpSettings {
  /** smtp://[user:password@]host[:port] (STARTTLS) or smtps://… (TLS from the start, RFC 8314). Never logged. */
  readonly url: string;
  /** The From of every message: an address, or a name and an address ("Example <sso@example.com>"). */
  readonly from: string;
  /**
   * Refuse to send unless the connection is encrypted: on smtp:// to any host but a loopback one, so that a stripped
   * STARTTLS offer (RFC 3207 6) cannot make the login and the codes travel in clear.
   */
  readonly requireTls: boolean;
}

export interface NotifierWebhookSettings {
  /** https, or http on a loopback address (a relay on the same machine). */
  readonly url: URL;
  /** HMAC-SHA256 key of the X-SSO-Signature header, so that the relay can tell our messages from anyone's. */
  readonly secret: string;
}

export interface NotifierSettings {
  /**
   * Who delivers one-time codes and notices: `log` (development: the code in the log), `smtp` (email through the
   * operator's mail server), `webhook` (a signed POST to the deployment's mail or SMS relay) or `none` (a row in the
   * outbox only).
   */
  readonly notifier: 'log' | 'smtp' | 'webhook' | 'none';
  /** Where NOTIFIER=webhook posts, and the key of its signature; null for the other notifiers. */
  readonly notifierWebhook: NotifierWebhookSettings | null;
  /** The mail server and sender of NOTIFIER=smtp; null for the other notifiers. */
  readonly notifierSmtp: SmtpSettings | null;
}

/** NOTIFIER and what it needs; the log notifier, which writes codes to the log, is the default on a loopback http issuer only. */
export function notifierSettings(reader: Reader, loopbackIssuer: boolean): NotifierSettings {
  const { text, problems } = reader;
  const notifierName = text('NOTIFIER', loopbackIssuer ? 'log' : 'none');
  const notifiers = ['log', 'smtp', 'webhook', 'none'] as const;
  const notifier = notifiers.find((name) => name === notifierName) ?? 'none';
  if (notifier !== notifierName) problems.push(`NOTIFIER must be log, smtp, webhook or none (got "${notifierName}")`);
  const notifierWebhook = notifier === 'webhook' ? webhookSettings(reader) : null;
  const notifierSmtp = notifier === 'smtp' ? smtpSettings(reader) : null;

  return { notifier, notifierWebhook, notifierSmtp };
}

/** NOTIFIER=smtp: SMTP_URL and MAIL_FROM, both required. SMTP_URL holds a password: no problem quotes it. */
function smtpSettings({ text, problems }: Reader): SmtpSettings | null {
  const raw = text('SMTP_URL');
  const from = text('MAIL_FROM');
  let url: URL | null = null;
  if (raw === '') problems.push('SMTP_URL must be set when NOTIFIER=smtp (e.g. smtp://user:password@mail.example.com:587)');
  else {
    try {
      url = new URL(raw);
    } catch {
      problems.push('SMTP_URL must be smtp:// or smtps:// followed by the mail server (it is not a URL)');
    }
  }
  if (url && ((url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '')) {
    problems.push(`SMTP_URL must be smtp:// or smtps:// followed by the mail server (got "${url.protocol}//…")`);
    url = null;
  }
  if (from === '') problems.push('MAIL_FROM must be set when NOTIFIER=smtp (e.g. "Example <sso@example.com>")');
  else if (!isOneMailbox(from)) problems.push('MAIL_FROM must be one email address, optionally with a name: "Example <sso@example.com>"');
  if (!url || !isOneMailbox(from)) return null;
  return Object.freeze({ url: raw, from, requireTls: url.protocol === 'smtp:' && !isLoopbackUrl(url) });
}

/** "sso@example.com" or "Any Name <sso@example.com>" (RFC 5322 3.4 name-addr, without groups, lists or line breaks). */
function isOneMailbox(value: string): boolean {
  const addrSpec = /^[^\s@<>(),;:"\\]+@[^\s@<>(),;:"\\]+$/;
  if (addrSpec.test(value)) return true;
  const named = /^([^<>\r\n,;@]*|"[^"\r\n]*") <([^<>]+)>$/.exec(value);
  return named !== null && addrSpec.test(named[2]!);
}

/** NOTIFIER=webhook: NOTIFIER_WEBHOOK_URL and NOTIFIER_WEBHOOK_SECRET, both required. */
function webhookSettings({ text, problems }: Reader): NotifierWebhookSettings | null {
  const raw = text('NOTIFIER_WEBHOOK_URL');
  const secret = text('NOTIFIER_WEBHOOK_SECRET');
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    problems.push('NOTIFIER_WEBHOOK_URL must be set to an absolute URL when NOTIFIER=webhook');
  }
  // One-time codes travel in the body: only over TLS, or to a relay on this machine.
  if (url && !(url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackUrl(url)))) {
    problems.push(`NOTIFIER_WEBHOOK_URL must be https (or http on localhost, 127.0.0.1 or [::1]) (got "${url.protocol}//${url.host}")`);
    url = null;
  }
  if (url && (url.username || url.password)) {
    problems.push('NOTIFIER_WEBHOOK_URL must not carry credentials: the relay checks X-SSO-Signature');
    url = null;
  }
  if (secret.length < 32) problems.push('NOTIFIER_WEBHOOK_SECRET must be at least 32 characters (e.g. openssl rand -base64 32)');
  return url && secret.length >= 32 ? Object.freeze({ url, secret }) : null;
}
