// The console's SCIM token pages: the tokens (never a value), the form of a new one, the page that shows its value
// once, one token, and the confirmation before a revocation.
import { html, type SafeHtml } from '../../../html.js';
import type { Translate } from '../../../i18n/translate.js';
import { isExpired, MAX_EXPIRES_IN_DAYS, type ScimToken } from '../../../domain/scim/scim-tokens.js';
import { csrfField, emphasised, messages, table, when } from './pages.js';

const stateOf = (t: Translate, token: ScimToken, now: Date) =>
  isExpired(token, now)
    ? t('console.scimTokens.expired')
    : token.expiresAt
      ? t('console.scimTokens.validUntil', { when: when(token.expiresAt) })
      : t('console.scimTokens.validForever');

export function scimTokenListBody(t: Translate, base: string, tokens: readonly ScimToken[], now: Date, mayWrite: boolean): SafeHtml {
  return html`<p>${t('console.scimTokens.lead')}</p>
${mayWrite ? html`<p><a href="${base}/scim-tokens/new">${t('console.scimTokens.new')}</a></p>` : ''}
${table(
  t('console.scimTokens.title'),
  [t('console.name'), t('console.created'), t('console.state'), t('console.lastUsed')],
  tokens.map((token) => [
    html`<a href="${base}/scim-tokens/${token.name}">${token.name}</a>`,
    when(token.createdAt),
    stateOf(t, token, now),
    when(token.lastUsedAt) || t('console.never'),
  ]),
  t('console.scimTokens.none'),
)}`;
}

export interface NewScimTokenValues {
  name: string;
  expires_in_days: string;
}

export function newScimTokenBody(t: Translate, base: string, csrf: string, v: NewScimTokenValues, error?: string): SafeHtml {
  return html`${messages(undefined, error)}<form method="post" action="${base}/scim-tokens">${csrfField(csrf)}
<label for="name">${t('console.scimTokens.nameField')}</label><input type="text" id="name" name="name" required maxlength="63" autocomplete="off" value="${v.name}">
<label for="expires_in_days">${t('console.scimTokens.expiresField', { max: MAX_EXPIRES_IN_DAYS })}</label><input type="text" id="expires_in_days" name="expires_in_days" inputmode="numeric" value="${v.expires_in_days}">
<div><button type="submit">${t('console.scimTokens.create')}</button></div></form>`;
}

export function scimTokenSecretBody(t: Translate, base: string, name: string, token: string): SafeHtml {
  return html`<p class="notice" role="status">${t('console.scimTokens.created', { name })}</p>
<p>${t('console.scimTokens.once')}</p>
<code class="secret">${token}</code>
<p><a href="${base}/scim-tokens/${name}">${t('console.backTo', { name })}</a></p>`;
}

export function scimTokenBody(t: Translate, base: string, token: ScimToken, now: Date, mayWrite: boolean): SafeHtml {
  return html`${table(
    t('console.scimTokens.details'),
    [t('console.field'), t('console.value')],
    [
      [t('console.name'), token.name],
      [t('console.created'), when(token.createdAt)],
      [t('console.state'), stateOf(t, token, now)],
      [t('console.scimTokens.lastUsedMinute'), when(token.lastUsedAt) || t('console.never')],
    ],
  )}${
    mayWrite
      ? html`<h2>${t('console.scimTokens.revocation')}</h2><p><a href="${base}/scim-tokens/${token.name}/revoke">${t('console.scimTokens.revokeThis')}</a></p>`
      : ''
  }`;
}

export function revokeScimTokenBody(t: Translate, base: string, name: string, csrf: string): SafeHtml {
  const path = `${base}/scim-tokens/${name}`;
  return html`<p>${emphasised(t, 'console.scimTokens.revokeQuestion', 'name', name)} ${t('console.cannotBeUndone')}</p>
<form method="post" action="${path}/revoke">${csrfField(csrf)}<button type="submit" class="danger">${t('console.scimTokens.revokeNamed', { name })}</button></form>
<p><a href="${path}">${t('console.keepIt')}</a></p>`;
}
