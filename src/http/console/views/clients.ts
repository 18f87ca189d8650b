// The console's client pages: the list with its search, a client with its edit form, the form of a new client, the
// page that shows a secret once, and the confirmation before a deletion.
import { html, type SafeHtml } from '../../../html.js';
import type { Translate } from '../../../i18n/translate.js';
import { nextPageLink } from './layout.js';
import type { RegisteredClient } from '../../../domain/clients/client-admin.js';
import { buttonForm, csrfField, emphasised, messages, revisionField, table, when } from './pages.js';

export const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt', 'client_secret_jwt'] as const;

/** What the form shows: a client's entry, or what was typed into a refused form. */
export interface ClientFormValues {
  client_id: string;
  client_name: string;
  redirect_uris: string;
  post_logout_redirect_uris: string;
  grant_types: string;
  token_endpoint_auth_method: string;
  /** 'on' when the client requires a second factor (the checkbox's value), else ''. */
  require_mfa: string;
  /** 'on' when the client admits only members of `allowed_groups` (src/domain/groups/allowed-groups.ts), else ''. */
  limit_groups: string;
  /** The names of those groups, one per line (a name may hold spaces). */
  allowed_groups: string;
}

export function formValuesOf(client: RegisteredClient): ClientFormValues {
  const e = client.entry;
  return {
    client_id: e.client_id,
    client_name: e.client_name ?? '',
    redirect_uris: (e.redirect_uris ?? []).join('\n'),
    post_logout_redirect_uris: (e.post_logout_redirect_uris ?? []).join('\n'),
    grant_types: (e.grant_types ?? ['authorization_code']).join(' '),
    token_endpoint_auth_method: e.token_endpoint_auth_method ?? 'client_secret_basic',
    require_mfa: e.require_mfa === true ? 'on' : '',
    limit_groups: e.allowed_groups === undefined ? '' : 'on',
    allowed_groups: (e.allowed_groups ?? []).join('\n'),
  };
}

/** `next`: the last client id of this page when there is another one after it (the "Next page" link). */
export function clientListBody(
  t: Translate,
  base: string,
  clients: readonly RegisteredClient[],
  q: string,
  mayWrite: boolean,
  next?: string,
): SafeHtml {
  return html`<form class="filters" method="get" action="${base}/clients" role="search">
<div><label for="q">${t('console.clients.searchLabel')}</label><input type="search" id="q" name="q" value="${q}"></div>
<div><button type="submit">${t('console.search')}</button></div></form>
${mayWrite ? html`<p><a href="${base}/clients/new">${t('console.clients.new')}</a></p>` : ''}
${table(
  t('console.clients.title'),
  [
    t('console.clients.clientId'),
    t('console.name'),
    t('console.clients.authentication'),
    t('console.clients.redirectUris'),
    t('console.updated'),
  ],
  clients.map((c) => [
    html`<a href="${base}/clients/${encodeURIComponent(c.entry.client_id)}">${c.entry.client_id}</a>`,
    c.entry.client_name ?? '',
    c.entry.token_endpoint_auth_method ?? 'client_secret_basic',
    (c.entry.redirect_uris ?? []).join(' '),
    when(c.updatedAt),
  ]),
  t('console.clients.noMatch'),
)}
${nextPageLink(t, `${base}/clients`, q, next)}`;
}

function clientFields(t: Translate, v: ClientFormValues, isNew: boolean): SafeHtml {
  return html`${
    isNew
      ? html`<label for="client_id">${t('console.clients.clientId')}</label><input type="text" id="client_id" name="client_id" required value="${v.client_id}">`
      : ''
  }
<label for="client_name">${t('console.name')}</label><input type="text" id="client_name" name="client_name" value="${v.client_name}">
<label for="redirect_uris">${t('console.clients.redirectUrisField')}</label><textarea id="redirect_uris" name="redirect_uris">${v.redirect_uris}</textarea>
<label for="post_logout_redirect_uris">${t('console.clients.postLogoutField')}</label><textarea id="post_logout_redirect_uris" name="post_logout_redirect_uris">${v.post_logout_redirect_uris}</textarea>
<label for="grant_types">${t('console.clients.grantTypesField')}</label><input type="text" id="grant_types" name="grant_types" value="${v.grant_types}">
<label for="token_endpoint_auth_method">${t('console.clients.authField')}</label><select id="token_endpoint_auth_method" name="token_endpoint_auth_method">${AUTH_METHODS.map(
    (m) => html`<option value="${m}"${m === v.token_endpoint_auth_method ? html` selected` : ''}>${m}</option>`,
  )}</select>
<div class="check"><input type="checkbox" id="require_mfa" name="require_mfa"${v.require_mfa === 'on' ? html` checked` : ''}><label for="require_mfa">${t('console.clients.requireMfa')}</label></div>
<div class="check"><input type="checkbox" id="limit_groups" name="limit_groups"${v.limit_groups === 'on' ? html` checked` : ''}><label for="limit_groups">${t('console.clients.limitGroups')}</label></div>
<label for="allowed_groups">${t('console.clients.allowedGroups')}</label><textarea id="allowed_groups" name="allowed_groups">${v.allowed_groups}</textarea>`;
}

export function newClientBody(t: Translate, base: string, csrf: string, v: ClientFormValues, error?: string): SafeHtml {
  return html`${messages(undefined, error)}<form method="post" action="${base}/clients">${csrfField(csrf)}${clientFields(t, v, true)}
<div><button type="submit">${t('console.clients.create')}</button></div></form>`;
}

export function clientBody(
  t: Translate,
  base: string,
  client: RegisteredClient,
  view: { csrf: string | null; revision: string; values?: ClientFormValues; notice?: string; error?: string },
): SafeHtml {
  const id = client.entry.client_id;
  const path = `${base}/clients/${encodeURIComponent(id)}`;
  const details = table(
    t('console.clients.details'),
    [t('console.field'), t('console.value')],
    [
      [t('console.clients.clientId'), id],
      [
        t('console.clients.secret'),
        client.hasSecret ? t('console.clients.secretHeld', { storage: client.secretStorage ?? '' }) : t('console.none'),
      ],
      [t('console.clients.revision'), client.revision],
      [t('console.created'), when(client.createdAt)],
      [t('console.updated'), when(client.updatedAt)],
      ...Object.entries(client.entry)
        .filter(([k]) => k !== 'client_id')
        .map(([k, v]) => [k, Array.isArray(v) ? v.join(' ') : typeof v === 'object' ? JSON.stringify(v) : String(v)]),
    ],
  );
  if (!view.csrf) return html`${messages(view.notice, view.error)}${details}`;
  return html`${messages(view.notice, view.error)}${details}
<h2>${t('console.edit')}</h2>
<form method="post" action="${path}">${csrfField(view.csrf)}${revisionField(view.revision)}${clientFields(t, view.values ?? formValuesOf(client), false)}
<div><button type="submit">${t('console.saveChanges')}</button></div></form>
<h2>${t('console.clients.secretAndRemoval')}</h2>
<p>${client.hasSecret ? buttonForm(`${path}/rotate`, view.csrf, t('console.clients.rotate')) : ''}<a href="${path}/delete">${t('console.clients.deleteThis')}</a></p>`;
}

export function secretBody(t: Translate, base: string, clientId: string, secret: string, what: string): SafeHtml {
  return html`<p class="notice" role="status">${what}</p>
<p>${t('console.clients.secretOnce')}</p>
<code class="secret">${secret}</code>
<p><a href="${base}/clients/${encodeURIComponent(clientId)}">${t('console.backTo', { name: clientId })}</a></p>`;
}

export function deleteClientBody(t: Translate, base: string, clientId: string, csrf: string, revision: string): SafeHtml {
  const path = `${base}/clients/${encodeURIComponent(clientId)}`;
  return html`<p>${emphasised(t, 'console.clients.deleteQuestion', 'id', clientId)} ${t('console.cannotBeUndone')}</p>
<form method="post" action="${path}/delete">${csrfField(csrf)}${revisionField(revision)}<button type="submit" class="danger">${t('console.deleteNamed', { name: clientId })}</button></form>
<p><a href="${path}">${t('console.keepIt')}</a></p>`;
}
