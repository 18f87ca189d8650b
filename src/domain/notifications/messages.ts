// What each outbox message says: one template per kind, written once as parts (paragraphs, a code, a link) that
// src/domain/notifications/mail-render.ts turns into both the plain-text and the HTML part of an email.
import type { ClaimedMessage, OutboxKind } from '../../storage/outbox.js';

export interface MessageContent {
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
  /** The service's name, as people know it (TOTP_ISSUER: the issuer's host name unless set). */
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

type Template = (payload: Record<string, unknown>, setting: MessageSetting) => MessageContent;

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

// Every kind the code can queue has a template: the type says so.
const TEMPLATES: Readonly<Record<OutboxKind, Template>> = {
  'one-time-code': (payload, s) => ({
    subject: `Your sign-in code for ${s.serviceName}`,
    intro: [`Someone, most likely you, is signing in to ${s.serviceName}. To confirm it is you, type this code:`],
    code: field(payload, 'code'),
    outro: [
      `The code is valid for ${s.codeMinutes} minutes. Never give it to anyone who asks for it.`,
      'If you are not signing in, someone else knows your password: change it on your account page.',
    ],
  }),
  'new-device': (payload, s) => ({
    subject: `A new sign-in to ${s.serviceName}`,
    intro: [
      `Your ${s.serviceName} account was signed in to from a device it had not seen before:`,
      `${field(payload, 'device')}, on ${utcMinute(field(payload, 'at'))}.`,
    ],
    action: { label: 'Review your account', url: s.accountUrl },
    outro: ['If this was you, there is nothing to do. If it was not, change your password and sign out everywhere.'],
  }),
  'password-reset': (payload, s) => ({
    subject: `Reset your password for ${s.serviceName}`,
    intro: [`Someone, most likely you, asked to reset the password of your ${s.serviceName} account. To choose a new one, open this link:`],
    action: { label: 'Choose a new password', url: field(payload, 'url') },
    outro: [
      `The link works once, for ${s.resetMinutes} minutes. Setting a new password signs you out on every device.`,
      'If you did not ask for it, ignore this email: your password stays as it is.',
    ],
  }),
  'password-changed': (payload, s) => ({
    subject: `Your ${s.serviceName} password was changed`,
    intro: [
      `The password of your ${s.serviceName} account was changed on ${utcMinute(field(payload, 'at'))}, and you were signed out on every device.`,
    ],
    outro: ['If this was you, there is nothing to do.'],
    action: { label: 'It was not me: reset my password', url: s.forgotUrl },
  }),
  'signup-verification': (payload, s) => ({
    subject: `Confirm your email address for ${s.serviceName}`,
    intro: [
      `Someone, most likely you, is creating a ${s.serviceName} account with this email address. To confirm it, type this code on the page:`,
    ],
    code: field(payload, 'code'),
    action: { label: 'Or confirm with this link', url: field(payload, 'url') },
    outro: [
      `The code and the link work for ${s.signupMinutes} minutes. Until you confirm, the account does not exist.`,
      'If you are not creating an account, ignore this email: nothing happens.',
    ],
  }),
  'account-exists': (_payload, s) => ({
    subject: `You already have a ${s.serviceName} account`,
    intro: [
      `Someone, most likely you, tried to create a ${s.serviceName} account with this email address, which already has one. No second account was made.`,
    ],
    action: { label: 'Forgot your password? Choose a new one', url: s.forgotUrl },
    outro: ['If this was not you, ignore this email: your account is unchanged.'],
  }),
  'email-verification': (payload, s) => ({
    subject: `Confirm your new email address for ${s.serviceName}`,
    intro: [`Someone, most likely you, asked to use this address for their ${s.serviceName} account. To confirm it, open this link:`],
    action: { label: 'Use this email address', url: field(payload, 'url') },
    outro: [`The link works once, for ${s.signupMinutes} minutes. If you did not ask for this, ignore this email.`],
  }),
  'email-taken': (_payload, s) => ({
    subject: `This address already has a ${s.serviceName} account`,
    intro: [
      `Someone asked to use this address for another ${s.serviceName} account, but it belongs to an account already, so nothing was changed.`,
    ],
    outro: ['If this was you, sign in to the account this address belongs to instead.'],
  }),
  'email-change-notice': (payload, s) => ({
    subject: `Your ${s.serviceName} email address is being changed`,
    intro: [
      `Someone signed in to your ${s.serviceName} account asked to change its email address to ${field(payload, 'to')}. It changes once that address is confirmed.`,
    ],
    action: { label: 'It was not me: choose a new password', url: s.forgotUrl },
    outro: ['If this was you, there is nothing to do.'],
  }),
  invitation: (payload, s) => ({
    subject: `You are invited to ${s.serviceName}`,
    intro: [`You are invited to create a ${s.serviceName} account with this email address.`],
    action: { label: 'Create your account', url: field(payload, 'url') },
    outro: [`The link works for ${s.signupMinutes} minutes, once.`],
  }),
};

/** The message's content; throws UnknownMessage when no template can write it. */
export function messageContent(message: Pick<ClaimedMessage, 'kind' | 'payload'>, setting: MessageSetting): MessageContent {
  const template = Object.hasOwn(TEMPLATES, message.kind) ? TEMPLATES[message.kind as OutboxKind] : undefined;
  if (!template) throw new UnknownMessage(`no template for ${message.kind} messages`);
  return template(message.payload, setting);
}
