// The upstream connections on the sign-in page (one button each), and the page where a person proves they own the
// local account an upstream account's verified address belongs to before the two are linked.
import { html, SafeHtml } from '../../html.js';
import { layout, type PageText } from './layout.js';
import { passkeySignInForm, type PasskeyForm } from './pages.js';
import { PASSKEY_SCRIPT } from './passkey-script.js';

export interface ConnectionButtons {
  /** The interaction the buttons resume, and its binding echoed as the CSRF field. */
  interactionId: string;
  csrfToken: string;
  items: ReadonlyArray<{ action: string; name: string; icon: string | null }>;
}

/** A POST per connection (a form, so that no sign-in starts from a mere link another site could embed). */
export function connectionButtons(t: PageText, buttons: ConnectionButtons | undefined): SafeHtml | '' {
  if (!buttons || buttons.items.length === 0) return '';
  return html`<div class="connections">
${buttons.items.map(
  (c) => html`<form method="post" action="${c.action}">
<input type="hidden" name="interaction" value="${buttons.interactionId}">
<input type="hidden" name="csrf" value="${buttons.csrfToken}">
<button type="submit" class="secondary">${c.icon ? html`<img src="${c.icon}" alt="" width="20" height="20"> ` : ''}${t('connections.signInWith', { provider: c.name })}</button>
</form>`,
)}
</div>`;
}

export interface LinkProofPageInput {
  action: string;
  provider: string;
  email: string;
  username: string;
  error?: string;
  /** The account has a passkey: offered ahead of the password (the page then runs the passkey script). */
  passkey?: { form: PasskeyForm; csrfToken: string };
}

/** Says what is asked and why: the local account's passkey or password, to link the upstream account to it. */
export function linkProofPage(t: PageText, input: LinkProofPageInput): string {
  const lead = input.passkey ? 'connections.linkLeadPasskey' : 'connections.linkLead';
  return layout(
    t,
    t('connections.linkTitle'),
    html`<h1>${t('connections.linkTitle')}</h1>
<p class="lead">${t(lead, { email: input.email, provider: input.provider })}</p>
${input.error ? html`<div class="error" role="alert">${input.error}</div>` : ''}
${input.passkey ? passkeySignInForm(t, input.passkey.form, input.passkey.csrfToken, t('secondFactor.usePasskey'), false) : ''}
<form method="post" action="${input.action}">
<input type="text" name="username" value="${input.username}" autocomplete="username" hidden readonly>
<label for="password">${t('signIn.password')}</label>
<input type="password" id="password" name="password" autocomplete="current-password" required autofocus>
<button type="submit">${t('connections.linkSubmit')}</button>
</form>
${input.passkey ? html`<script>${new SafeHtml(PASSKEY_SCRIPT)}</script>` : ''}`,
  );
}
