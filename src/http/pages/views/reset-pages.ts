// The pages of "Forgot your password?": asking for a link, being told to look in one's mail, choosing the new
// password, and the end. No script; each field has its label, and an error is tied to its field (aria-describedby).
import { html } from '../../../html.js';
import { fieldError, newPasswordFields } from './field-error.js';
import { layout, type PageText } from '../../views/layout.js';
import { richText } from '../../views/rich-text.js';

export interface ForgotPageInput {
  action: string;
  /** The authorization request to go back to afterwards, carried through the form. */
  interactionId?: string | undefined;
  login?: string | undefined;
  error?: string | undefined;
  /** Where "Back to sign in" leads. */
  signInUrl: string;
}

export function forgotPage(t: PageText, input: ForgotPageInput): string {
  return layout(
    t,
    t('signIn.forgot'),
    html`<h1>${t('signIn.forgot')}</h1>
<p class="lead">${t('forgot.lead')}</p>
${input.error ? html`<div class="error" role="alert" id="login-error">${input.error}</div>` : ''}
<form method="post" action="${input.action}">
${input.interactionId ? html`<input type="hidden" name="interaction" value="${input.interactionId}">` : ''}
<label for="login">${t('signIn.login')}</label>
<input type="text" id="login" name="login" value="${input.login ?? ''}" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus${input.error ? html` aria-describedby="login-error" aria-invalid="true"` : ''}>
<button type="submit">${t('forgot.submit')}</button>
</form>
<p><a href="${input.signInUrl}">${t('forgot.back')}</a></p>`,
  );
}

/** The same page whether or not an account matched. */
export function forgotSentPage(t: PageText, input: { minutes: number; signInUrl: string }): string {
  return layout(
    t,
    t('forgot.sentTitle'),
    html`<h1>${t('forgot.sentTitle')}</h1>
<div class="notice" role="status">${t('forgot.sent')}</div>
<p>${t('forgot.sentHelp', { minutes: input.minutes })}</p>
<p><a href="${input.signInUrl}">${t('forgot.back')}</a></p>`,
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

export function resetPage(t: PageText, input: ResetPageInput): string {
  const err = input.error;
  const code = fieldError(err, 'code');
  return layout(
    t,
    t('reset.title'),
    html`<h1>${t('reset.title')}</h1>
<p class="lead">${richText(t, 'reset.lead', { username: html`<strong>${input.username}</strong>` })}</p>
${err ? html`<div class="error" role="alert">${err.message}</div>` : ''}
<form method="post" action="${input.action}">
<input type="hidden" name="token" value="${input.token}">
<input type="text" name="username" value="${input.username}" autocomplete="username" hidden>
${newPasswordFields({
  label: t('common.newPassword'),
  repeatLabel: t('reset.repeat'),
  hint: t('common.passwordHint', { min: input.minLength }),
  minLength: input.minLength,
  error: err,
  autofocus: true,
})}
${
  input.askCode
    ? html`<label for="code">${t('reset.code')}</label>
<input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" maxlength="8" required${code.attrs}>
${code.message}`
    : ''
}
<button type="submit">${t('reset.submit')}</button>
</form>`,
  );
}

export function resetDonePage(t: PageText, input: { continueUrl: string; continueLabel: string }): string {
  return layout(
    t,
    t('reset.doneTitle'),
    html`<h1>${t('reset.doneTitle')}</h1>
<div class="notice" role="status">${t('reset.done')}</div>
<p><a href="${input.continueUrl}">${input.continueLabel}</a></p>`,
  );
}

/** A link of a user whose password their directory holds: nothing to set here (Keycloak's READ_ONLY edit mode). */
export function resetManagedPage(t: PageText, input: { signInUrl: string }): string {
  return layout(
    t,
    t('password.directoryManagedTitle'),
    html`<h1>${t('password.directoryManagedTitle')}</h1>
<div class="error" role="alert">${t('password.directoryManaged')}</div>
<p><a href="${input.signInUrl}">${t('reset.signIn')}</a></p>`,
  );
}

export function resetInvalidPage(t: PageText, input: { forgotUrl: string }): string {
  return layout(
    t,
    t('reset.invalidTitle'),
    html`<h1>${t('reset.invalidTitle')}</h1>
<div class="error" role="alert">${t('reset.invalid')}</div>
<p><a href="${input.forgotUrl}">${t('reset.askAgain')}</a></p>`,
  );
}
