// The console's SCIM token pages: the tokens (never a value), the form of a new one, the page that shows its value
// once, one token, and the confirmation before a revocation.
import { html, type SafeHtml } from '../../../html.js';
import { isExpired, MAX_EXPIRES_IN_DAYS, type ScimToken } from '../../../domain/scim/scim-tokens.js';
import { csrfField, messages, table, when } from './pages.js';

const stateOf = (token: ScimToken, now: Date) =>
  isExpired(token, now) ? 'expired' : token.expiresAt ? `valid until ${when(token.expiresAt)}` : 'valid, does not expire';

export function scimTokenListBody(base: string, tokens: readonly ScimToken[], now: Date, mayWrite: boolean): SafeHtml {
  return html`<p>Long-lived bearer tokens for SCIM provisioning clients that take a fixed one (Entra's "Secret Token", Okta's
"HTTP Header" mode). Only a digest of each is kept.</p>
${mayWrite ? html`<p><a href="${base}/scim-tokens/new">New SCIM token</a></p>` : ''}
${table(
  'SCIM tokens',
  ['Name', 'Created', 'State', 'Last used'],
  tokens.map((t) => [
    html`<a href="${base}/scim-tokens/${t.name}">${t.name}</a>`,
    when(t.createdAt),
    stateOf(t, now),
    when(t.lastUsedAt) || 'never',
  ]),
  'No SCIM token yet.',
)}`;
}

export interface NewScimTokenValues {
  name: string;
  expires_in_days: string;
}

export function newScimTokenBody(base: string, csrf: string, v: NewScimTokenValues, error?: string): SafeHtml {
  return html`${messages(undefined, error)}<form method="post" action="${base}/scim-tokens">${csrfField(csrf)}
<label for="name">Name (lowercase letters, digits, "-" or "_"; e.g. entra-prod)</label><input type="text" id="name" name="name" required maxlength="63" autocomplete="off" value="${v.name}">
<label for="expires_in_days">Expires in (whole days, 1 to ${MAX_EXPIRES_IN_DAYS}; empty: never, as Entra and Okta do not renew it)</label><input type="text" id="expires_in_days" name="expires_in_days" inputmode="numeric" value="${v.expires_in_days}">
<div><button type="submit">Create SCIM token</button></div></form>`;
}

export function scimTokenSecretBody(base: string, name: string, token: string): SafeHtml {
  return html`<p class="notice" role="status">SCIM token ${name} created.</p>
<p>The token is shown this once; paste it into the provisioning client now. Only its digest is kept.</p>
<code class="secret">${token}</code>
<p><a href="${base}/scim-tokens/${name}">Back to ${name}</a></p>`;
}

export function scimTokenBody(base: string, token: ScimToken, now: Date, mayWrite: boolean): SafeHtml {
  return html`${table(
    'SCIM token',
    ['Field', 'Value'],
    [
      ['Name', token.name],
      ['Created', when(token.createdAt)],
      ['State', stateOf(token, now)],
      ['Last used (to the minute)', when(token.lastUsedAt) || 'never'],
    ],
  )}${mayWrite ? html`<h2>Revocation</h2><p><a href="${base}/scim-tokens/${token.name}/revoke">Revoke this token</a></p>` : ''}`;
}

export function revokeScimTokenBody(base: string, name: string, csrf: string): SafeHtml {
  const path = `${base}/scim-tokens/${name}`;
  return html`<p>Revoke the SCIM token <strong>${name}</strong>? The next SCIM request with it, on any instance, is refused.
This cannot be undone.</p>
<form method="post" action="${path}/revoke">${csrfField(csrf)}<button type="submit" class="danger">Revoke ${name}</button></form>
<p><a href="${path}">Keep it</a></p>`;
}
