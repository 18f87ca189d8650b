// The console's user pages: the list with its search, the form of a new user, and a user with their profile, role,
// sessions, devices and linked connections, and the actions an admin may take on them.
import { html, type SafeHtml } from '../../../html.js';
import type { Translate } from '../../../i18n/translate.js';
import { nextPageLink } from './layout.js';
import type { UserDetails, UserSummary } from '../../../domain/admin/user-admin.js';
import type { AccountDevice } from '../../../domain/risk/devices.js';
import type { AccountLink } from '../../../domain/connections/account-links.js';
import type { LiveSession } from '../../../domain/admin/user-admin.js';
import { buttonForm, csrfField, messages, revisionField, table, when } from './pages.js';

export interface NewUserValues {
  username: string;
  email: string;
  name: string;
  role: string;
}

/** `next`: the last id of this page when there is another one after it (the "Next page" link). */
export function userListBody(
  t: Translate,
  base: string,
  users: readonly UserSummary[],
  q: string,
  mayWrite: boolean,
  next?: string,
): SafeHtml {
  return html`<form class="filters" method="get" action="${base}/users" role="search">
<div><label for="q">${t('console.users.searchLabel')}</label><input type="search" id="q" name="q" value="${q}"></div>
<div><button type="submit">${t('console.search')}</button></div></form>
${mayWrite ? html`<p><a href="${base}/users/new">${t('console.users.new')}</a></p>` : ''}
${table(
  t('console.users.title'),
  [t('console.username'), t('console.email'), t('console.state'), t('console.created')],
  users.map((u) => [
    html`<a href="${base}/users/${u.id}">${u.username}</a>`,
    u.email ?? '',
    u.disabledAt ? t('console.users.disabled') : t('console.users.active'),
    when(u.createdAt),
  ]),
  t('console.users.noMatch'),
)}
${nextPageLink(t, `${base}/users`, q, next)}`;
}

const ROLE_CHOICES = [
  ['none', 'console.users.role.none'],
  ['auditor', 'console.users.role.auditor'],
  ['admin', 'console.users.role.admin'],
] as const;

function roleSelect(t: Translate, selected: string): SafeHtml {
  return html`<label for="role">${t('console.users.role')}</label><select id="role" name="role">${ROLE_CHOICES.map(
    ([value, name]) => html`<option value="${value}"${value === selected ? html` selected` : ''}>${t(name)}</option>`,
  )}</select>`;
}

export function newUserBody(t: Translate, base: string, csrf: string, v: NewUserValues, error?: string): SafeHtml {
  return html`${messages(undefined, error)}<form method="post" action="${base}/users">${csrfField(csrf)}
<label for="username">${t('console.username')}</label><input type="text" id="username" name="username" required autocomplete="off" value="${v.username}">
<label for="email">${t('console.email')}</label><input type="email" id="email" name="email" autocomplete="off" value="${v.email}">
<label for="name">${t('console.users.fullName')}</label><input type="text" id="name" name="name" autocomplete="off" value="${v.name}">
<label for="password">${t('console.users.password')}</label><input type="password" id="password" name="password" required autocomplete="new-password">
${roleSelect(t, v.role)}
<div><button type="submit">${t('console.users.create')}</button></div></form>`;
}

export interface UserView {
  user: UserDetails;
  sessions: readonly LiveSession[];
  devices: readonly AccountDevice[];
  links: readonly AccountLink[];
  csrf: string | null;
  /** The user's revision, as the API's ETag: the edit form is refused once it changed (console-revision.ts). */
  revision: string;
  notice?: string | undefined;
  error?: string;
  resetUrl?: string;
}

export function userBody(t: Translate, base: string, v: UserView): SafeHtml {
  const { user, csrf } = v;
  const path = `${base}/users/${user.id}`;
  const name = typeof user.claims.name === 'string' ? user.claims.name : '';
  const email = user.email
    ? t(user.emailVerified ? 'console.users.emailVerified' : 'console.users.emailNotVerified', { email: user.email })
    : '';
  const profile = table(
    t('console.users.profile'),
    [t('console.field'), t('console.value')],
    [
      [t('console.id'), user.id],
      [t('console.username'), user.username],
      [t('console.email'), email],
      [t('console.state'), user.disabledAt ? t('console.users.disabledSince', { when: when(user.disabledAt) }) : t('console.users.active')],
      [t('console.users.role'), user.role === 'admin' || user.role === 'auditor' ? t(`console.role.${user.role}`) : t('console.none')],
      [t('console.users.groups'), user.groups.join(', ')],
      [t('console.users.authenticatorApp'), user.authenticatorApp ? t('console.users.enrolled') : t('console.none')],
      [t('console.created'), when(user.createdAt)],
    ],
  );
  const sessions = table(
    t('console.users.liveSessions'),
    [
      t('console.users.sessionKind'),
      t('console.users.signedIn'),
      t('console.users.methods'),
      t('console.users.device'),
      t('console.users.clients'),
      t('console.lastUsed'),
      t('console.users.expires'),
    ],
    v.sessions.map((s) => [
      s.kind === 'console' ? t('console.users.kindConsole') : t('console.users.kindBrowser'),
      when(s.authTime),
      s.amr.join(' '),
      s.deviceLabel ?? '',
      s.clientIds.join(' '),
      s.lastSeenAt ? when(s.lastSeenAt) : '',
      when(s.expiresAt),
    ]),
    t('console.users.noSession'),
  );
  const devices = table(
    t('console.users.devices'),
    [
      t('console.users.device'),
      t('console.users.firstSeen'),
      t('console.users.lastSeen'),
      t('console.users.signIns'),
      t('console.users.trusted'),
      ...(csrf ? [t('console.action')] : []),
    ],
    v.devices.map((d) => [
      d.label,
      when(d.firstSeenAt),
      when(d.lastSeenAt),
      d.signInCount,
      d.trusted ? t('console.yes') : t('console.no'),
      ...(csrf
        ? [
            buttonForm(
              `${path}/devices/${encodeURIComponent(d.id)}/revoke`,
              csrf,
              t('console.users.revokeDevice', { device: d.label }),
              true,
            ),
          ]
        : []),
    ]),
    t('console.users.noDevice'),
  );
  const links = table(
    t('console.users.linkedConnections'),
    [t('console.users.connection'), t('console.users.subject'), t('console.users.linked'), t('console.lastUsed')],
    v.links.map((l) => [l.name, l.subject, when(l.linkedAt), when(l.lastUsedAt)]),
    t('console.users.noLink'),
  );
  const reset = v.resetUrl
    ? html`<p class="notice" role="status">${t('console.users.resetLinkShown')}</p><code class="secret">${v.resetUrl}</code>`
    : '';
  const headings = {
    sessions: t('console.users.sessions'),
    devices: t('console.users.devices'),
    connections: t('console.users.connections'),
  };
  if (!csrf) {
    return html`${messages(v.notice, v.error)}${profile}<h2>${headings.sessions}</h2>${sessions}<h2>${headings.devices}</h2>${devices}<h2>${headings.connections}</h2>${links}`;
  }
  return html`${messages(v.notice, v.error)}${reset}${profile}
<h2>${t('console.actions')}</h2>
<p>${user.disabledAt ? buttonForm(`${path}/enable`, csrf, t('console.users.enable')) : buttonForm(`${path}/disable`, csrf, t('console.users.disable'), true)}
${user.email ? buttonForm(`${path}/reset-link`, csrf, t('console.users.emailResetLink')) : ''}
${buttonForm(`${path}/reset-link/show`, csrf, t('console.users.showResetLink'))}
${user.authenticatorApp ? buttonForm(`${path}/second-factor/reset`, csrf, t('console.users.resetSecondFactor'), true) : ''}</p>
<h2>${t('console.edit')}</h2>
<form method="post" action="${path}">${csrfField(csrf)}${revisionField(v.revision)}
<label for="username">${t('console.username')}</label><input type="text" id="username" name="username" required value="${user.username}">
<label for="email">${t('console.email')}</label><input type="email" id="email" name="email" value="${user.email ?? ''}">
<label for="name">${t('console.users.fullName')}</label><input type="text" id="name" name="name" value="${name}">
${roleSelect(t, user.role)}
<div><button type="submit">${t('console.saveChanges')}</button></div></form>
<h2>${headings.sessions}</h2>${sessions}${v.sessions.length ? buttonForm(`${path}/sessions/revoke`, csrf, t('console.users.signOutEverywhere'), true) : ''}
<h2>${headings.devices}</h2>${devices}
<h2>${headings.connections}</h2>${links}`;
}
