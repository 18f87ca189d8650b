// The console's pages of a resource set whole, as a seed file entry is (resource servers, upstream connections,
// directories): the list, one with its details and the form that replaces it, the form of a new one, and the
// confirmation before a removal. The form is the entry itself as JSON, the very body the management API's PUT takes
// (docs/admin-api.md), its secret apart in a password field that is never filled in.
import { html, type SafeHtml } from '../../../html.js';
import type { MessageKey } from '../../../i18n/catalog.js';
import type { Translate } from '../../../i18n/translate.js';
import { csrfField, emphasised, messages, revisionField, table } from './pages.js';

type Cell = SafeHtml | string | number | null | undefined;

/** The catalog prefix of a kind's own sentences (src/i18n/locales/en.ts): its title, "New ...", "Delete this ...". */
export type EntityKeys = 'console.connections' | 'console.directories' | 'console.resourceServers';

/** What a page of one kind says: its sentences, and its secret field if it has one. */
export interface EntityWords {
  /** Its path below the console: /resource-servers. */
  path: string;
  keys: EntityKeys;
  /** The name of its id in the entry: identifier, id. */
  idField: string;
  /** The password field of its secret (connections' client_secret, directories' bind_password) and its label's key. */
  secret?: { name: string; label: MessageKey };
}

export interface EntityRow {
  id: string;
  cells: readonly Cell[];
}

export function entityListBody(
  t: Translate,
  base: string,
  w: EntityWords,
  headers: readonly string[],
  rows: readonly EntityRow[],
  mayWrite: boolean,
): SafeHtml {
  return html`<p>${t(`${w.keys}.lead`)}</p>
${mayWrite ? html`<p><a href="${base}${w.path}/new">${t(`${w.keys}.new`)}</a></p>` : ''}
${table(
  t(`${w.keys}.title`),
  headers,
  rows.map((r) => [html`<a href="${base}${w.path}/${encodeURIComponent(r.id)}">${r.id}</a>`, ...r.cells]),
  t(`${w.keys}.none`),
)}`;
}

/** The entry's JSON textarea, and the secret's password field (empty: none; it is never shown back). */
function entryFields(t: Translate, w: EntityWords, json: string): SafeHtml {
  return html`<label for="entry">${t('console.entity.entry')}</label>
<textarea id="entry" name="entry" rows="16" spellcheck="false" required>${json}</textarea>
${w.secret ? html`<label for="secret">${t(w.secret.label)}</label><input type="password" id="secret" name="secret" autocomplete="off">` : ''}`;
}

export function newEntityBody(t: Translate, base: string, w: EntityWords, csrf: string, json: string, error?: string): SafeHtml {
  return html`${messages(undefined, error)}<form method="post" action="${base}${w.path}">${csrfField(csrf)}${entryFields(t, w, json)}
<div><button type="submit">${t(`${w.keys}.create`)}</button></div></form>`;
}

export interface EntityView {
  id: string;
  details: ReadonlyArray<readonly [string, Cell]>;
  /** The form token, or null for a reader (an auditor): then no form at all. */
  csrf: string | null;
  /** The revision (the API's ETag) the edit and delete forms were read at; none where the API has no If-Match. */
  revision?: string | undefined;
  /** The JSON the edit form shows: the entry as it is, or what was typed into a refused form. */
  json: string;
  notice?: string | undefined;
  error?: string | undefined;
  /** More sections below the details (a directory's test form, say). */
  extra?: SafeHtml | undefined;
}

export function entityBody(t: Translate, base: string, w: EntityWords, v: EntityView): SafeHtml {
  const path = `${base}${w.path}/${encodeURIComponent(v.id)}`;
  const details = table(
    t(`${w.keys}.details`),
    [t('console.field'), t('console.value')],
    v.details.map(([k, value]) => [k, value]),
  );
  if (!v.csrf) return html`${messages(v.notice, v.error)}${details}${v.extra ?? ''}`;
  return html`${messages(v.notice, v.error)}${details}${v.extra ?? ''}
<h2>${t('console.edit')}</h2>
<p>${t(`${w.keys}.replaces`)}</p>
<form method="post" action="${path}">${csrfField(v.csrf)}${v.revision ? revisionField(v.revision) : ''}${entryFields(t, w, v.json)}
<div><button type="submit">${t('console.saveChanges')}</button></div></form>
<h2>${t('console.removal')}</h2>
<p><a href="${path}/delete">${t(`${w.keys}.deleteThis`)}</a></p>`;
}

export function deleteEntityBody(
  t: Translate,
  base: string,
  w: EntityWords,
  id: string,
  consequence: string,
  csrf: string,
  revision?: string,
): SafeHtml {
  const path = `${base}${w.path}/${encodeURIComponent(id)}`;
  return html`<p>${emphasised(t, `${w.keys}.deleteQuestion`, 'id', id)} ${consequence} ${t('console.cannotBeUndone')}</p>
<form method="post" action="${path}/delete">${csrfField(csrf)}${revision ? revisionField(revision) : ''}<button type="submit" class="danger">${t('console.deleteNamed', { name: id })}</button></form>
<p><a href="${path}">${t('console.keepIt')}</a></p>`;
}

/** A value of the details table: lists joined, objects as JSON, booleans as yes and no. */
export function shown(t: Translate, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'boolean') return value ? t('console.yes') : t('console.no');
  if (Array.isArray(value)) return value.join(' ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
