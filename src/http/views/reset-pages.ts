// The pages of "Forgot your password?": asking for a link, being told to look in one's mail, choosing the new
// password, and the end. No script; each field has its label, and an error is tied to its field (aria-describedby).
import { html } from '../../html.js';
import { layout } from './layout.js';

export interface ForgotPageInput {
  action: string;
  /** The authorization request to go back to afterwards, carried through the form. */
  interactionId?: string | undefined;
  login?: string | undefined;
  error?: string | undefined;
  /** Where "Back to sign in" leads. */
  signInUrl: string;
}

export function forgotPage(input: ForgotPageInput): string {
  return layout(
    'Forgot your password?',
    html`<h1>Forgot your password?</h1>
<p class="lead">Type your username or email address. If an account matches, we send a link to its email address to choose a new password.</p>
${input.error ? html`<div class="error" role="alert" id="login-error">${input.error}</div>` : ''}
<form method="post" action="${input.action}">
${input.interactionId ? html`<input type="hidden" name="interaction" value="${input.interactionId}">` : ''}
<label for="login">Username or email</label>
<input type="text" id="login" name="login" value="${input.login ?? ''}" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus${input.error ? html` aria-describedby="login-error" aria-invalid="true"` : ''}>
<button type="submit">Send me a link</button>
</form>
<p><a href="${input.signInUrl}">Back to sign in</a></p>`,
  );
}

/** The same page whether or not an account matched. */
export function forgotSentPage(input: { minutes: number; signInUrl: string }): string {
  return layout(
    'Check your email',
    html`<h1>Check your email</h1>
<div class="notice" role="status">If an account matches what you typed, we have sent a link to its email address.</div>
<p>The link works once, for ${input.minutes} minutes. If no email arrives within a few minutes, look in your spam folder, or ask again.</p>
<p><a href="${input.signInUrl}">Back to sign in</a></p>`,
  );
}

export interface ResetPageInput {
  action: string;
  token: string;
  username: string;
  minLength: number;
  /** The user has an authenticator app: its code is asked for too. */
  askCode: boolean;
  error?: { field: 'password' | 'repeat' | 'code'; message: string } | undefined;
}

export function resetPage(input: ResetPageInput): string {
  const err = input.error;
  const described = (field: string) => (err?.field === field ? html` aria-describedby="${field}-error" aria-invalid="true"` : '');
  const message = (field: string) => (err?.field === field ? html`<p class="field-error" id="${field}-error">${err.message}</p>` : '');
  return layout(
    'Choose a new password',
    html`<h1>Choose a new password</h1>
<p class="lead">for <strong>${input.username}</strong>. Setting it signs you out on every device and ends the access applications had through your sign-ins.</p>
${err ? html`<div class="error" role="alert">${err.message}</div>` : ''}
<form method="post" action="${input.action}">
<input type="hidden" name="token" value="${input.token}">
<input type="text" name="username" value="${input.username}" autocomplete="username" hidden>
<label for="password">New password</label>
<p class="meta" id="password-hint">At least ${input.minLength} characters. A few unrelated words make a good one; common passwords are refused.</p>
<input type="password" id="password" name="password" autocomplete="new-password" minlength="${input.minLength}" required autofocus aria-describedby="password-hint${err?.field === 'password' ? ' password-error' : ''}"${err?.field === 'password' ? html` aria-invalid="true"` : ''}>
${message('password')}
<label for="repeat">Repeat it</label>
<input type="password" id="repeat" name="repeat" autocomplete="new-password" required${described('repeat')}>
${message('repeat')}
${
  input.askCode
    ? html`<label for="code">Code from your authenticator app</label>
<input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" maxlength="8" required${described('code')}>
${message('code')}`
    : ''
}
<button type="submit">Set the new password</button>
</form>`,
  );
}

export function resetDonePage(input: { continueUrl: string; continueLabel: string }): string {
  return layout(
    'Password changed',
    html`<h1>Password changed</h1>
<div class="notice" role="status">Your password was changed, and you were signed out on every device. We have sent you an email about it.</div>
<p><a href="${input.continueUrl}">${input.continueLabel}</a></p>`,
  );
}

export function resetInvalidPage(input: { forgotUrl: string }): string {
  return layout(
    'This link no longer works',
    html`<h1>This link no longer works</h1>
<div class="error" role="alert">The link has expired, was already used, or a newer link was sent since. Your password has not changed.</div>
<p><a href="${input.forgotUrl}">Ask for a new link</a></p>`,
  );
}
