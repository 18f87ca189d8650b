// The account page of a signed-in user (devices, authenticator app) and the page that enrols an authenticator.
// Every action is a plain form post carrying the page's CSRF token; only adding a passkey runs script (WebAuthn has
// no form of its own).
import type { AuthenticatorState } from '../../domain/accounts/authenticator.js';
import type { Passkey } from '../../domain/accounts/passkeys.js';
import type { AccountDevice } from '../../domain/risk/devices.js';
import { html, SafeHtml } from '../../html.js';
import { layout } from './layout.js';
import { PASSKEY_SCRIPT } from './passkey-script.js';

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
  notice?: string;
  error?: string;
}

export function accountPage(input: AccountPageInput): string {
  const csrf = html`<input type="hidden" name="csrf" value="${input.csrfToken}">`;
  const device = (d: AccountDevice) => html`<li data-device="${d.id}">
<strong>${d.label}</strong>${d.current ? html` <span class="current">(this device)</span>` : ''}
<p class="meta">First seen <time datetime="${d.firstSeenAt.toISOString()}">${when(d.firstSeenAt)}</time>,
last seen <time datetime="${d.lastSeenAt.toISOString()}">${when(d.lastSeenAt)}</time>,
${d.signInCount} sign-in${d.signInCount === 1 ? '' : 's'}${d.trusted ? ', verified with a second factor' : ''}</p>
<form method="post" action="${input.base}/devices/${d.id}/revoke">
${csrf}
<button type="submit" class="secondary" aria-label="${d.current ? `Revoke and sign out ${d.label} (this device)` : `Revoke ${d.label}`}">Revoke${d.current ? ' and sign out' : ''}</button>
</form>
</li>`;
  return layout(
    'Your account',
    html`<h1>Your account</h1>
<p class="lead">Signed in as ${input.displayName}. <a href="${input.signOutUrl}">Sign out</a></p>
${input.notice ? html`<div class="notice" role="status">${input.notice}</div>` : ''}
${input.error ? html`<div class="error" role="alert">${input.error}</div>` : ''}
<h2>Your devices</h2>
<p class="meta">Revoking a device signs it out and ends the access it gave applications.</p>
${
  input.devices.length === 0
    ? html`<p>No devices yet.</p>`
    : html`<ul class="devices">
${input.devices.map(device)}
</ul>`
}
<h2>Email address</h2>
<p>${input.email ? html`${input.email}${input.emailVerified ? ' (confirmed)' : ' (not confirmed)'}` : 'None yet.'}
<a href="${input.base}/email">${input.email ? 'Change your email address' : 'Add an email address'}</a></p>
<h2>Password</h2>
<p><a href="${input.base}/password">Change your password</a></p>
<h2>Passkeys</h2>
${passkeySection(input, csrf)}
<h2>Authenticator app</h2>
${authenticatorSection(input, csrf)}`,
  );
}

function passkeySection(input: AccountPageInput, csrf: SafeHtml) {
  const item = (p: Passkey) => html`<li data-passkey="${p.id}">
<strong>${p.name}</strong>
<p class="meta">Added <time datetime="${p.createdAt.toISOString()}">${when(p.createdAt)}</time>,
${p.lastUsedAt ? html`last used <time datetime="${p.lastUsedAt.toISOString()}">${when(p.lastUsedAt)}</time>` : 'never used'}${p.synced ? ', synced between your devices' : ''}</p>
<form method="post" action="${input.base}/passkeys/${p.id}/rename">
${csrf}
<label for="passkey-name-${p.id}">New name for ${p.name}</label>
<input type="text" id="passkey-name-${p.id}" name="name" value="${p.name}" maxlength="64" required>
<button type="submit" class="secondary">Rename</button>
</form>
<form method="post" action="${input.base}/passkeys/${p.id}/delete">
${csrf}
<button type="submit" class="secondary" aria-label="Delete ${p.name}">Delete</button>
</form>
</li>`;
  return html`<p>A passkey signs you in without a password, with your fingerprint, face or device PIN.</p>
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
<button type="submit">Add a passkey</button>
</form>`
    : html`<p class="meta">Passkeys need this service at a domain name; it is reached by an address.</p>`
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
export function newPasskeyPage(input: NewPasskeyPageInput): string {
  return layout(
    'Add a passkey',
    html`<h1>Add a passkey</h1>
<p class="lead">Name the passkey, then follow your browser's steps to create it on this device or on your phone.</p>
${input.error ? html`<div class="error" role="alert">${input.error}</div>` : ''}
<noscript><div class="error">Creating a passkey needs JavaScript.</div></noscript>
<form method="post" action="${input.base}/passkeys" data-passkey="create" data-options="${input.base}/passkeys/options">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<input type="hidden" name="credential" value="">
<label for="passkey-name">Name</label>
<input type="text" id="passkey-name" name="name" value="${input.name ?? ''}" maxlength="64" placeholder="e.g. My laptop" required>
<div class="error" role="alert" data-passkey-error hidden></div>
<button type="button" data-passkey-start hidden>Create the passkey</button>
</form>
<p><a href="${input.base}">Back to your account</a></p>
<script>${new SafeHtml(PASSKEY_SCRIPT)}</script>`,
  );
}

function authenticatorSection(input: AccountPageInput, csrf: ReturnType<typeof html>) {
  switch (input.authenticator) {
    case 'enrolled':
      return html`<p>An authenticator app is set up: sign-ins that look unusual ask for its code.</p>
<form method="post" action="${input.base}/totp/remove">
${csrf}
<label for="remove-code">Code from the app, to remove it</label>
<input type="text" id="remove-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" maxlength="8" required>
<button type="submit" class="secondary">Remove the authenticator app</button>
</form>`;
    case 'pending':
    case 'none':
      return html`<p>Set up an authenticator app on your phone: sign-ins that look unusual then ask for its code instead
of sending you one.</p>
${input.authenticator === 'pending' ? html`<p><a href="${input.base}/totp">Finish setting up the app</a></p>` : ''}
<form method="post" action="${input.base}/totp">
${csrf}
<button type="submit">${input.authenticator === 'pending' ? 'Start again with a new key' : 'Set up an authenticator app'}</button>
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

export function totpEnrolmentPage(input: TotpEnrolmentPageInput): string {
  return layout(
    'Set up an authenticator app',
    html`<h1>Set up an authenticator app</h1>
<p class="lead">Scan this code with your authenticator app, then type the six-digit code it shows.</p>
${input.error ? html`<div class="error" role="alert">${input.error}</div>` : ''}
<img class="qr" src="${input.qrDataUrl}" alt="QR code to scan with the authenticator app">
<p>Cannot scan it? Add an account by hand with this key (time-based, 6 digits, every 30 seconds):</p>
<code class="key" id="manual-key">${input.manualKey}</code>
<form method="post" action="${input.base}/totp/confirm">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<label for="code">Code from the app</label>
<input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" maxlength="8" required autofocus>
<button type="submit">Confirm</button>
</form>
<p><a href="${input.base}">Back to your account</a></p>`,
  );
}

export function accountErrorPage(base: string, title: string, message: string): string {
  return layout(title, html`<h1>${title}</h1><p class="lead">${message}</p><p><a href="${base}">Back to your account</a></p>`);
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
export function passwordChangePage(input: PasswordChangePageInput): string {
  const err = input.error;
  const invalid = (field: string) => (err?.field === field ? html` aria-invalid="true"` : '');
  const message = (field: string) => (err?.field === field ? html`<p class="field-error" id="${field}-error">${err.message}</p>` : '');
  const describedBy = (field: string, hint?: string) => {
    const ids = [hint, err?.field === field ? `${field}-error` : undefined].filter(Boolean).join(' ');
    return ids ? html` aria-describedby="${ids}"` : '';
  };
  return layout(
    'Change your password',
    html`<h1>Change your password</h1>
<p class="lead">Changing it signs you out on your other devices; this browser stays signed in.</p>
${err ? html`<div class="error" role="alert">${err.message}</div>` : ''}
<form method="post" action="${input.base}/password">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<input type="text" name="username" value="${input.username}" autocomplete="username" hidden>
<label for="current">Current password</label>
<input type="password" id="current" name="current" autocomplete="current-password" required autofocus${describedBy('current')}${invalid('current')}>
${message('current')}
<label for="password">New password</label>
<p class="meta" id="password-hint">At least ${input.minLength} characters. A few unrelated words make a good one; common passwords are refused.</p>
<input type="password" id="password" name="password" autocomplete="new-password" minlength="${input.minLength}" required${describedBy('password', 'password-hint')}${invalid('password')}>
${message('password')}
<label for="repeat">Repeat the new password</label>
<input type="password" id="repeat" name="repeat" autocomplete="new-password" required${describedBy('repeat')}${invalid('repeat')}>
${message('repeat')}
<button type="submit">Change the password</button>
</form>
<p><a href="${input.base}">Back to your account</a></p>`,
  );
}

export interface EmailChangePageInput {
  base: string;
  csrfToken: string;
  username: string;
  current: string | null;
  newEmail?: string | undefined;
  error?: { field: 'email' | 'password' | 'form'; message: string } | undefined;
}

/** Changing the email address: the new one and the current password. Each error is tied to its field. */
export function emailChangePage(input: EmailChangePageInput): string {
  const err = input.error;
  const attrs = (field: string) => (err?.field === field ? html` aria-describedby="${field}-error" aria-invalid="true"` : '');
  const message = (field: string) => (err?.field === field ? html`<p class="field-error" id="${field}-error">${err.message}</p>` : '');
  return layout(
    'Change your email address',
    html`<h1>Change your email address</h1>
<p class="lead">${input.current ? html`It is ${input.current} now. ` : ''}We send a link to the new address; it changes once you open it.</p>
${err ? html`<div class="error" role="alert">${err.message}</div>` : ''}
<form method="post" action="${input.base}/email">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<input type="text" name="username" value="${input.username}" autocomplete="username" hidden>
<label for="email">New email address</label>
<input type="email" id="email" name="email" value="${input.newEmail ?? ''}" autocomplete="email" autocapitalize="none" spellcheck="false" required autofocus${attrs('email')}>
${message('email')}
<label for="password">Your password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${attrs('password')}>
${message('password')}
<button type="submit">Send the link</button>
</form>
<p><a href="${input.base}">Back to your account</a></p>`,
  );
}

/** A page with one message and one link (sent, confirmed, refused). */
export function accountMessagePage(input: {
  title: string;
  message: string;
  link: { url: string; label: string };
  alert?: boolean;
}): string {
  return layout(
    input.title,
    html`<h1>${input.title}</h1>
<div class="${input.alert ? 'error' : 'notice'}" role="${input.alert ? 'alert' : 'status'}">${input.message}</div>
<p><a href="${input.link.url}">${input.link.label}</a></p>`,
  );
}

/** The mailed link, opened: a button, so that a mail scanner fetching links confirms nothing. */
export function emailConfirmPage(input: { action: string; token: string; newEmail: string }): string {
  return layout(
    'Confirm your new email address',
    html`<h1>Confirm your new email address</h1>
<p class="lead">Use <strong>${input.newEmail}</strong> for your account from now on?</p>
<form method="post" action="${input.action}">
<input type="hidden" name="token" value="${input.token}">
<button type="submit">Use this address</button>
</form>`,
  );
}
