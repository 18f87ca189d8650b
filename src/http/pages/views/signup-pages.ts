// The sign-up pages: the form (its device-signals script, as on the sign-in page), the code page, confirming a
// link, and the ends. Each field has its label; an error is tied to its field (aria-describedby, aria-invalid).
import type { FieldProblem } from '../../../domain/accounts/signup.js';
import { html, SafeHtml } from '../../../html.js';
import { DEVICE_SIGNAL_FIELDS, DEVICE_SIGNALS_SCRIPT } from '../../views/device-signals-script.js';
import { fieldError, newPasswordFields, type FieldError } from './field-error.js';
import { layout, type PageText } from '../../views/layout.js';

export interface SignupPageInput {
  action: string;
  interactionId?: string | undefined;
  /** An invitation's token and address: the address is shown, not typed. */
  invite?: { token: string; email: string } | undefined;
  /** SIGNUP_USERNAME=optional: ask for a username. */
  askUsername: boolean;
  minLength: number;
  values?: { email?: string; name?: string; username?: string } | undefined;
  problems?: readonly FieldProblem[] | undefined;
  /** An error of the whole form (throttled, refused). */
  error?: string | undefined;
  signInUrl: string;
}

/** The sign-up's problems, each in the page's language. */
function fieldErrors(t: PageText, problems: readonly FieldProblem[]): FieldError[] {
  return problems.map((p) => ({ field: p.field, message: t.text(p.message) }));
}

export function signupPage(t: PageText, input: SignupPageInput): string {
  const problems = input.problems ?? [];
  const v = input.values ?? {};
  const errors = fieldErrors(t, problems);
  const email = fieldError(errors, 'email');
  const name = fieldError(errors, 'name');
  const username = fieldError(errors, 'username', 'username-hint');
  return layout(
    t,
    t('signIn.createAccount'),
    html`<h1>${t('signIn.createAccount')}</h1>
${input.error ? html`<div class="error" role="alert">${input.error}</div>` : problems.length > 0 ? html`<div class="error" role="alert">${t('signup.fieldsProblem')}</div>` : ''}
<form method="post" action="${input.action}" data-device-signals>
${DEVICE_SIGNAL_FIELDS.map((n) => html`<input type="hidden" name="${n}" value="">`)}
${input.interactionId ? html`<input type="hidden" name="interaction" value="${input.interactionId}">` : ''}
${
  input.invite
    ? html`<input type="hidden" name="invite" value="${input.invite.token}">
<p>${t('signup.email')}: <strong>${input.invite.email}</strong></p>
<input type="text" name="email" value="${input.invite.email}" autocomplete="email" hidden>`
    : html`<label for="email">${t('signup.email')}</label>
<input type="email" id="email" name="email" value="${v.email ?? ''}" autocomplete="email" autocapitalize="none" spellcheck="false" required autofocus${email.attrs}>
${email.message}`
}
<label for="name">${t('signup.name')}</label>
<input type="text" id="name" name="name" value="${v.name ?? ''}" autocomplete="name" required${name.attrs}>
${name.message}
${
  input.askUsername
    ? html`<label for="username">${t('signup.username')}</label>
<p class="meta" id="username-hint">${t('signup.usernameHint')}</p>
<input type="text" id="username" name="username" value="${v.username ?? ''}" autocomplete="username" autocapitalize="none" spellcheck="false"${username.attrs}>
${username.message}`
    : ''
}
${newPasswordFields({
  label: t('signIn.password'),
  repeatLabel: t('signup.repeat'),
  hint: t('common.passwordHint', { min: input.minLength }),
  minLength: input.minLength,
  error: errors,
})}
<button type="submit">${t('signup.submit')}</button>
</form>
<p><a href="${input.signInUrl}">${t('signup.haveAccount')}</a></p>
<script>${new SafeHtml(DEVICE_SIGNALS_SCRIPT)}</script>`,
  );
}

/** After a sign-up: the same page whether or not the address was an account's already. */
export function signupCodePage(t: PageText, input: { action: string; minutes: number; error?: string | undefined }): string {
  return layout(
    t,
    t('signup.confirmTitle'),
    html`<h1>${t('signup.confirmTitle')}</h1>
<p class="lead">${t('signup.codeLead', { minutes: input.minutes })}</p>
${input.error ? html`<div class="error" role="alert" id="code-error">${input.error}</div>` : ''}
<form method="post" action="${input.action}">
<label for="code">${t('common.code')}</label>
<input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" maxlength="8" required autofocus${input.error ? html` aria-describedby="code-error" aria-invalid="true"` : ''}>
<button type="submit">${t('common.confirm')}</button>
</form>`,
  );
}

/** The link of the mail, opened: a button, so that a mail scanner fetching the link confirms nothing. */
export function signupConfirmPage(t: PageText, input: { action: string; token: string }): string {
  return layout(
    t,
    t('signup.confirmTitle'),
    html`<h1>${t('signup.confirmTitle')}</h1>
<p class="lead">${t('signup.confirmLead')}</p>
<form method="post" action="${input.action}">
<input type="hidden" name="token" value="${input.token}">
<button type="submit">${t('signup.confirmSubmit')}</button>
</form>`,
  );
}

export function signupEndPage(
  t: PageText,
  input: { title: string; message: string; link: { url: string; label: string }; alert?: boolean },
): string {
  return layout(
    t,
    input.title,
    html`<h1>${input.title}</h1>
<div class="${input.alert ? 'error' : 'notice'}" role="${input.alert ? 'alert' : 'status'}">${input.message}</div>
<p><a href="${input.link.url}">${input.link.label}</a></p>`,
  );
}
