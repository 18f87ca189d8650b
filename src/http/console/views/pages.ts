// The console's small shared pieces and its sign-in pages: refusals that say why, the notice after a change, the
// CSRF field every form carries, and a table.
import { html, type SafeHtml } from '../../../html.js';
import type { MessageKey } from '../../../i18n/catalog.js';
import type { Params, Translate } from '../../../i18n/translate.js';

type Cell = SafeHtml | string | number | null | undefined;

/** A table with a caption (WCAG 2.1 1.3.1: headers in <th scope=col>), scrolling sideways on a narrow screen. */
export function table(caption: string, headers: readonly string[], rows: readonly (readonly Cell[])[], empty = ''): SafeHtml {
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

/**
 * A translated sentence with one of its values in bold (<strong>): "Delete the group <strong>temp</strong>?", the
 * value where the language puts it.
 */
export function emphasised(t: Translate, key: MessageKey, name: string, value: string, params: Params = {}): SafeHtml {
  const mark = '\u0000';
  const [before = '', after = ''] = t(key, { ...params, [name]: mark }).split(mark);
  return html`${before}<strong>${value}</strong>${after}`;
}

export const when = (date: Date | null | undefined): string => (date ? date.toISOString().replace(/\.\d{3}Z$/, 'Z') : '');

/** The sign-in lacked a second factor: say so, and offer a fresh sign-in that asks for one. */
export function secondFactorNeededBody(t: Translate, base: string): SafeHtml {
  return html`<p>${t('console.signIn.secondFactorNeeded')}</p>
<p>${t('console.signIn.secondFactorSetUp')}</p>
<p><a href="${base}/sign-in?again=1">${t('console.signIn.againWithSecondFactor')}</a></p>`;
}

/** Signed in, but not an admin or auditor: say why, and how one becomes one. */
export function noRoleBody(t: Translate): SafeHtml {
  return html`<p>${t('console.signIn.noRole')} (<code>users set-role</code>)</p>`;
}

export function badSignInBody(t: Translate, base: string): SafeHtml {
  return html`<p>${t('console.signIn.bad')}</p>
<p><a href="${base}/sign-in">${t('console.signIn.again')}</a></p>`;
}

export function signedOutBody(t: Translate, base: string): SafeHtml {
  return html`<p>${t('console.signIn.signedOut')}</p><p><a href="${base}/sign-in">${t('console.signIn.again')}</a></p>`;
}

export function forbiddenBody(why: string): SafeHtml {
  return html`<p class="error" role="alert">${why}</p>`;
}
