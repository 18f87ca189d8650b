// The console's small shared pieces and its sign-in pages: refusals that say why, the notice after a change, the
// CSRF field every form carries, and a table.
import { html, type SafeHtml } from '../../../html.js';

type Cell = SafeHtml | string | number | null | undefined;

/** A table with a caption (WCAG 2.1 1.3.1: headers in <th scope=col>), scrolling sideways on a narrow screen. */
export function table(caption: string, headers: readonly string[], rows: readonly (readonly Cell[])[], empty = 'None.'): SafeHtml {
  if (rows.length === 0) return html`<p>${empty}</p>`;
  return html`<div class="scroll"><table><caption class="meta">${caption}</caption><thead><tr>${headers.map(
    (h) => html`<th scope="col">${h}</th>`,
  )}</tr></thead><tbody>${rows.map((row) => html`<tr>${row.map((cell) => html`<td>${cell ?? ''}</td>`)}</tr>`)}</tbody></table></div>`;
}

export const csrfField = (csrf: string): SafeHtml => html`<input type="hidden" name="csrf" value="${csrf}">`;

/** The revision (ETag) the page read the resource at: an edit or delete made from it is refused once it changed. */
export const revisionField = (revision: string): SafeHtml => html`<input type="hidden" name="revision" value="${revision}">`;

/** A one-button form (revoke, rotate, enable...). */
export function buttonForm(action: string, csrf: string, label: string, danger = false): SafeHtml {
  return html`<form class="inline" method="post" action="${action}">${csrfField(csrf)}<button type="submit"${danger ? html` class="danger"` : ''}>${label}</button></form>`;
}

export function messages(notice?: string, error?: string): SafeHtml {
  return html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}${error ? html`<p class="error" role="alert">${error}</p>` : ''}`;
}

export const when = (date: Date | null | undefined): string => (date ? date.toISOString().replace(/\.\d{3}Z$/, 'Z') : '');

/** The sign-in lacked a second factor: say so, and offer a fresh sign-in that asks for one. */
export function secondFactorNeededBody(base: string): SafeHtml {
  return html`<p>The console needs a sign-in with a second factor (an authenticator app, a passkey or a one-time code).
Your last sign-in used your password only.</p>
<p>If you have not set up an authenticator app, do so on your account page first, then sign in again.</p>
<p><a href="${base}/sign-in?again=1">Sign in again with a second factor</a></p>`;
}

/** Signed in, but not an admin or auditor: say why, and how one becomes one. */
export function noRoleBody(): SafeHtml {
  return html`<p>You are signed in, but your account has neither the admin nor the auditor role, so the console is closed
to you. An administrator can give you one (<code>users set-role</code> on the command line).</p>`;
}

export function badSignInBody(base: string): SafeHtml {
  return html`<p>This sign-in did not start in this browser, or it took too long. Nothing was changed.</p>
<p><a href="${base}/sign-in">Sign in again</a></p>`;
}

export function signedOutBody(base: string): SafeHtml {
  return html`<p>You have left the console.</p><p><a href="${base}/sign-in">Sign in again</a></p>`;
}

export function forbiddenBody(why: string): SafeHtml {
  return html`<p class="error" role="alert">${why}</p>`;
}
