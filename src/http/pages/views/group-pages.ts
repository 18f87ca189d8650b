// The pages of a person a client limited to groups does not admit (issue 20). After a sign-in at the authorization
// endpoint the page says why, and its link takes the client's access_denied (RFC 6749 4.1.2.1, with state and RFC
// 9207 iss) back to the application; on the device verification page it says why, and the device is denied.
import type { AuthorizationResponse } from '../../../domain/authorization/authorization-response.js';
import { redirectHost } from '../../../domain/authorization/redirect-uri.js';
import { html } from '../../../html.js';
import { layout, type PageText } from '../../views/layout.js';
import { responseLink } from '../../views/pages.js';

export function notInGroupPage(t: PageText, input: { clientName: string; response: AuthorizationResponse }): string {
  const host = redirectHost(input.response.redirectUri);
  return layout(
    t,
    t('groups.refusedTitle'),
    html`<h1>${t('groups.refusedTitle')}</h1>
<p class="lead">${t('groups.refusedLead', { client: input.clientName })}</p>
<p>${t('groups.refusedHelp')}</p>
${responseLink(input.response, t('groups.refusedReturn', { host }))}`,
  );
}

/** The device flow's (RFC 8628 3.3): the request was denied in the person's stead; the device hears access_denied. */
export function deviceNotInGroupPage(t: PageText, clientName: string): string {
  return layout(
    t,
    t('groups.refusedTitle'),
    html`<h1>${t('groups.refusedTitle')}</h1>
<p class="lead">${t('groups.refusedLead', { client: clientName })}</p>
<p>${t('groups.refusedHelp')}</p>
<p>${t('device.deniedLead')}</p>`,
  );
}
