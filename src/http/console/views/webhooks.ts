// The console's webhook pages: the subscriptions with their state (active, disabled, or paused and why), the form of
// a new one (event types as checkboxes), the page that shows its secret once, a subscription with its recent
// deliveries and the forms that edit it (a secret rotated there is shown once too) or pause it, and the confirmation
// before a deletion.
import { html, type SafeHtml } from '../../../html.js';
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from '../../../domain/webhooks/event-types.js';
import type { WebhookDelivery, WebhookDetails, WebhookFailure, WebhookSubscription } from '../../../domain/webhooks/webhook-admin.js';
import { buttonForm, csrfField, messages, revisionField, table, when } from './pages.js';

/** What the form shows: empty, or what was typed into a refused form. */
export interface WebhookFormValues {
  id: string;
  url: string;
  description: string;
  events: readonly string[];
  enabled: boolean;
}

/** One line on a subscription's state; a paused one says since when and why. */
export function stateOf(w: WebhookSubscription): string {
  if (w.pausedAt) return `paused since ${when(w.pausedAt)}: ${w.pauseReason ?? 'no reason recorded'}`;
  if (!w.enabled) return 'disabled (gets no new events)';
  return w.consecutiveFailures > 0 ? `active, ${w.consecutiveFailures} failed attempts in a row` : 'active';
}

/** The name of an event type's checkbox: one name per box (a repeated name is refused by the form parser). */
export const eventField = (type: string): string => `event:${type}`;

/** The failure holding up a subscription: the receiver's answer (or none), how many attempts, since when. */
export function failureOf(f: WebhookFailure | undefined): string {
  if (!f) return '';
  const answer = f.status === null ? 'no answer' : `HTTP ${f.status}`;
  return `${answer}: ${f.error} (${f.attempts} attempts${f.since ? `, failing since ${when(f.since)}` : ''})`;
}

const eventsOf = (w: WebhookSubscription) => (w.events.includes(ALL_EVENTS) ? 'all events' : w.events.join(' '));

export function webhookListBody(
  base: string,
  hooks: readonly WebhookSubscription[],
  failures: ReadonlyMap<string, WebhookFailure>,
  mayWrite: boolean,
): SafeHtml {
  return html`${mayWrite ? html`<p><a href="${base}/webhooks/new">New subscription</a></p>` : ''}
${table(
  'Webhook subscriptions',
  ['Id', 'URL', 'Events', 'State', 'Last failure', 'Last success'],
  hooks.map((w) => [
    html`<a href="${base}/webhooks/${w.id}">${w.id}</a>`,
    w.url,
    eventsOf(w),
    stateOf(w),
    failureOf(failures.get(w.id)),
    when(w.lastSuccessAt),
  ]),
  'No subscription yet.',
)}`;
}

/** The event types as checkboxes, those of `checked` ticked: on the create form and on the edit form. */
function eventBoxes(checked: readonly string[]): SafeHtml {
  const box = (value: string, label: string) => {
    const id = `event-${value === ALL_EVENTS ? 'all' : value.replace(/[^a-z0-9]/g, '-')}`;
    return html`<div class="check"><input type="checkbox" id="${id}" name="${eventField(value)}" value="on"${checked.includes(value) ? html` checked` : ''}> <label for="${id}">${label}</label></div>`;
  };
  return html`<fieldset><legend>Event types</legend>${box(ALL_EVENTS, 'All events, now and as the list grows')}${WEBHOOK_EVENT_TYPES.map((type) => box(type, type))}</fieldset>`;
}

const enabledBox = (enabled: boolean) =>
  html`<div class="check"><input type="checkbox" id="enabled" name="enabled" value="on"${enabled ? html` checked` : ''}> <label for="enabled">Enabled (a disabled subscription is kept but gets no new events)</label></div>`;

export function newWebhookBody(base: string, csrf: string, v: WebhookFormValues, error?: string): SafeHtml {
  return html`${messages(undefined, error)}<form method="post" action="${base}/webhooks">${csrfField(csrf)}
<label for="id">Id (lowercase letters, digits, "-" or "_")</label><input type="text" id="id" name="id" required maxlength="63" value="${v.id}">
<label for="url">URL (https; http only on loopback)</label><input type="url" id="url" name="url" required value="${v.url}">
<label for="description">Description (optional)</label><input type="text" id="description" name="description" maxlength="200" value="${v.description}">
${eventBoxes(v.events)}
${enabledBox(v.enabled)}
<div><button type="submit">Create subscription</button></div></form>`;
}

/**
 * The edit form of a subscription: its URL, description, event types and whether it is enabled, as they are (or as
 * typed into a refused form), and a box that rotates its secret.
 */
function editWebhookForm(path: string, csrf: string, revision: string, v: WebhookFormValues): SafeHtml {
  return html`<h2>Edit</h2><form method="post" action="${path}/edit">${csrfField(csrf)}${revisionField(revision)}
<label for="url">URL (https; http only on loopback; pending deliveries go to the new one)</label><input type="url" id="url" name="url" required value="${v.url}">
<label for="description">Description (empty removes it)</label><input type="text" id="description" name="description" maxlength="200" value="${v.description}">
${eventBoxes(v.events)}
${enabledBox(v.enabled)}
<div class="check"><input type="checkbox" id="rotate_secret" name="rotate_secret" value="on"> <label for="rotate_secret">Rotate the signing secret (the new one is shown once; the old one signs nothing more)</label></div>
<div><button type="submit">Save changes</button></div></form>`;
}

/** The pause form of an active subscription: the reason is shown with its state. */
function pauseWebhookForm(path: string, csrf: string): SafeHtml {
  return html`<h2>Pause</h2><form method="post" action="${path}/pause">${csrfField(csrf)}
<label for="reason">Reason (shown with its state; events still queue, nothing is sent until it is resumed)</label><input type="text" id="reason" name="reason" required maxlength="200">
<div><button type="submit">Pause subscription</button></div></form>`;
}

export function webhookSecretBody(base: string, id: string, secret: string, done = 'created'): SafeHtml {
  return html`<p class="notice" role="status">Subscription ${id} ${done}.</p>
<p>Its signing secret is shown this once; give it to the receiver now, which checks each delivery's signature with it.
Only a sealed copy is kept.</p>
<code class="secret">${secret}</code>
<p><a href="${base}/webhooks/${id}">Back to ${id}</a></p>`;
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

export function webhookBody(base: string, view: WebhookView): SafeHtml {
  const { hook, csrf } = view;
  const path = `${base}/webhooks/${hook.id}`;
  const paused = hook.pausedAt
    ? html`<p class="error" role="alert">Paused since ${when(hook.pausedAt)}: ${hook.pauseReason ?? 'no reason recorded'}. Nothing is
sent until it is resumed; its ${hook.pending} pending deliveries wait, in order.</p>`
    : '';
  const details = table(
    'Subscription details',
    ['Field', 'Value'],
    [
      ['Id', hook.id],
      ['URL', hook.url],
      ['Events', eventsOf(hook)],
      ['Description', hook.description ?? ''],
      ['State', stateOf(hook)],
      ['Failed attempts in a row', hook.consecutiveFailures],
      ['Last failure', failureOf(view.failure) || 'none pending'],
      ['Last success', when(hook.lastSuccessAt)],
      ['Pending deliveries', hook.pending],
      ['Delivered', hook.delivered],
      ['Created', when(hook.createdAt)],
    ],
  );
  const deliveries = table(
    'Recent deliveries, newest first',
    ['Delivery id', 'Event', 'Status', 'Attempts', 'Next try', 'Last answer', 'Last error', 'Created', 'Delivered'],
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
    'No delivery yet.',
  );
  const current: WebhookFormValues = {
    id: hook.id,
    url: hook.url,
    description: hook.description ?? '',
    events: hook.events,
    enabled: hook.enabled,
  };
  const actions = csrf
    ? html`<h2>Actions</h2><p>${hook.pausedAt ? buttonForm(`${path}/resume`, csrf, 'Resume subscription') : ''}<a href="${path}/delete">Delete this subscription</a></p>
${editWebhookForm(path, csrf, view.revision, view.form ?? current)}${hook.pausedAt ? '' : pauseWebhookForm(path, csrf)}`
    : '';
  return html`${messages(view.notice, view.error)}${paused}${details}${actions}<h2>Recent deliveries</h2>${deliveries}`;
}

export function deleteWebhookBody(base: string, hook: WebhookDetails, csrf: string, revision: string): SafeHtml {
  const path = `${base}/webhooks/${hook.id}`;
  return html`<p>Delete the subscription <strong>${hook.id}</strong> (${hook.url})? Its ${hook.pending} pending deliveries are
dropped and it gets no more events. This cannot be undone.</p>
<form method="post" action="${path}/delete">${csrfField(csrf)}${revisionField(revision)}<button type="submit" class="danger">Delete ${hook.id}</button></form>
<p><a href="${path}">Keep it</a></p>`;
}
