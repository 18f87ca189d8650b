// The device verification pages (RFC 8628 3.3): the user code, the confirmation, and the outcome. No script.
import { SCOPE_DESCRIPTIONS, type Scope } from '../../../domain/scope.js';
import { html } from '../../../html.js';
import { unverifiedWarning } from '../../views/pages.js';
import { layout, type PageText } from '../../views/layout.js';
import type { Translate } from '../../../i18n/translate.js';

export interface UserCodePageInput {
  action: string;
  csrfToken: string;
  /** A code that came in the link (verification_uri_complete) or was typed before. */
  userCode?: string;
  /** The code came in the link: the user is asked to compare it with the device's (RFC 8628 3.3.1). */
  fromLink?: boolean;
  error?: string;
}

export function userCodePage(t: PageText, input: UserCodePageInput): string {
  return layout(
    t,
    t('device.title'),
    html`<h1>${t('device.title')}</h1>
<p class="lead">${input.fromLink ? t('device.checkCode') : t('device.enterCode')}</p>
${input.error ? html`<div class="error" role="alert">${input.error}</div>` : ''}
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<label for="user_code">${t('common.code')}</label>
<input type="text" id="user_code" name="user_code" value="${input.userCode ?? ''}" placeholder="XXXX-XXXX" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="32" required autofocus>
<button type="submit">${t('common.continue')}</button>
</form>`,
  );
}

export interface DeviceConfirmPageInput {
  action: string;
  csrfToken: string;
  clientName: string;
  /** The client registered itself: its name is the registrant's word. */
  selfRegistered: boolean;
  deviceLabel: string;
  requestedAt: Date;
  now: Date;
  /** The signed-in user, as they know themselves. */
  userName: string;
  scopes: readonly Scope[];
  /** Scopes of a resource server (RFC 8707), in the operator's words. */
  apiScopes?: ReadonlyArray<{ name: string; description: string }> | undefined;
}

/** "2 minutes ago": a device code lives an hour at most. */
export function timeAgo(t: Translate, then: Date, now: Date): string {
  const seconds = Math.max(0, Math.floor((now.getTime() - then.getTime()) / 1000));
  if (seconds < 60) return t('device.justNow');
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return t.plural('device.minutesAgo', minutes);
  return t.plural('device.hoursAgo', Math.floor(minutes / 60));
}

/**
 * RFC 8628 5.4 (remote phishing): the user sees what is asking (the application, the device, when it asked) and is
 * told not to approve a code that someone else gave them.
 */
export function deviceConfirmPage(t: PageText, input: DeviceConfirmPageInput): string {
  const at = input.requestedAt.toISOString();
  return layout(
    t,
    t('device.confirmTitle'),
    html`<h1>${t('device.confirmTitle')}</h1>
<p class="lead">${t('device.asks', { client: input.clientName })}</p>
${input.selfRegistered ? unverifiedWarning(t, input.clientName) : ''}
<dl class="device">
<dt>${t('device.application')}</dt><dd id="client">${input.clientName}${input.selfRegistered ? html` <strong>${t('device.unverified')}</strong>` : ''}</dd>
<dt>${t('device.device')}</dt><dd id="device">${input.deviceLabel}</dd>
<dt>${t('device.asked')}</dt><dd id="asked"><time datetime="${at}">${timeAgo(t, input.requestedAt, input.now)}</time> (${at.slice(11, 16)} UTC)</dd>
<dt>${t('device.account')}</dt><dd id="account">${input.userName}</dd>
</dl>
<p>${t('device.ableTo')}</p>
<ul class="scopes">
${input.scopes.map((s) => html`<li>${t(SCOPE_DESCRIPTIONS[s])}</li>`)}
${(input.apiScopes ?? []).map((s) => html`<li>${s.description}</li>`)}
</ul>
<p class="warning">${t('device.warning')}</p>
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<button type="submit" name="decision" value="approve">${t('device.approve')}</button>
<button type="submit" name="decision" value="deny" class="secondary">${t('consent.deny')}</button>
</form>`,
  );
}

export function deviceDonePage(t: PageText, approved: boolean): string {
  return approved
    ? layout(t, t('device.connected'), html`<h1>${t('device.connected')}</h1><p class="lead">${t('device.connectedLead')}</p>`)
    : layout(t, t('device.denied'), html`<h1>${t('device.denied')}</h1><p class="lead">${t('device.deniedLead')}</p>`);
}
