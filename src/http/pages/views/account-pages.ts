// The account page of a signed-in user (devices, authenticator app) and the page that enrols an authenticator.
// Every action is a plain form post carrying the page's CSRF token; only adding a passkey runs script (WebAuthn has
// no form of its own).
import type { AuthenticatorState } from '../../../domain/accounts/authenticator.js';
import type { Passkey } from '../../../domain/accounts/passkeys.js';
import type { AccountLink, LinkableConnection } from '../../../domain/connections/account-links.js';
import type { AccountDevice } from '../../../domain/risk/devices.js';
import { html, SafeHtml } from '../../../html.js';
import { fieldError, newPasswordFields } from './field-error.js';
import { layout, type PageText } from '../../views/layout.js';
import { PASSKEY_SCRIPT } from '../../views/passkey-script.js';
import { richText } from '../../views/rich-text.js';

/** "2026-11-23 14:05 UTC": the server does not know the reader's time zone, so it says which one it uses. */
function when(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export interface AccountPageInput {
  /** Where the forms post to: `${issuer}/account`. */
  base: string;
  csrfToken: string;
  /** The name the user is greeted by. */
  displayName: string;
  email: string | null;
  emailVerified: boolean;
  devices: readonly AccountDevice[];
  authenticator: AuthenticatorState;
  passkeys: readonly Passkey[];
  /** False on an issuer named by an IP address, where no browser makes a passkey: the list stays, adding is not offered. */
  passkeysOffered: boolean;
  /** Where "Sign out" leads (the end-session endpoint, which asks to confirm). */
  signOutUrl: string;
  /** The person's links to upstream accounts (issue 19); absent: the section is not shown. */
  connections?: readonly AccountLink[] | undefined;
  /** Enabled connections with no link yet, each offered as "Link {provider}". */
  linkable?: readonly LinkableConnection[] | undefined;
  /** The person's live sessions in the admin console (issue 38); none: the section is not shown. */
  consoleSessions?: readonly ConsoleSessionItem[] | undefined;
  notice?: string;
  error?: string;
}

/** A live console session as the account page lists it. */
export interface ConsoleSessionItem {
  sid: string;
  createdAt: Date;
  lastSeenAt: Date;
}

export function accountPage(t: PageText, input: AccountPageInput): string {
  const csrf = html`<input type="hidden" name="csrf" value="${input.csrfToken}">`;
  const device = (d: AccountDevice) => html`<li data-device="${d.id}">
<strong>${d.label}</strong>${d.current ? html` <span class="current">${t('account.thisDevice')}</span>` : ''}
<p class="meta">${t('account.firstSeen')} <time datetime="${d.firstSeenAt.toISOString()}">${when(d.firstSeenAt)}</time>,
${t('account.lastSeen')} <time datetime="${d.lastSeenAt.toISOString()}">${when(d.lastSeenAt)}</time>,
${t.plural('account.signIns', d.signInCount)}${d.trusted ? t('account.verified') : ''}</p>
<form method="post" action="${input.base}/devices/${d.id}/revoke">
${csrf}
<button type="submit" class="secondary" aria-label="${d.current ? t('account.revokeCurrentLabel', { device: d.label }) : t('account.revokeLabel', { device: d.label })}">${d.current ? t('account.revokeCurrent') : t('account.revoke')}</button>
</form>
</li>`;
  return layout(
    t,
    t('account.title'),
    html`<h1>${t('account.title')}</h1>
<p class="lead">${t('account.signedInAs', { name: input.displayName })} <a href="${input.signOutUrl}">${t('logout.title')}</a></p>
${input.notice ? html`<div class="notice" role="status">${input.notice}</div>` : ''}
${input.error ? html`<div class="error" role="alert">${input.error}</div>` : ''}
<h2>${t('account.devices')}</h2>
<p class="meta">${t('account.devicesHelp')}</p>
${
  input.devices.length === 0
    ? html`<p>${t('account.noDevices')}</p>`
    : html`<ul class="devices">
${input.devices.map(device)}
</ul>`
}
${consoleSessionSection(t, input, csrf)}
<h2>${t('signup.email')}</h2>
<p>${input.email ? html`${input.email} ${input.emailVerified ? t('account.confirmed') : t('account.notConfirmed')}` : t('account.noEmail')}
<a href="${input.base}/email">${input.email ? t('email.title') : t('account.addEmail')}</a></p>
<h2>${t('signIn.password')}</h2>
<p><a href="${input.base}/password">${t('password.title')}</a></p>
<h2>${t('account.passkeys')}</h2>
${passkeySection(t, input, csrf)}
<h2>${t('account.authenticator')}</h2>
${authenticatorSection(t, input, csrf)}
${linkedAccounts(t, input.base, input.connections ?? [], input.linkable ?? [], csrf)}`,
  );
}

/** The person's console sessions, each with its sign-out; nothing for a person with none (most people). */
function consoleSessionSection(t: PageText, input: AccountPageInput, csrf: SafeHtml): SafeHtml | '' {
  const sessions = input.consoleSessions ?? [];
  if (sessions.length === 0) return '';
  return html`<h2>${t('account.consoleSessions')}</h2>
<p class="meta">${t('account.consoleSessionsHelp')}</p>
<ul class="devices">
${sessions.map(
  (c) => html`<li data-console-session="${c.sid}">
<p class="meta">${t('account.consoleSessionStarted')} <time datetime="${c.createdAt.toISOString()}">${when(c.createdAt)}</time>,
${t('account.consoleSessionLastUsed')} <time datetime="${c.lastSeenAt.toISOString()}">${when(c.lastSeenAt)}</time></p>
<form method="post" action="${input.base}/console-sessions/${c.sid}/end">
${csrf}
<button type="submit" class="secondary">${t('account.consoleSessionEnd')}</button>
</form>
</li>`,
)}
</ul>`;
}

/**
 * The upstream accounts linked to this one, each with "Unlink" while another way to sign in remains, then a
 * "Link {provider}" button for each enabled connection not linked yet; nothing when there is neither.
 */
function linkedAccounts(
  t: PageText,
  base: string,
  links: readonly AccountLink[],
  linkable: readonly LinkableConnection[],
  csrf: SafeHtml,
): SafeHtml | '' {
  if (links.length === 0 && linkable.length === 0) return '';
  return html`<h2>${t('connections.accountHeading')}</h2>
${links.length === 0 ? html`<p class="meta">${t('connections.accountNone')}</p>` : ''}
${links.length > 0 ? linkList(t, base, links, csrf) : ''}
${
  linkable.length > 0
    ? html`<p class="meta">${t('connections.linkAnotherHelp')}</p>
${linkable.map(
  (c) => html`<form method="post" action="${base}/connections/${c.id}/link" data-link-connection="${c.id}">
${csrf}
<button type="submit" class="secondary">${t('connections.linkAnother', { provider: c.name })}</button>
</form>`,
)}`
    : ''
}`;
}

function linkList(t: PageText, base: string, links: readonly AccountLink[], csrf: SafeHtml): SafeHtml {
  return html`<ul class="devices connections">
${links.map(
  (l) => html`<li data-connection="${l.connectionId}">
<strong>${l.name}</strong>
<p class="meta">${t('connections.linkedSince')} <time datetime="${l.linkedAt.toISOString()}">${when(l.linkedAt)}</time></p>
${
  l.canUnlink
    ? html`<form method="post" action="${base}/connections/${l.connectionId}/unlink">
${csrf}
<input type="hidden" name="subject" value="${l.subject}">
<button type="submit" class="secondary" aria-label="${t('connections.unlinkLabel', { provider: l.name })}">${t('connections.unlink')}</button>
</form>`
    : ''
}
</li>`,
)}
</ul>`;
}

function passkeySection(t: PageText, input: AccountPageInput, csrf: SafeHtml) {
  const item = (p: Passkey) => html`<li data-passkey="${p.id}">
<strong>${p.name}</strong>
<p class="meta">${t('passkey.added')} <time datetime="${p.createdAt.toISOString()}">${when(p.createdAt)}</time>,
${p.lastUsedAt ? html`${t('passkey.lastUsed')} <time datetime="${p.lastUsedAt.toISOString()}">${when(p.lastUsedAt)}</time>` : t('passkey.neverUsed')}${p.synced ? t('passkey.synced') : ''}</p>
<form method="post" action="${input.base}/passkeys/${p.id}/rename">
${csrf}
<label for="passkey-name-${p.id}">${t('passkey.newName', { name: p.name })}</label>
<input type="text" id="passkey-name-${p.id}" name="name" value="${p.name}" maxlength="64" required>
<button type="submit" class="secondary">${t('passkey.rename')}</button>
</form>
<form method="post" action="${input.base}/passkeys/${p.id}/delete">
${csrf}
<button type="submit" class="secondary" aria-label="${t('passkey.deleteLabel', { name: p.name })}">${t('passkey.delete')}</button>
</form>
</li>`;
  return html`<p>${t('passkey.explain')}</p>
${
  input.passkeys.length === 0
    ? ''
    : html`<ul class="devices passkeys">
${input.passkeys.map(item)}
</ul>`
}
${
  input.passkeysOffered
    ? html`<form method="post" action="${input.base}/passkeys/new">
${csrf}
<button type="submit">${t('passkey.addTitle')}</button>
</form>`
    : html`<p class="meta">${t('passkey.needsDomain')}</p>`
}`;
}

export interface NewPasskeyPageInput {
  base: string;
  csrfToken: string;
  /** The name typed before a refusal. */
  name?: string;
  error?: string;
}

/** Registers a passkey: the script asks for options, runs navigator.credentials.create() and posts the result. */
export function newPasskeyPage(t: PageText, input: NewPasskeyPageInput): string {
  return layout(
    t,
    t('passkey.addTitle'),
    html`<h1>${t('passkey.addTitle')}</h1>
<p class="lead">${t('passkey.addLead')}</p>
${input.error ? html`<div class="error" role="alert">${input.error}</div>` : ''}
<noscript><div class="error">${t('passkey.needsScript')}</div></noscript>
<form method="post" action="${input.base}/passkeys" data-passkey="create" data-options="${input.base}/passkeys/options" data-unused="${t('passkey.unused')}" data-failed="${t('passkey.failed')}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<input type="hidden" name="credential" value="">
<label for="passkey-name">${t('passkey.name')}</label>
<input type="text" id="passkey-name" name="name" value="${input.name ?? ''}" maxlength="64" placeholder="${t('passkey.namePlaceholder')}" required>
<div class="error" role="alert" data-passkey-error hidden></div>
<button type="button" data-passkey-start hidden>${t('passkey.create')}</button>
</form>
<p><a href="${input.base}">${t('account.back')}</a></p>
<script>${new SafeHtml(PASSKEY_SCRIPT)}</script>`,
  );
}

function authenticatorSection(t: PageText, input: AccountPageInput, csrf: ReturnType<typeof html>) {
  switch (input.authenticator) {
    case 'enrolled':
      return html`<p>${t('totp.enrolled')}</p>
<form method="post" action="${input.base}/totp/remove">
${csrf}
<label for="remove-code">${t('totp.removeCode')}</label>
<input type="text" id="remove-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" maxlength="8" required>
<button type="submit" class="secondary">${t('totp.remove')}</button>
</form>`;
    case 'pending':
    case 'none':
      return html`<p>${t('totp.offer')}</p>
${input.authenticator === 'pending' ? html`<p><a href="${input.base}/totp">${t('totp.finish')}</a></p>` : ''}
<form method="post" action="${input.base}/totp">
${csrf}
<button type="submit">${input.authenticator === 'pending' ? t('totp.restart') : t('totp.title')}</button>
</form>`;
  }
}

export interface TotpEnrolmentPageInput {
  base: string;
  csrfToken: string;
  /** data: URL of the QR code image (SVG) carrying the otpauth:// URI. */
  qrDataUrl: string;
  /** The secret in base32, grouped by four. */
  manualKey: string;
  error?: string;
}

export function totpEnrolmentPage(t: PageText, input: TotpEnrolmentPageInput): string {
  return layout(
    t,
    t('totp.title'),
    html`<h1>${t('totp.title')}</h1>
<p class="lead">${t('totp.lead')}</p>
${input.error ? html`<div class="error" role="alert">${input.error}</div>` : ''}
<img class="qr" src="${input.qrDataUrl}" alt="${t('totp.qrAlt')}">
<p>${t('totp.manual')}</p>
<code class="key" id="manual-key">${input.manualKey}</code>
<form method="post" action="${input.base}/totp/confirm">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<label for="code">${t('totp.code')}</label>
<input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" maxlength="8" required autofocus>
<button type="submit">${t('common.confirm')}</button>
</form>
<p><a href="${input.base}">${t('account.back')}</a></p>`,
  );
}

export function accountErrorPage(t: PageText, base: string, title: string, message: string): string {
  return layout(t, title, html`<h1>${title}</h1><p class="lead">${message}</p><p><a href="${base}">${t('account.back')}</a></p>`);
}

export interface PasswordChangePageInput {
  base: string;
  csrfToken: string;
  /** For password managers: the account the new password is for. */
  username: string;
  minLength: number;
  error?: { field: 'current' | 'password' | 'repeat' | 'form'; message: string } | undefined;
}

/** Changing the password: the current one, the new one twice. Each error is tied to its field. */
export function passwordChangePage(t: PageText, input: PasswordChangePageInput): string {
  const err = input.error;
  const current = fieldError(err, 'current');
  return layout(
    t,
    t('password.title'),
    html`<h1>${t('password.title')}</h1>
<p class="lead">${t('password.lead')}</p>
${err ? html`<div class="error" role="alert">${err.message}</div>` : ''}
<form method="post" action="${input.base}/password">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<input type="text" name="username" value="${input.username}" autocomplete="username" hidden>
<label for="current">${t('password.current')}</label>
<input type="password" id="current" name="current" autocomplete="current-password" required autofocus${current.attrs}>
${current.message}
${newPasswordFields({
  label: t('common.newPassword'),
  repeatLabel: t('password.repeat'),
  hint: t('common.passwordHint', { min: input.minLength }),
  minLength: input.minLength,
  error: err,
})}
<button type="submit">${t('password.submit')}</button>
</form>
<p><a href="${input.base}">${t('account.back')}</a></p>`,
  );
}

export interface EmailChangePageInput {
  base: string;
  csrfToken: string;
  username: string;
  current: string | null;
  /** The current address is not verified: the page says how its owner verifies it (the same form, that address). */
  currentUnverified?: boolean | undefined;
  newEmail?: string | undefined;
  error?: { field: 'email' | 'password' | 'form'; message: string } | undefined;
}

/** Changing the email address: the new one and the current password. Each error is tied to its field. */
export function emailChangePage(t: PageText, input: EmailChangePageInput): string {
  const err = input.error;
  const email = fieldError(err, 'email');
  const password = fieldError(err, 'password');
  return layout(
    t,
    t('email.title'),
    html`<h1>${t('email.title')}</h1>
<p class="lead">${input.current ? `${t('email.current', { email: input.current })} ` : ''}${t('email.lead')}</p>
${input.current && input.currentUnverified ? html`<p>${t('email.verifyHint')}</p>` : ''}
${err ? html`<div class="error" role="alert">${err.message}</div>` : ''}
<form method="post" action="${input.base}/email">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<input type="text" name="username" value="${input.username}" autocomplete="username" hidden>
<label for="email">${t('email.new')}</label>
<input type="email" id="email" name="email" value="${input.newEmail ?? ''}" autocomplete="email" autocapitalize="none" spellcheck="false" required autofocus${email.attrs}>
${email.message}
<label for="password">${t('email.password')}</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${password.attrs}>
${password.message}
<button type="submit">${t('email.submit')}</button>
</form>
<p><a href="${input.base}">${t('account.back')}</a></p>`,
  );
}

/** A page with one message and one link (sent, confirmed, refused). */
export function accountMessagePage(
  t: PageText,
  input: {
    title: string;
    message: string;
    link: { url: string; label: string };
    alert?: boolean;
  },
): string {
  return layout(
    t,
    input.title,
    html`<h1>${input.title}</h1>
<div class="${input.alert ? 'error' : 'notice'}" role="${input.alert ? 'alert' : 'status'}">${input.message}</div>
<p><a href="${input.link.url}">${input.link.label}</a></p>`,
  );
}

/** The mailed link, opened: a button, so that a mail scanner fetching links confirms nothing. */
/** The notice's cancel link, confirmed with a button (a GET changes nothing: mail scanners open links). */
export function emailCancelPage(t: PageText, input: { action: string; token: string }): string {
  return layout(
    t,
    t('email.cancelTitle'),
    html`<h1>${t('email.cancelTitle')}</h1>
<p class="lead">${t('email.cancelLead')}</p>
<form method="post" action="${input.action}">
<input type="hidden" name="token" value="${input.token}">
<button type="submit">${t('email.cancelSubmit')}</button>
</form>`,
  );
}

export function emailConfirmPage(t: PageText, input: { action: string; token: string; newEmail: string }): string {
  return layout(
    t,
    t('email.confirmTitle'),
    html`<h1>${t('email.confirmTitle')}</h1>
<p class="lead">${richText(t, 'email.confirmLead', { email: html`<strong>${input.newEmail}</strong>` })}</p>
<form method="post" action="${input.action}">
<input type="hidden" name="token" value="${input.token}">
<button type="submit">${t('email.confirmSubmit')}</button>
</form>`,
  );
}
