// The console's pages of a resource set whole, as a seed file entry is (resource servers, upstream connections,
// directories): the list, one with its details and the form that replaces it, the form of a new one, and the
// confirmation before a removal. The form is the entry itself as JSON, the very body the management API's PUT takes
// (docs/admin-api.md), its secret apart in a password field that is never filled in.
import { html, type SafeHtml } from '../../../html.js';
import { csrfField, messages, revisionField, table } from './pages.js';

type Cell = SafeHtml | string | number | null | undefined;

/** What a page of one kind says: its names, and its secret field if it has one. */
export interface EntityWords {
  /** Its path below the console: /resource-servers. */
  path: string;
  /** 'resource server' */
  noun: string;
  /** A line on what it is, above the list. */
  lead: string;
  /** The name of its id in the entry: identifier, id. */
  idField: string;
  /** The password field of its secret (connections' client_secret, directories' bind_password). */
  secret?: { name: string; label: string };
}

export interface EntityRow {
  id: string;
  cells: readonly Cell[];
}

export function entityListBody(
  base: string,
  w: EntityWords,
  headers: readonly string[],
  rows: readonly EntityRow[],
  mayWrite: boolean,
): SafeHtml {
  return html`<p>${w.lead}</p>
${mayWrite ? html`<p><a href="${base}${w.path}/new">New ${w.noun}</a></p>` : ''}
${table(
  `${w.noun[0]!.toUpperCase()}${w.noun.slice(1)}s`,
  headers,
  rows.map((r) => [html`<a href="${base}${w.path}/${encodeURIComponent(r.id)}">${r.id}</a>`, ...r.cells]),
  `No ${w.noun} yet.`,
)}`;
}

/** The entry's JSON textarea, and the secret's password field (empty: none; it is never shown back). */
function entryFields(w: EntityWords, json: string): SafeHtml {
  return html`<label for="entry">The entry, as JSON (the seed file's and the management API's fields; docs/admin-api.md)</label>
<textarea id="entry" name="entry" rows="16" spellcheck="false" required>${json}</textarea>
${w.secret ? html`<label for="secret">${w.secret.label}</label><input type="password" id="secret" name="secret" autocomplete="off">` : ''}`;
}

export function newEntityBody(base: string, w: EntityWords, csrf: string, json: string, error?: string): SafeHtml {
  return html`${messages(undefined, error)}<form method="post" action="${base}${w.path}">${csrfField(csrf)}${entryFields(w, json)}
<div><button type="submit">Create ${w.noun}</button></div></form>`;
}

export interface EntityView {
  id: string;
  details: ReadonlyArray<readonly [string, Cell]>;
  /** The form token, or null for a reader (an auditor): then no form at all. */
  csrf: string | null;
  /** The revision (the API's ETag) the edit and delete forms were read at; none where the API has no If-Match. */
  revision?: string;
  /** The JSON the edit form shows: the entry as it is, or what was typed into a refused form. */
  json: string;
  notice?: string | undefined;
  error?: string | undefined;
  /** More sections below the details (a directory's test form, say). */
  extra?: SafeHtml;
}

export function entityBody(base: string, w: EntityWords, v: EntityView): SafeHtml {
  const path = `${base}${w.path}/${encodeURIComponent(v.id)}`;
  const details = table(
    `The ${w.noun}`,
    ['Field', 'Value'],
    v.details.map(([k, value]) => [k, value]),
  );
  if (!v.csrf) return html`${messages(v.notice, v.error)}${details}${v.extra ?? ''}`;
  return html`${messages(v.notice, v.error)}${details}${v.extra ?? ''}
<h2>Edit</h2>
<p>Saving replaces every field of the ${w.noun} with the entry below, as the management API's PUT does.</p>
<form method="post" action="${path}">${csrfField(v.csrf)}${v.revision ? revisionField(v.revision) : ''}${entryFields(w, v.json)}
<div><button type="submit">Save changes</button></div></form>
<h2>Removal</h2>
<p><a href="${path}/delete">Delete this ${w.noun}</a></p>`;
}

export function deleteEntityBody(base: string, w: EntityWords, id: string, consequence: string, csrf: string, revision?: string): SafeHtml {
  const path = `${base}${w.path}/${encodeURIComponent(id)}`;
  return html`<p>Delete the ${w.noun} <strong>${id}</strong>? ${consequence} This cannot be undone.</p>
<form method="post" action="${path}/delete">${csrfField(csrf)}${revision ? revisionField(revision) : ''}<button type="submit" class="danger">Delete ${id}</button></form>
<p><a href="${path}">Keep it</a></p>`;
}

/** A value of the details table: lists joined, objects as JSON, booleans as yes and no. */
export function shown(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.join(' ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
