// The console's webhook pages: the subscriptions with their state (active, disabled, or paused and why), the form of
// a new one (event types as checkboxes), the page that shows its secret once, a subscription with its recent
// deliveries and the forms that edit it (a secret rotated there is shown once too) or pause it, and the confirmation
// before a deletion.
import { html, type SafeHtml } from '../../../html.js';
import type { Translate } from '../../../i18n/translate.js';
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from '../../../domain/webhooks/event-types.js';
import type { WebhookDelivery, WebhookDetails, WebhookFailure, WebhookSubscription } from '../../../domain/webhooks/webhook-admin.js';
import { buttonForm, csrfField, emphasised, messages, revisionField, table, when } from './pages.js';

/** What the form shows: empty, or what was typed into a refused form. */
export interface WebhookFormValues {
  id: string;
  url: string;
  description: string;
  events: readonly string[];
  enabled: boolean;
}

/** One line on a subscription's state; a paused one says since when and why. */
export function stateOf(t: Translate, w: WebhookSubscription): string {
  if (w.pausedAt)
    return t('console.webhooks.pausedState', { when: when(w.pausedAt), reason: w.pauseReason ?? t('console.webhooks.noReason') });
  if (!w.enabled) return t('console.webhooks.disabledState');
  return w.consecutiveFailures > 0
    ? t('console.webhooks.failingState', { count: w.consecutiveFailures })
    : t('console.webhooks.activeState');
}

/** The name of an event type's checkbox: one name per box (a repeated name is refused by the form parser). */
export const eventField = (type: string): string => `event:${type}`;

/** The failure holding up a subscription: the receiver's answer (or none), how many attempts, since when. */
export function failureOf(t: Translate, f: WebhookFailure | undefined): string {
  if (!f) return '';
  const answer = f.status === null ? t('console.webhooks.noAnswer') : `HTTP ${f.status}`;
  return f.since
    ? t('console.webhooks.failureSince', { answer, error: f.error, attempts: f.attempts, since: when(f.since) })
    : t('console.webhooks.failure', { answer, error: f.error, attempts: f.attempts });
}

const eventsOf = (t: Translate, w: WebhookSubscription) =>
  w.events.includes(ALL_EVENTS) ? t('console.webhooks.allEvents') : w.events.join(' ');

export function webhookListBody(
  t: Translate,
  base: string,
  hooks: readonly WebhookSubscription[],
  failures: ReadonlyMap<string, WebhookFailure>,
  mayWrite: boolean,
): SafeHtml {
  return html`${mayWrite ? html`<p><a href="${base}/webhooks/new">${t('console.webhooks.new')}</a></p>` : ''}
${table(
  t('console.webhooks.caption'),
  [
    t('console.id'),
    'URL',
    t('console.webhooks.events'),
    t('console.state'),
    t('console.webhooks.lastFailure'),
    t('console.webhooks.lastSuccess'),
  ],
  hooks.map((w) => [
    html`<a href="${base}/webhooks/${w.id}">${w.id}</a>`,
    w.url,
    eventsOf(t, w),
    stateOf(t, w),
    failureOf(t, failures.get(w.id)),
    when(w.lastSuccessAt),
  ]),
  t('console.webhooks.none'),
)}`;
}

/** The event types as checkboxes, those of `checked` ticked: on the create form and on the edit form. */
function eventBoxes(t: Translate, checked: readonly string[]): SafeHtml {
  const box = (value: string, label: string) => {
    const id = `event-${value === ALL_EVENTS ? 'all' : value.replace(/[^a-z0-9]/g, '-')}`;
    return html`<div class="check"><input type="checkbox" id="${id}" name="${eventField(value)}" value="on"${checked.includes(value) ? html` checked` : ''}> <label for="${id}">${label}</label></div>`;
  };
  return html`<fieldset><legend>${t('console.webhooks.eventTypes')}</legend>${box(ALL_EVENTS, t('console.webhooks.allEventsBox'))}${WEBHOOK_EVENT_TYPES.map((type) => box(type, type))}</fieldset>`;
}

const enabledBox = (t: Translate, enabled: boolean) =>
  html`<div class="check"><input type="checkbox" id="enabled" name="enabled" value="on"${enabled ? html` checked` : ''}> <label for="enabled">${t('console.webhooks.enabledBox')}</label></div>`;

export function newWebhookBody(t: Translate, base: string, csrf: string, v: WebhookFormValues, error?: string): SafeHtml {
  return html`${messages(undefined, error)}<form method="post" action="${base}/webhooks">${csrfField(csrf)}
<label for="id">${t('console.webhooks.idField')}</label><input type="text" id="id" name="id" required maxlength="63" value="${v.id}">
<label for="url">${t('console.webhooks.urlField')}</label><input type="url" id="url" name="url" required value="${v.url}">
<label for="description">${t('console.descriptionOptional')}</label><input type="text" id="description" name="description" maxlength="200" value="${v.description}">
${eventBoxes(t, v.events)}
${enabledBox(t, v.enabled)}
<div><button type="submit">${t('console.webhooks.create')}</button></div></form>`;
}

/**
 * The edit form of a subscription: its URL, description, event types and whether it is enabled, as they are (or as
 * typed into a refused form), and a box that rotates its secret.
 */
function editWebhookForm(t: Translate, path: string, csrf: string, revision: string, v: WebhookFormValues): SafeHtml {
  return html`<h2>${t('console.edit')}</h2><form method="post" action="${path}/edit">${csrfField(csrf)}${revisionField(revision)}
<label for="url">${t('console.webhooks.urlEditField')}</label><input type="url" id="url" name="url" required value="${v.url}">
<label for="description">${t('console.webhooks.descriptionEditField')}</label><input type="text" id="description" name="description" maxlength="200" value="${v.description}">
${eventBoxes(t, v.events)}
${enabledBox(t, v.enabled)}
<div class="check"><input type="checkbox" id="rotate_secret" name="rotate_secret" value="on"> <label for="rotate_secret">${t('console.webhooks.rotateBox')}</label></div>
<div><button type="submit">${t('console.saveChanges')}</button></div></form>`;
}

/** The pause form of an active subscription: the reason is shown with its state. */
function pauseWebhookForm(t: Translate, path: string, csrf: string): SafeHtml {
  return html`<h2>${t('console.webhooks.pause')}</h2><form method="post" action="${path}/pause">${csrfField(csrf)}
<label for="reason">${t('console.webhooks.reasonField')}</label><input type="text" id="reason" name="reason" required maxlength="200">
<div><button type="submit">${t('console.webhooks.pauseButton')}</button></div></form>`;
}

export function webhookSecretBody(
  t: Translate,
  base: string,
  id: string,
  secret: string,
  done: 'created' | 'updated' = 'created',
): SafeHtml {
  return html`<p class="notice" role="status">${t(done === 'created' ? 'console.webhooks.created' : 'console.webhooks.updatedWithSecret', { id })}</p>
<p>${t('console.webhooks.secretOnce')}</p>
<code class="secret">${secret}</code>
<p><a href="${base}/webhooks/${id}">${t('console.backTo', { name: id })}</a></p>`;
}

export interface WebhookView {
  hook: WebhookDetails;
  failure: WebhookFailure | undefined;
  deliveries: readonly WebhookDelivery[];
  /** The form token, or null for a reader (an auditor): then no form at all. */
  csrf: string | null;
  /** The subscription's revision, as the API's ETag: the edit form is refused once it changed (console-revision.ts). */
  revision: string;
  notice?: string | undefined;
  error?: string | undefined;
  /** What a refused edit form had typed in; otherwise the form shows the subscription as it is. */
  form?: WebhookFormValues | undefined;
}

export function webhookBody(t: Translate, base: string, view: WebhookView): SafeHtml {
  const { hook, csrf } = view;
  const path = `${base}/webhooks/${hook.id}`;
  const paused = hook.pausedAt
    ? html`<p class="error" role="alert">${t('console.webhooks.pausedAlert', {
        when: when(hook.pausedAt),
        reason: hook.pauseReason ?? t('console.webhooks.noReason'),
        pending: hook.pending,
      })}</p>`
    : '';
  const details = table(
    t('console.webhooks.details'),
    [t('console.field'), t('console.value')],
    [
      [t('console.id'), hook.id],
      ['URL', hook.url],
      [t('console.webhooks.events'), eventsOf(t, hook)],
      [t('console.description'), hook.description ?? ''],
      [t('console.state'), stateOf(t, hook)],
      [t('console.webhooks.failuresInARow'), hook.consecutiveFailures],
      [t('console.webhooks.lastFailure'), failureOf(t, view.failure) || t('console.webhooks.nonePending')],
      [t('console.webhooks.lastSuccess'), when(hook.lastSuccessAt)],
      [t('console.webhooks.pending'), hook.pending],
      [t('console.webhooks.delivered'), hook.delivered],
      [t('console.created'), when(hook.createdAt)],
    ],
  );
  const deliveries = table(
    t('console.webhooks.deliveriesCaption'),
    [
      t('console.webhooks.deliveryId'),
      t('console.webhooks.event'),
      t('console.webhooks.status'),
      t('console.webhooks.attempts'),
      t('console.webhooks.nextTry'),
      t('console.webhooks.lastAnswer'),
      t('console.webhooks.lastError'),
      t('console.created'),
      t('console.webhooks.deliveredAt'),
    ],
    view.deliveries.map((d) => [
      d.id,
      d.eventType,
      d.status,
      d.attempts,
      when(d.nextAttemptAt),
      d.lastStatus ?? '',
      d.lastError ?? '',
      when(d.createdAt),
      when(d.deliveredAt),
    ]),
    t('console.webhooks.noDelivery'),
  );
  const current: WebhookFormValues = {
    id: hook.id,
    url: hook.url,
    description: hook.description ?? '',
    events: hook.events,
    enabled: hook.enabled,
  };
  const actions = csrf
    ? html`<h2>${t('console.actions')}</h2><p>${hook.pausedAt ? buttonForm(`${path}/resume`, csrf, t('console.webhooks.resume')) : ''}<a href="${path}/delete">${t('console.webhooks.deleteThis')}</a></p>
${editWebhookForm(t, path, csrf, view.revision, view.form ?? current)}${hook.pausedAt ? '' : pauseWebhookForm(t, path, csrf)}`
    : '';
  return html`${messages(view.notice, view.error)}${paused}${details}${actions}<h2>${t('console.webhooks.recentDeliveries')}</h2>${deliveries}`;
}

export function deleteWebhookBody(t: Translate, base: string, hook: WebhookDetails, csrf: string, revision: string): SafeHtml {
  const path = `${base}/webhooks/${hook.id}`;
  return html`<p>${emphasised(t, 'console.webhooks.deleteQuestion', 'id', hook.id, { url: hook.url, pending: hook.pending })} ${t('console.cannotBeUndone')}</p>
<form method="post" action="${path}/delete">${csrfField(csrf)}${revisionField(revision)}<button type="submit" class="danger">${t('console.deleteNamed', { name: hook.id })}</button></form>
<p><a href="${path}">${t('console.keepIt')}</a></p>`;
}
