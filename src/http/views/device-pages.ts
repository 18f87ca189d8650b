// The device verification pages (RFC 8628 3.3): the user code, the confirmation, and the outcome. No script.
import { SCOPE_DESCRIPTIONS, type Scope } from '../../domain/authorization/scope.js';
import { html } from '../../html.js';
import { unverifiedWarning } from './pages.js';
import { layout } from './layout.js';

export interface UserCodePageInput {
  action: string;
  csrfToken: string;
  /** A code that came in the link (verification_uri_complete) or was typed before. */
  userCode?: string;
  /** The code came in the link: the user is asked to compare it with the device's (RFC 8628 3.3.1). */
  fromLink?: boolean;
  error?: string;
}

export function userCodePage(input: UserCodePageInput): string {
  return layout(
    'Connect a device',
    html`<h1>Connect a device</h1>
<p class="lead">${input.fromLink ? 'Check that this is the code shown on your device, then continue.' : 'Enter the code shown on your device.'}</p>
${input.error ? html`<div class="error" role="alert">${input.error}</div>` : ''}
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<label for="user_code">Code</label>
<input type="text" id="user_code" name="user_code" value="${input.userCode ?? ''}" placeholder="XXXX-XXXX" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="32" required autofocus>
<button type="submit">Continue</button>
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
}

/** "2 minutes ago": a device code lives an hour at most. */
export function timeAgo(then: Date, now: Date): string {
  const seconds = Math.max(0, Math.floor((now.getTime() - then.getTime()) / 1000));
  if (seconds < 60) return 'less than a minute ago';
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? '' : 's'} ago`;
  const hours = Math.floor(minutes / 60);
  return `${hours} hour${hours === 1 ? '' : 's'} ago`;
}

/**
 * RFC 8628 5.4 (remote phishing): the user sees what is asking (the application, the device, when it asked) and is
 * told not to approve a code that someone else gave them.
 */
export function deviceConfirmPage(input: DeviceConfirmPageInput): string {
  const at = input.requestedAt.toISOString();
  return layout(
    'Connect this device?',
    html`<h1>Connect this device?</h1>
<p class="lead">${input.clientName} asks to use your account from a device.</p>
${input.selfRegistered ? unverifiedWarning(input.clientName) : ''}
<dl class="device">
<dt>Application</dt><dd id="client">${input.clientName}${input.selfRegistered ? html` <strong>(unverified)</strong>` : ''}</dd>
<dt>Device</dt><dd id="device">${input.deviceLabel}</dd>
<dt>Asked</dt><dd id="asked"><time datetime="${at}">${timeAgo(input.requestedAt, input.now)}</time> (${at.slice(11, 16)} UTC)</dd>
<dt>Your account</dt><dd id="account">${input.userName}</dd>
</dl>
<p>If you approve, it will be able to:</p>
<ul class="scopes">
${input.scopes.map((s) => html`<li>${SCOPE_DESCRIPTIONS[s]}</li>`)}
</ul>
<p class="warning">Approve only if you started this yourself, just now, on a device that is with you. If someone gave you this code, deny.</p>
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`,
  );
}

export function deviceDonePage(approved: boolean): string {
  return approved
    ? layout(
        'Device connected',
        html`<h1>Device connected</h1><p class="lead">You can go back to your device: it finishes signing in by itself.</p>`,
      )
    : layout('Request denied', html`<h1>Request denied</h1><p class="lead">The device was not connected. You can close this window.</p>`);
}
