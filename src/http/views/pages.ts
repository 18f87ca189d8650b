// The pages a person sees: sign in, consent, sign out, and an error that cannot go back to the application.
import { SCOPE_DESCRIPTIONS, type Scope } from '../../domain/scope.js';
import { DEVICE_SIGNAL_FIELDS, DEVICE_SIGNALS_SCRIPT } from './device-signals-script.js';
import { html, SafeHtml } from './html.js';
import { headersAllowingScript, layout } from './layout.js';

/** The login page runs its device-signals script, and no other; every other page runs none. */
export const LOGIN_PAGE_HEADERS = headersAllowingScript(DEVICE_SIGNALS_SCRIPT);

export interface LoginPageInput {
  action: string;
  csrfToken: string;
  clientName: string;
  login?: string;
  error?: string;
  /** Something to tell that is not an error (e.g. why the user was signed out). */
  notice?: string;
}

export function loginPage(input: LoginPageInput): string {
  return layout(
    'Sign in',
    html`<h1>Sign in</h1>
<p class="lead">to continue to ${input.clientName}</p>
${input.notice ? html`<div class="notice" role="status">${input.notice}</div>` : ''}
${input.error ? html`<div class="error" role="alert">${input.error}</div>` : ''}
<form method="post" action="${input.action}" data-device-signals>
<input type="hidden" name="csrf" value="${input.csrfToken}">
${DEVICE_SIGNAL_FIELDS.map((name) => html`<input type="hidden" name="${name}" value="">`)}
<label for="login">Username or email</label>
<input type="text" id="login" name="login" value="${input.login ?? ''}" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<script>${new SafeHtml(DEVICE_SIGNALS_SCRIPT)}</script>`,
  );
}

export interface SecondFactorPageInput {
  action: string;
  /** The challenge cookie's value, echoed as the form's CSRF token (as the sign-in form echoes its binding). */
  csrfToken: string;
  error?: string;
  /** `totp`: the code of the user's authenticator app; `otp` (default): the code we sent. */
  method?: 'otp' | 'totp';
}

/** Asks for the code; says where a sent one went only as "to you", never the address. */
export function secondFactorPage(input: SecondFactorPageInput): string {
  const where =
    input.method === 'totp' ? 'Enter the six-digit code your authenticator app shows now.' : 'We have sent you a six-digit code.';
  return layout(
    'Confirm it is you',
    html`<h1>Confirm it is you</h1>
<p class="lead">This sign-in looks different from your usual ones. ${where}</p>
${input.error ? html`<div class="error" role="alert">${input.error}</div>` : ''}
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<label for="code">Code</label>
<input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" maxlength="8" required autofocus>
<button type="submit">Continue</button>
</form>`,
  );
}

export interface ConsentPageInput {
  action: string;
  csrfToken: string;
  clientName: string;
  scopes: readonly Scope[];
  /** The signed-in account that would consent, so that a person on a shared browser sees whose data is shared. */
  account: string;
}

export function consentPage(input: ConsentPageInput): string {
  return layout(
    'Allow access',
    html`<h1>Allow access?</h1>
<p>Signed in as <strong>${input.account}</strong></p>
<p class="lead">${input.clientName} is asking to:</p>
<ul class="scopes">
${input.scopes.map((s) => html`<li>${SCOPE_DESCRIPTIONS[s]}</li>`)}
</ul>
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`,
  );
}

export function errorPage(message: string): string {
  return layout('Sign-in error', html`<h1>Something went wrong</h1><p class="lead">${message}</p>`);
}

export interface LogoutConfirmPageInput {
  action: string;
  csrfToken: string;
  /** The client that asked, if the request named one. */
  clientName: string | null;
  /** Carried to the answer, which validates them again. */
  hidden: Record<string, string>;
}

export function logoutConfirmPage(input: LogoutConfirmPageInput): string {
  return layout(
    'Sign out',
    html`<h1>Sign out?</h1>
<p class="lead">${input.clientName ? html`${input.clientName} asks to sign you out of this site.` : 'A site asks to sign you out.'} Do you want to sign out?</p>
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
${Object.entries(input.hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit" name="decision" value="logout">Sign out</button>
<button type="submit" name="decision" value="stay" class="secondary">Stay signed in</button>
</form>`,
  );
}

export function signedOutPage(signedOut: boolean): string {
  return signedOut
    ? layout('Signed out', html`<h1>You are signed out</h1><p class="lead">You can close this window.</p>`)
    : layout('Still signed in', html`<h1>You are still signed in</h1><p class="lead">You can close this window.</p>`);
}
