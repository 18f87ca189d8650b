// The pages of a sign-in for an organization (issue 40): pick one of the person's organizations (a `require` client's
// sign-in that named none), and the refusal when the person may not sign in for it.
import type { OrganizationChoice } from '../../../domain/authorization/organization-choice.js';
import type { MessageKey } from '../../../i18n/catalog.js';
import { html } from '../../../html.js';
import { layout, type PageText } from '../../views/layout.js';

export interface OrganizationPickInput {
  action: string;
  csrfToken: string;
  clientName: string;
  choices: readonly OrganizationChoice[];
}

/** One button per organization, each posting its id with the interaction's CSRF token. */
export function organizationPickPage(t: PageText, input: OrganizationPickInput): string {
  return layout(
    t,
    t('organization.pickTitle'),
    html`<h1>${t('organization.pickTitle')}</h1>
<p class="lead">${t('organization.pickLead', { client: input.clientName })}</p>
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
${input.choices.map((c) => html`<button type="submit" name="organization" value="${c.id}">${c.displayName} (${c.slug})</button>`)}
</form>`,
  );
}

/** The sign-in ends here: no response goes to the client. */
export function organizationRefusedPage(t: PageText, message: MessageKey): string {
  return layout(t, t('error.title'), html`<h1>${t('error.heading')}</h1><p class="lead">${t(message)}</p>`);
}
