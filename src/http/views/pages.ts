// The pages a person sees: sign in, consent, sign out, an error that cannot go back to the application, and one
// that goes back to an unverified application only if the person chooses.
import type { AuthorizationResponse } from '../../domain/authorization/authorization-response.js';
import { redirectHost, withResponseParams } from '../../domain/authorization/redirect-uri.js';
import { SCOPE_DESCRIPTIONS, type Scope } from '../../domain/scope.js';
import type { ClientLinks } from '../../domain/clients/clients.js';
import { DEVICE_SIGNAL_FIELDS, DEVICE_SIGNALS_SCRIPT } from './device-signals-script.js';
import { html, SafeHtml } from '../../html.js';
import { headersAllowingScripts, layout, type PageText } from './layout.js';
import { PASSKEY_SCRIPT } from './passkey-script.js';
import { connectionButtons, type ConnectionButtons } from './connection-pages.js';
import { richText } from './rich-text.js';

/**
 * The login page runs its device-signals script and its passkey script (which fetches its WebAuthn options from this
 * origin), and no other; the second-factor page and the account's passkey pages run the passkey script.
 */
export const LOGIN_PAGE_HEADERS = headersAllowingScripts([DEVICE_SIGNALS_SCRIPT, PASSKEY_SCRIPT], { fetchSelf: true });
export const PASSKEY_PAGE_HEADERS = headersAllowingScripts([PASSKEY_SCRIPT], { fetchSelf: true });

/** Where a passkey form gets its options (a form post of its CSRF field, answered with JSON) and posts the credential. */
export interface PasskeyForm {
  optionsUrl: string;
  action: string;
}

/**
 * A form that signs in (or answers a second factor) with a passkey: hidden until the script finds WebAuthn in the
 * browser. `conditional`: the username field of the page also offers the passkeys in its autofill.
 */
export function passkeySignInForm(t: PageText, form: PasskeyForm, csrfToken: string, label: string, conditional: boolean): SafeHtml {
  return html`<form method="post" action="${form.action}" data-passkey="get" data-options="${form.optionsUrl}" data-unused="${t('passkey.unused')}" data-failed="${t('passkey.failed')}"${conditional ? new SafeHtml(' data-conditional') : ''}>
<input type="hidden" name="csrf" value="${csrfToken}">
<input type="hidden" name="credential" value="">
<div class="error" role="alert" data-passkey-error hidden></div>
<button type="button" data-passkey-start hidden>${label}</button>
</form>`;
}

export interface LoginPageInput {
  action: string;
  csrfToken: string;
  clientName: string;
  login?: string;
  error?: string;
  /** Something to tell that is not an error (e.g. why the user was signed out). */
  notice?: string;
  /** Where "Forgot your password?" leads (src/http/pages/password-reset.ts). */
  forgotUrl?: string;
  /** Where "Create an account" leads, when SIGNUP=open (src/http/pages/signup.ts). */
  signupUrl?: string | undefined;
  /** Offer "Sign in with a passkey", and the passkeys in the username field's autofill. */
  passkey?: PasskeyForm;
  /** One button per enabled upstream connection (src/domain/connections/). */
  connections?: ConnectionButtons | undefined;
}

export function loginPage(t: PageText, input: LoginPageInput): string {
  return layout(
    t,
    t('signIn.title'),
    html`<h1>${t('signIn.title')}</h1>
<p class="lead">${t('signIn.lead', { client: input.clientName })}</p>
${input.notice ? html`<div class="notice" role="status">${input.notice}</div>` : ''}
${input.error ? html`<div class="error" role="alert">${input.error}</div>` : ''}
<form method="post" action="${input.action}" data-device-signals>
<input type="hidden" name="csrf" value="${input.csrfToken}">
${DEVICE_SIGNAL_FIELDS.map((name) => html`<input type="hidden" name="${name}" value="">`)}
<label for="login">${t('signIn.login')}</label>
<input type="text" id="login" name="login" value="${input.login ?? ''}" autocomplete="${input.passkey ? 'username webauthn' : 'username'}" autocapitalize="none" spellcheck="false" required autofocus>
<label for="password">${t('signIn.password')}</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">${t('signIn.submit')}</button>
</form>
${input.forgotUrl ? html`<p><a href="${input.forgotUrl}">${t('signIn.forgot')}</a></p>` : ''}
${input.passkey ? passkeySignInForm(t, input.passkey, input.csrfToken, t('signIn.passkey'), true) : ''}
${connectionButtons(t, input.connections)}
${input.signupUrl ? html`<p>${t('signIn.newHere')} <a href="${input.signupUrl}">${t('signIn.createAccount')}</a></p>` : ''}
<script>${new SafeHtml(DEVICE_SIGNALS_SCRIPT)}</script>
${input.passkey ? html`<script>${new SafeHtml(PASSKEY_SCRIPT)}</script>` : ''}`,
  );
}

export interface SecondFactorPageInput {
  action: string;
  /** The challenge cookie's value, echoed as the form's CSRF token (as the sign-in form echoes its binding). */
  csrfToken: string;
  error?: string;
  /** `totp`: the code of the user's authenticator app; `otp` (default): the code we sent. */
  method?: 'otp' | 'totp';
  /** The user has a passkey: offered first, the code below it. */
  passkey?: PasskeyForm;
}

/** Asks for the code; says where a sent one went only as "to you", never the address. */
export function secondFactorPage(t: PageText, input: SecondFactorPageInput): string {
  const where = input.method === 'totp' ? t('secondFactor.totp') : t('secondFactor.sent');
  return layout(
    t,
    t('secondFactor.title'),
    html`<h1>${t('secondFactor.title')}</h1>
<p class="lead">${t('secondFactor.lead')} ${input.passkey ? t('secondFactor.passkeyOrCode') : ''} ${where}</p>
${input.error ? html`<div class="error" role="alert">${input.error}</div>` : ''}
${input.passkey ? passkeySignInForm(t, input.passkey, input.csrfToken, t('secondFactor.usePasskey'), false) : ''}
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<label for="code">${t('common.code')}</label>
<input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" maxlength="8" required autofocus>
<button type="submit">${t('common.continue')}</button>
</form>
${input.passkey ? html`<script>${new SafeHtml(PASSKEY_SCRIPT)}</script>` : ''}`,
  );
}

export interface ConsentPageInput {
  action: string;
  csrfToken: string;
  clientName: string;
  scopes: readonly Scope[];
  /** Scopes of resource servers (RFC 8707), each with the operator's own description (shown as written, not translated). */
  apiScopes?: ReadonlyArray<{ name: string; description: string }> | undefined;
  /** The signed-in account that would consent, so that a person on a shared browser sees whose data is shared. */
  account: string;
  /** Where the answer goes: the request's verified redirect URI. */
  redirectUri: string;
  /** The client registered itself: its name is the registrant's word. */
  selfRegistered: boolean;
  /** RFC 7591 2: what the client registered about itself; the logo is shown only for a client an admin registered. */
  links: ClientLinks;
}

/** Said in words, not only by colour, where a self-registered client asks the person for something. */
export function unverifiedWarning(t: PageText, clientName: string): SafeHtml {
  return html`<div class="unverified" role="note"><strong>${t('unverified.title')}</strong>
${t('unverified.body', { client: clientName })}</div>`;
}

export function consentPage(t: PageText, input: ConsentPageInput): string {
  return layout(
    t,
    t('consent.title'),
    html`<h1>${t('consent.heading')}</h1>
<p>${richText(t, 'consent.signedInAs', { account: html`<strong>${input.account}</strong>` })}</p>
${input.selfRegistered ? unverifiedWarning(t, input.clientName) : ''}
${input.links.logoUri && !input.selfRegistered ? html`<img class="client-logo" src="${input.links.logoUri}" alt="">` : ''}
<p class="lead">${t('consent.asking', { client: input.clientName })}</p>
<ul class="scopes">
${input.scopes.map((s) => html`<li>${t(SCOPE_DESCRIPTIONS[s])}</li>`)}
${(input.apiScopes ?? []).map((s) => html`<li>${s.description}</li>`)}
</ul>
<p>${richText(t, 'consent.sentBack', { host: html`<strong>${redirectHost(input.redirectUri)}</strong>` })}</p>
${clientLinks(t, input.clientName, input.links)}
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<button type="submit" name="decision" value="allow">${t('consent.allow')}</button>
<button type="submit" name="decision" value="deny" class="secondary">${t('consent.deny')}</button>
</form>`,
  );
}

/**
 * The client's own pages, each opening in a new tab so that the consent stays where it is; named with the client
 * ("Example's privacy policy") so that a link read out of context still says whose it is (WCAG 2.1 2.4.4).
 */
function clientLinks(t: PageText, client: string, links: ClientLinks): SafeHtml | '' {
  const items = (
    [
      [links.clientUri, 'consent.website'],
      [links.policyUri, 'consent.privacy'],
      [links.tosUri, 'consent.terms'],
    ] as const
  ).filter(([url]) => url !== null);
  if (items.length === 0) return '';
  return html`<p class="client-links">${items.map(
    ([url, key]) => html`<a href="${url!}" target="_blank" rel="noopener noreferrer">${t(key, { client })}</a>`,
  )}</p>`;
}

export function errorPage(t: PageText, message: string): string {
  return layout(t, t('error.title'), html`<h1>${t('error.heading')}</h1><p class="lead">${message}</p>`);
}

/**
 * RFC 9700 4.11.2: an error response for a client whose redirect URI is not trusted, held back. The person reads
 * what went wrong and where the response would have gone, and may take it there: a plain link (query), or a form
 * they submit themselves (form_post). No script: nothing leaves this page unless the person chooses.
 */
/**
 * A link (a form, for form_post) that delivers an authorization response when the person follows it: for the pages
 * that stop before the client and let the person choose to go back.
 */
export function responseLink(response: AuthorizationResponse, label: string): SafeHtml {
  return response.mode === 'form_post'
    ? html`<form method="post" action="${response.redirectUri}">
${Object.entries(response.params).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit" class="secondary">${label}</button>
</form>`
    : html`<p><a href="${withResponseParams(response.redirectUri, response.params)}">${label}</a></p>`;
}

export function withheldErrorPage(t: PageText, input: { clientName: string; response: AuthorizationResponse }): string {
  const { error, error_description: description } = input.response.params;
  const host = redirectHost(input.response.redirectUri);
  return layout(
    t,
    t('error.title'),
    html`<h1>${t('withheld.heading')}</h1>
<p class="lead">${t('withheld.refused')} ${description ?? error}</p>
<p>${richText(t, 'withheld.wouldReturn', { host: html`<strong>${host}</strong>` })}</p>
${unverifiedWarning(t, input.clientName)}
<p>${t('withheld.trust')}</p>
${responseLink(input.response, t('withheld.returnAnyway', { host }))}`,
  );
}

export interface LogoutConfirmPageInput {
  action: string;
  csrfToken: string;
  /** The client that asked, if the request named one. */
  clientName: string | null;
  /** Carried to the answer, which validates them again. */
  hidden: Record<string, string>;
}

export function logoutConfirmPage(t: PageText, input: LogoutConfirmPageInput): string {
  return layout(
    t,
    t('logout.title'),
    html`<h1>${t('logout.heading')}</h1>
<p class="lead">${input.clientName ? t('logout.clientAsks', { client: input.clientName }) : t('logout.siteAsks')} ${t('logout.question')}</p>
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
${Object.entries(input.hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit" name="decision" value="logout">${t('logout.title')}</button>
<button type="submit" name="decision" value="stay" class="secondary">${t('logout.stay')}</button>
</form>`,
  );
}

export function signedOutPage(t: PageText, signedOut: boolean): string {
  return signedOut
    ? layout(t, t('logout.doneTitle'), html`<h1>${t('logout.doneHeading')}</h1><p class="lead">${t('common.closeWindow')}</p>`)
    : layout(t, t('logout.stayedTitle'), html`<h1>${t('logout.stayedHeading')}</h1><p class="lead">${t('common.closeWindow')}</p>`);
}
