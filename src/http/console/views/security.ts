// The console's security pages: admin risk rules (list, add, delete), security events and the audit log with their
// filters, and the signing keys with their rotation.
import { html, type SafeHtml } from '../../../html.js';
import type { Translate } from '../../../i18n/translate.js';
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
  t: Translate,
  base: string,
  rules: readonly StoredRiskRule[],
  view: { csrf: string | null; notice?: string; error?: string; values?: Record<string, string> },
): SafeHtml {
  const v = view.values ?? {};
  const list = table(
    t('console.nav.riskRules'),
    [
      t('console.rules.kind'),
      t('console.value'),
      t('console.rules.effect'),
      t('console.rules.note'),
      t('console.rules.added'),
      ...(view.csrf ? [t('console.action')] : []),
    ],
    rules.map((r) => [
      r.kind,
      r.value,
      r.effect,
      r.note ?? '',
      when(r.createdAt),
      ...(view.csrf
        ? [buttonForm(`${base}/risk-rules/${r.id}/delete`, view.csrf, t('console.rules.delete', { kind: r.kind, value: r.value }), true)]
        : []),
    ]),
    t('console.rules.none'),
  );
  const form = view.csrf
    ? html`<h2>${t('console.rules.addTitle')}</h2><form method="post" action="${base}/risk-rules">${csrfField(view.csrf)}
<label for="kind">${t('console.rules.kind')}</label><select id="kind" name="kind">${options(RULE_KINDS, v.kind ?? 'network')}</select>
<label for="value">${t('console.rules.valueField')}</label><input type="text" id="value" name="value" required value="${v.value ?? ''}">
<label for="effect">${t('console.rules.effect')}</label><select id="effect" name="effect">${options(RULE_EFFECTS, v.effect ?? 'block')}</select>
<label for="note">${t('console.rules.note')}</label><input type="text" id="note" name="note" value="${v.note ?? ''}">
<div><button type="submit">${t('console.rules.add')}</button></div></form>`
    : '';
  return html`${messages(view.notice, view.error)}<p>${t('console.rules.lead')}</p>${list}${form}`;
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
  t: Translate,
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
<div><label for="user">${t('console.events.userField')}</label><input type="text" id="user" name="user" value="${f.user}"></div>
<div><label for="type">${t('console.type')}</label><select id="type" name="type">${options(EVENT_TYPES, f.type, t('console.events.any'))}</select></div>
<div><label for="since">${t('console.since')}</label><input type="text" id="since" name="since" placeholder="2026-01-31T09:00:00Z" value="${f.since}"></div>
<div><label for="until">${t('console.until')}</label><input type="text" id="until" name="until" placeholder="2026-02-01T09:00:00Z" value="${f.until}"></div>
<div><button type="submit">${t('console.filter')}</button></div></form>
${messages(undefined, error)}
${table(
  t('console.events.caption'),
  [t('console.when'), t('console.type'), t('console.events.user'), t('console.events.client'), t('console.events.details')],
  events.map((e) => [e.created_at, e.type, e.username ?? e.user_id ?? '', e.client_id ?? '', JSON.stringify(e.details)]),
  t('console.events.none'),
)}
${more ? html`<p><a href="${more}">${t('console.events.older')}</a></p>` : ''}`;
}

export function keysBody(
  t: Translate,
  base: string,
  keys: readonly DescribedKey[],
  view: { csrf: string | null; notice?: string; warnings?: readonly string[] },
): SafeHtml {
  return html`${messages(view.notice)}${(view.warnings ?? []).map((w) => html`<p class="error" role="alert">${w}</p>`)}
${table(
  t('console.nav.signingKeys'),
  [
    t('console.keys.kid'),
    t('console.keys.alg'),
    t('console.state'),
    t('console.created'),
    t('console.keys.activates'),
    t('console.keys.retires'),
    t('console.keys.unpublishes'),
    t('console.keys.encrypted'),
  ],
  keys.map((k) => [
    k.kid,
    k.alg,
    t(`console.keys.state.${k.state}`),
    when(k.createdAt),
    when(k.activatesAt),
    when(k.retiresAt),
    when(k.unpublishesAt),
    k.encrypted ? t('console.yes') : t('console.no'),
  ]),
  t('console.keys.none'),
)}
${view.csrf ? html`<p>${t('console.keys.rotationLead')}</p>${buttonForm(`${base}/signing-keys/rotate`, view.csrf, t('console.keys.rotate'))}` : ''}`;
}

export interface AuditFilters {
  actor: string;
  target: string;
  event: string;
  since: string;
  until: string;
}

export function auditBody(
  t: Translate,
  base: string,
  f: AuditFilters,
  records: readonly AuditRecord[],
  next: string | null,
  error?: string,
): SafeHtml {
  const more = next
    ? `${base}/audit?${new URLSearchParams({ ...Object.fromEntries(Object.entries(f).filter(([, value]) => value)), before: next })}`
    : null;
  return html`<form class="filters" method="get" action="${base}/audit">
<div><label for="actor">${t('console.audit.actorField')}</label><input type="text" id="actor" name="actor" value="${f.actor}"></div>
<div><label for="target">${t('console.audit.targetField')}</label><input type="text" id="target" name="target" value="${f.target}"></div>
<div><label for="event">${t('console.audit.eventField')}</label><input type="text" id="event" name="event" value="${f.event}"></div>
<div><label for="since">${t('console.since')}</label><input type="text" id="since" name="since" value="${f.since}"></div>
<div><label for="until">${t('console.until')}</label><input type="text" id="until" name="until" value="${f.until}"></div>
<div><button type="submit">${t('console.filter')}</button></div></form>
${messages(undefined, error)}
${table(
  t('console.audit.caption'),
  [
    t('console.when'),
    t('console.audit.actor'),
    t('console.audit.from'),
    t('console.audit.event'),
    t('console.audit.target'),
    t('console.audit.changes'),
  ],
  records.map((r) => [
    when(r.occurred_at),
    `${r.actor_kind}:${r.actor_id}`,
    r.origin ?? '',
    r.event,
    `${r.target_type}:${r.target_id}`,
    JSON.stringify(r.changes),
  ]),
  t('console.audit.none'),
)}
${more ? html`<p><a href="${more}">${t('console.audit.older')}</a></p>` : ''}`;
}
