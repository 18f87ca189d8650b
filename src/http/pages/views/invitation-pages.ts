// The pages of an invitation's link (src/http/pages/invitation.ts): what it invites to, with an Accept button (a GET
// accepts nothing: mail scanners open links), the way to sign in or sign up first, and the one page for a link that
// cannot be used, whatever the reason.
import { html } from '../../../html.js';
import { layout, type PageText } from '../../views/layout.js';

export interface InvitationPageInput {
  organization: string;
  inviter: string | null;
  roles: readonly string[];
}

function invitedTo(t: PageText, input: InvitationPageInput) {
  return html`<h1>${t('invitation.title', { organization: input.organization })}</h1>
<p class="lead">${
    input.inviter
      ? t('invitation.invitedBy', { inviter: input.inviter, organization: input.organization })
      : t('invitation.invited', { organization: input.organization })
  }</p>
<p class="meta">${t('invitation.roles', { roles: input.roles.join(', ') })}</p>`;
}

/** Signed in with the invited address: the Accept button, posting the session's form token. */
export function invitationAcceptPage(t: PageText, input: InvitationPageInput & { action: string; csrfToken: string }): string {
  return layout(
    t,
    t('invitation.title', { organization: input.organization }),
    html`${invitedTo(t, input)}
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<button type="submit">${t('invitation.accept')}</button>
</form>`,
  );
}

/** Nobody signed in: sign in (and come back here), or create an account first. */
export function invitationSignInPage(
  t: PageText,
  input: InvitationPageInput & { signInUrl: string; signUpUrl?: string | undefined },
): string {
  return layout(
    t,
    t('invitation.title', { organization: input.organization }),
    html`${invitedTo(t, input)}
<p>${t('invitation.signInFirst')}</p>
<p><a href="${input.signInUrl}">${t('invitation.signIn')}</a></p>
${input.signUpUrl ? html`<p class="meta">${t('invitation.signUpHint')}</p><p><a href="${input.signUpUrl}">${t('invitation.signUp')}</a></p>` : ''}`,
  );
}

/** Signed in, but not with the invited address (verified): nothing says which address, or whether it has an account. */
export function invitationWrongAddressPage(t: PageText, input: { signOutUrl: string }): string {
  return layout(
    t,
    t('invitation.wrongAddressTitle'),
    html`<h1>${t('invitation.wrongAddressTitle')}</h1>
<div class="error" role="alert">${t('invitation.wrongAddress')}</div>
<p><a href="${input.signOutUrl}">${t('invitation.signOut')}</a></p>`,
  );
}

/** Unknown, expired, used or revoked: the same page for all four. */
export function invitationUnusablePage(t: PageText): string {
  return layout(
    t,
    t('invitation.unusableTitle'),
    html`<h1>${t('invitation.unusableTitle')}</h1>
<div class="error" role="alert">${t('invitation.unusable')}</div>`,
  );
}

export function invitationAcceptedPage(t: PageText, input: { organization: string; accountUrl: string }): string {
  return layout(
    t,
    t('invitation.acceptedTitle', { organization: input.organization }),
    html`<h1>${t('invitation.acceptedTitle', { organization: input.organization })}</h1>
<div class="notice" role="status">${t('invitation.accepted', { organization: input.organization })}</div>
<p><a href="${input.accountUrl}">${t('invitation.goToAccount')}</a></p>`,
  );
}
