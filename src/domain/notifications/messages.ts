// What each outbox message says: one template per kind, written once as parts (paragraphs, a code, a link) that
// src/domain/notifications/mail-render.ts turns into both the plain-text and the HTML part of an email.
import type { ClaimedMessage, OutboxKind } from '../../storage/outbox.js';
import { isLocale, type Locale } from '../../i18n/catalog.js';
import { translator, type Translate } from '../../i18n/translate.js';

export interface MessageContent {
  /** The language it is written in (the HTML part's `lang`). */
  readonly locale: Locale;
  readonly subject: string;
  /** Paragraphs before the code or the link. */
  readonly intro: readonly string[];
  /** A code the person types (shown on a line of its own). */
  readonly code?: string;
  /** A button in HTML, a labelled URL in text. */
  readonly action?: { readonly label: string; readonly url: string };
  /** Paragraphs after it. */
  readonly outro: readonly string[];
}

/** What a template knows besides the message: who it is from and where the person's account page is. */
export interface MessageSetting {
  /** The service's name, as people know it: BRAND_NAME (TOTP_ISSUER, the issuer's host name, unless set). */
  readonly serviceName: string;
  readonly accountUrl: string;
  /** How long a one-time code stays valid, in minutes. */
  readonly codeMinutes: number;
  /** How long a password reset link works, in minutes. */
  readonly resetMinutes: number;
  /** Where a person asks for a reset link ("Forgot your password?"). */
  readonly forgotUrl: string;
  /** How long a sign-up's verification link and code, and an invitation, work, in minutes. */
  readonly signupMinutes: number;
}

/**
 * The message cannot be written: a kind no template knows, or a payload without what its template needs. Tried
 * again like a failed delivery, not given up: during a rolling upgrade it may be a newer instance's message, which
 * that instance can write on a later attempt.
 */
export class UnknownMessage extends Error {}

type Template = (payload: Record<string, unknown>, setting: MessageSetting, t: Translate) => Omit<MessageContent, 'locale'>;

function field(payload: Record<string, unknown>, name: string): string {
  const value = payload[name];
  if (typeof value !== 'string' || value === '') throw new UnknownMessage(`the payload has no ${name}`);
  return value;
}

/** "2026-11-25 17:06 UTC": a time every reader can place, whatever their time zone. */
function utcMinute(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) throw new UnknownMessage('the payload has no valid time');
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

// Every kind the code can queue has a template: the type says so. The words come from the catalogs (mail.* keys of
// src/i18n/locales/), in the recipient's language.
const TEMPLATES: Readonly<Record<OutboxKind, Template>> = {
  'one-time-code': (payload, s, t) => ({
    subject: t('mail.code.subject', { service: s.serviceName }),
    intro: [t('mail.code.intro', { service: s.serviceName })],
    code: field(payload, 'code'),
    outro: [t('mail.code.valid', { minutes: s.codeMinutes }), t('mail.code.notYou')],
  }),
  'new-device': (payload, s, t) => ({
    subject: t('mail.newDevice.subject', { service: s.serviceName }),
    intro: [
      t('mail.newDevice.intro', { service: s.serviceName }),
      t('mail.newDevice.where', { device: field(payload, 'device'), at: utcMinute(field(payload, 'at')) }),
    ],
    action: { label: t('mail.newDevice.action'), url: s.accountUrl },
    outro: [t('mail.newDevice.outro')],
  }),
  'password-reset': (payload, s, t) => ({
    subject: t('mail.reset.subject', { service: s.serviceName }),
    intro: [t('mail.reset.intro', { service: s.serviceName })],
    action: { label: t('mail.reset.action'), url: field(payload, 'url') },
    outro: [t('mail.reset.valid', { minutes: s.resetMinutes }), t('mail.reset.notYou')],
  }),
  'password-changed': (payload, s, t) => ({
    subject: t('mail.passwordChanged.subject', { service: s.serviceName }),
    intro: [t('mail.passwordChanged.intro', { service: s.serviceName, at: utcMinute(field(payload, 'at')) })],
    outro: [t('mail.ifYou')],
    action: { label: t('mail.passwordChanged.action'), url: s.forgotUrl },
  }),
  'signup-verification': (payload, s, t) => ({
    subject: t('mail.signup.subject', { service: s.serviceName }),
    intro: [t('mail.signup.intro', { service: s.serviceName })],
    code: field(payload, 'code'),
    action: { label: t('mail.signup.action'), url: field(payload, 'url') },
    outro: [t('mail.signup.valid', { minutes: s.signupMinutes }), t('mail.signup.notYou')],
  }),
  'account-exists': (_payload, s, t) => ({
    subject: t('mail.exists.subject', { service: s.serviceName }),
    intro: [t('mail.exists.intro', { service: s.serviceName })],
    action: { label: t('mail.exists.action'), url: s.forgotUrl },
    outro: [t('mail.exists.notYou')],
  }),
  'email-verification': (payload, s, t) => ({
    subject: t('mail.emailVerify.subject', { service: s.serviceName }),
    intro: [t('mail.emailVerify.intro', { service: s.serviceName })],
    action: { label: t('mail.emailVerify.action'), url: field(payload, 'url') },
    outro: [t('mail.emailVerify.valid', { minutes: s.signupMinutes })],
  }),
  'email-taken': (_payload, s, t) => ({
    subject: t('mail.emailTaken.subject', { service: s.serviceName }),
    intro: [t('mail.emailTaken.intro', { service: s.serviceName })],
    outro: [t('mail.emailTaken.outro')],
  }),
  // The cancel link ends the change; a notice queued before it had one sends to a password reset (which ends it too).
  'email-change-notice': (payload, s, t) => ({
    subject: t('mail.emailNotice.subject', { service: s.serviceName }),
    intro: [t('mail.emailNotice.intro', { service: s.serviceName, to: field(payload, 'to') })],
    action:
      typeof payload.cancel === 'string' && payload.cancel !== ''
        ? { label: t('mail.emailNotice.cancel'), url: payload.cancel }
        : { label: t('mail.emailNotice.action'), url: s.forgotUrl },
    outro: [t('mail.emailNotice.recovery'), t('mail.ifYou')],
  }),
  invitation: (payload, s, t) => ({
    subject: t('mail.invitation.subject', { service: s.serviceName }),
    intro: [t('mail.invitation.intro', { service: s.serviceName })],
    action: { label: t('mail.invitation.action'), url: field(payload, 'url') },
    outro: [t('mail.invitation.valid', { minutes: s.signupMinutes })],
  }),
  // An invitation to an organization (src/domain/organizations/invitations.ts): who invited, when the link ends.
  'organization-invitation': (payload, s, t) => {
    const organization = field(payload, 'organization');
    const inviter = typeof payload.inviter === 'string' && payload.inviter !== '' ? payload.inviter : undefined;
    return {
      subject: t('mail.orgInvitation.subject', { organization, service: s.serviceName }),
      intro: [
        inviter
          ? t('mail.orgInvitation.introBy', { inviter, organization, service: s.serviceName })
          : t('mail.orgInvitation.intro', { organization, service: s.serviceName }),
      ],
      action: { label: t('mail.orgInvitation.action'), url: field(payload, 'url') },
      outro: [t('mail.orgInvitation.valid', { at: utcMinute(field(payload, 'expires')) }), t('mail.orgInvitation.notYou')],
    };
  },
};

/**
 * The language of a message: the one the page that queued it spoke (its payload's `locale`), else the user's
 * remembered one, else DEFAULT_LOCALE.
 */
export function messageLocale(payload: Record<string, unknown>, userLocale: string | null | undefined, defaultLocale: Locale): Locale {
  if (isLocale(payload.locale)) return payload.locale;
  return isLocale(userLocale) ? userLocale : defaultLocale;
}

/** The message's content; throws UnknownMessage when no template can write it. */
export function messageContent(message: Pick<ClaimedMessage, 'kind' | 'payload'>, setting: MessageSetting, locale: Locale): MessageContent {
  const template = Object.hasOwn(TEMPLATES, message.kind) ? TEMPLATES[message.kind as OutboxKind] : undefined;
  if (!template) throw new UnknownMessage(`no template for ${message.kind} messages`);
  return { locale, ...template(message.payload, setting, translator(locale)) };
}
