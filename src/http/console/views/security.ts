// The console's security pages: admin risk rules (list, add, delete), security events and the audit log with their
// filters, and the signing keys with their rotation.
import { html, type SafeHtml } from '../../../html.js';
import type { StoredRiskRule } from '../../../domain/risk/rule-admin.js';
import type { SecurityEventView } from '../../../domain/risk/security-event-query.js';
import type { DescribedKey } from '../../../domain/keys/key-rotation.js';
import type { AuditRecord } from '../../../domain/admin/audit-trail.js';
import { RULE_EFFECTS, RULE_KINDS } from '../../../domain/risk/rules.js';
import { buttonForm, csrfField, messages, table, when } from './pages.js';

const options = (values: readonly string[], selected: string, blank?: string) =>
  html`${blank !== undefined ? html`<option value="">${blank}</option>` : ''}${values.map(
    (v) => html`<option value="${v}"${v === selected ? html` selected` : ''}>${v}</option>`,
  )}`;

export function rulesBody(
  base: string,
  rules: readonly StoredRiskRule[],
  view: { csrf: string | null; notice?: string; error?: string; values?: Record<string, string> },
): SafeHtml {
  const v = view.values ?? {};
  const list = table(
    'Risk rules',
    ['Kind', 'Value', 'Effect', 'Note', 'Added', ...(view.csrf ? ['Action'] : [])],
    rules.map((r) => [
      r.kind,
      r.value,
      r.effect,
      r.note ?? '',
      when(r.createdAt),
      ...(view.csrf ? [buttonForm(`${base}/risk-rules/${r.id}/delete`, view.csrf, `Delete rule ${r.kind} ${r.value}`, true)] : []),
    ]),
    'No rule: every sign-in is scored.',
  );
  const form = view.csrf
    ? html`<h2>Add a rule</h2><form method="post" action="${base}/risk-rules">${csrfField(view.csrf)}
<label for="kind">Kind</label><select id="kind" name="kind">${options(RULE_KINDS, v.kind ?? 'network')}</select>
<label for="value">Value (a device id, a network in CIDR notation, or a username)</label><input type="text" id="value" name="value" required value="${v.value ?? ''}">
<label for="effect">Effect</label><select id="effect" name="effect">${options(RULE_EFFECTS, v.effect ?? 'block')}</select>
<label for="note">Note</label><input type="text" id="note" name="note" value="${v.note ?? ''}">
<div><button type="submit">Add rule</button></div></form>`
    : '';
  return html`${messages(view.notice, view.error)}<p>A rule decides a sign-in outright; without one, the risk score does.</p>${list}${form}`;
}

export const EVENT_TYPES = [
  'sign_in_allowed',
  'sign_in_challenged',
  'sign_in_blocked',
  'new_device',
  'device_revoked',
  'second_factor_failed',
  'totp_enrolled',
  'totp_removed',
  'passkey_added',
  'passkey_removed',
  'connection_linked',
  'connection_unlinked',
] as const;

export interface EventFilters {
  user: string;
  type: string;
  since: string;
  until: string;
}

export function eventsBody(
  base: string,
  f: EventFilters,
  events: readonly SecurityEventView[],
  next: string | null,
  error?: string,
): SafeHtml {
  const more = next
    ? `${base}/security-events?${new URLSearchParams({ ...Object.fromEntries(Object.entries(f).filter(([, value]) => value)), cursor: next })}`
    : null;
  return html`<form class="filters" method="get" action="${base}/security-events">
<div><label for="user">User (id or username)</label><input type="text" id="user" name="user" value="${f.user}"></div>
<div><label for="type">Type</label><select id="type" name="type">${options(EVENT_TYPES, f.type, 'Any')}</select></div>
<div><label for="since">Since (RFC 3339, UTC)</label><input type="text" id="since" name="since" placeholder="2026-01-31T09:00:00Z" value="${f.since}"></div>
<div><label for="until">Until</label><input type="text" id="until" name="until" placeholder="2026-02-01T09:00:00Z" value="${f.until}"></div>
<div><button type="submit">Filter</button></div></form>
${messages(undefined, error)}
${table(
  'Security events, newest first',
  ['When', 'Type', 'User', 'Client', 'Details'],
  events.map((e) => [e.created_at, e.type, e.username ?? e.user_id ?? '', e.client_id ?? '', JSON.stringify(e.details)]),
  'No event matches.',
)}
${more ? html`<p><a href="${more}">Older events</a></p>` : ''}`;
}

export function keysBody(
  base: string,
  keys: readonly DescribedKey[],
  view: { csrf: string | null; notice?: string; warnings?: readonly string[] },
): SafeHtml {
  return html`${messages(view.notice)}${(view.warnings ?? []).map((w) => html`<p class="error" role="alert">${w}</p>`)}
${table(
  'Signing keys',
  ['Key id', 'Algorithm', 'State', 'Created', 'Signs from', 'Retires', 'Unpublished', 'Encrypted'],
  keys.map((k) => [
    k.kid,
    k.alg,
    k.state,
    when(k.createdAt),
    when(k.activatesAt),
    when(k.retiresAt),
    when(k.unpublishesAt),
    k.encrypted ? 'yes' : 'no',
  ]),
  'No key.',
)}
${view.csrf ? html`<p>A rotation adds a key for each algorithm: published now, signing after the activation delay.</p>${buttonForm(`${base}/signing-keys/rotate`, view.csrf, 'Rotate signing keys')}` : ''}`;
}

export interface AuditFilters {
  actor: string;
  target: string;
  event: string;
  since: string;
  until: string;
}

export function auditBody(base: string, f: AuditFilters, records: readonly AuditRecord[], next: string | null, error?: string): SafeHtml {
  const more = next
    ? `${base}/audit?${new URLSearchParams({ ...Object.fromEntries(Object.entries(f).filter(([, value]) => value)), before: next })}`
    : null;
  return html`<form class="filters" method="get" action="${base}/audit">
<div><label for="actor">Actor (kind:id, e.g. person:ID, client:ID, cli:NAME)</label><input type="text" id="actor" name="actor" value="${f.actor}"></div>
<div><label for="target">Target (type:id, e.g. user:ID, client:ID)</label><input type="text" id="target" name="target" value="${f.target}"></div>
<div><label for="event">Event (e.g. admin.user.disabled)</label><input type="text" id="event" name="event" value="${f.event}"></div>
<div><label for="since">Since (RFC 3339, UTC)</label><input type="text" id="since" name="since" value="${f.since}"></div>
<div><label for="until">Until</label><input type="text" id="until" name="until" value="${f.until}"></div>
<div><button type="submit">Filter</button></div></form>
${messages(undefined, error)}
${table(
  'Audit records, newest first',
  ['When', 'Actor', 'From', 'Event', 'Target', 'Changes'],
  records.map((r) => [
    when(r.occurred_at),
    `${r.actor_kind}:${r.actor_id}`,
    r.origin ?? '',
    r.event,
    `${r.target_type}:${r.target_id}`,
    JSON.stringify(r.changes),
  ]),
  'No record matches.',
)}
${more ? html`<p><a href="${more}">Older records</a></p>` : ''}`;
}
