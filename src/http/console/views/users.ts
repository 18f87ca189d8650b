// The console's user pages: the list with its search, the form of a new user, and a user with their profile, role,
// sessions, devices and linked connections, and the actions an admin may take on them.
import { html, type SafeHtml } from '../../../html.js';
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
export function userListBody(base: string, users: readonly UserSummary[], q: string, mayWrite: boolean, next?: string): SafeHtml {
  return html`<form class="filters" method="get" action="${base}/users" role="search">
<div><label for="q">Search by username or email</label><input type="search" id="q" name="q" value="${q}"></div>
<div><button type="submit">Search</button></div></form>
${mayWrite ? html`<p><a href="${base}/users/new">New user</a></p>` : ''}
${table(
  'Users',
  ['Username', 'Email', 'State', 'Created'],
  users.map((u) => [
    html`<a href="${base}/users/${u.id}">${u.username}</a>`,
    u.email ?? '',
    u.disabledAt ? 'disabled' : 'active',
    when(u.createdAt),
  ]),
  'No user matches.',
)}
${nextPageLink(`${base}/users`, q, next)}`;
}

const ROLE_CHOICES = [
  ['none', 'No console role'],
  ['auditor', 'Auditor (read only)'],
  ['admin', 'Admin'],
] as const;

function roleSelect(selected: string): SafeHtml {
  return html`<label for="role">Console role</label><select id="role" name="role">${ROLE_CHOICES.map(
    ([value, name]) => html`<option value="${value}"${value === selected ? html` selected` : ''}>${name}</option>`,
  )}</select>`;
}

export function newUserBody(base: string, csrf: string, v: NewUserValues, error?: string): SafeHtml {
  return html`${messages(undefined, error)}<form method="post" action="${base}/users">${csrfField(csrf)}
<label for="username">Username</label><input type="text" id="username" name="username" required autocomplete="off" value="${v.username}">
<label for="email">Email</label><input type="email" id="email" name="email" autocomplete="off" value="${v.email}">
<label for="name">Full name</label><input type="text" id="name" name="name" autocomplete="off" value="${v.name}">
<label for="password">Password</label><input type="password" id="password" name="password" required autocomplete="new-password">
${roleSelect(v.role)}
<div><button type="submit">Create user</button></div></form>`;
}

export interface UserView {
  user: UserDetails;
  sessions: readonly LiveSession[];
  devices: readonly AccountDevice[];
  links: readonly AccountLink[];
  csrf: string | null;
  /** The user's revision, as the API's ETag: the edit form is refused once it changed (console-revision.ts). */
  revision: string;
  notice?: string;
  error?: string;
  resetUrl?: string;
}

export function userBody(base: string, v: UserView): SafeHtml {
  const { user, csrf } = v;
  const path = `${base}/users/${user.id}`;
  const name = typeof user.claims.name === 'string' ? user.claims.name : '';
  const profile = table(
    'Profile',
    ['Field', 'Value'],
    [
      ['Id', user.id],
      ['Username', user.username],
      ['Email', `${user.email ?? ''}${user.email ? (user.emailVerified ? ' (verified)' : ' (not verified)') : ''}`],
      ['State', user.disabledAt ? `disabled since ${when(user.disabledAt)}` : 'active'],
      ['Console role', user.role],
      ['Groups', user.groups.join(', ')],
      ['Authenticator app', user.authenticatorApp ? 'enrolled' : 'none'],
      ['Created', when(user.createdAt)],
    ],
  );
  const sessions = table(
    'Live sessions',
    ['Kind', 'Signed in', 'Methods', 'Device', 'Clients', 'Last used', 'Expires'],
    v.sessions.map((s) => [
      s.kind === 'console' ? 'Console' : 'Browser',
      when(s.authTime),
      s.amr.join(' '),
      s.deviceLabel ?? '',
      s.clientIds.join(' '),
      s.lastSeenAt ? when(s.lastSeenAt) : '',
      when(s.expiresAt),
    ]),
    'No live session.',
  );
  const devices = table(
    'Devices',
    ['Device', 'First seen', 'Last seen', 'Sign-ins', 'Trusted', ...(csrf ? ['Action'] : [])],
    v.devices.map((d) => [
      d.label,
      when(d.firstSeenAt),
      when(d.lastSeenAt),
      d.signInCount,
      d.trusted ? 'yes' : 'no',
      ...(csrf ? [buttonForm(`${path}/devices/${encodeURIComponent(d.id)}/revoke`, csrf, `Revoke ${d.label}`, true)] : []),
    ]),
    'No device.',
  );
  const links = table(
    'Linked connections',
    ['Connection', 'Subject', 'Linked', 'Last used'],
    v.links.map((l) => [l.name, l.subject, when(l.linkedAt), when(l.lastUsedAt)]),
    'No linked connection.',
  );
  const reset = v.resetUrl
    ? html`<p class="notice" role="status">A reset link for this user, valid for a limited time; hand it over privately:</p><code class="secret">${v.resetUrl}</code>`
    : '';
  if (!csrf) {
    return html`${messages(v.notice, v.error)}${profile}<h2>Sessions</h2>${sessions}<h2>Devices</h2>${devices}<h2>Connections</h2>${links}`;
  }
  return html`${messages(v.notice, v.error)}${reset}${profile}
<h2>Actions</h2>
<p>${user.disabledAt ? buttonForm(`${path}/enable`, csrf, 'Enable user') : buttonForm(`${path}/disable`, csrf, 'Disable user', true)}
${user.email ? buttonForm(`${path}/reset-link`, csrf, 'Email a password reset link') : ''}
${buttonForm(`${path}/reset-link/show`, csrf, 'Show a password reset link')}
${user.authenticatorApp ? buttonForm(`${path}/second-factor/reset`, csrf, 'Reset second factor', true) : ''}</p>
<h2>Edit</h2>
<form method="post" action="${path}">${csrfField(csrf)}${revisionField(v.revision)}
<label for="username">Username</label><input type="text" id="username" name="username" required value="${user.username}">
<label for="email">Email</label><input type="email" id="email" name="email" value="${user.email ?? ''}">
<label for="name">Full name</label><input type="text" id="name" name="name" value="${name}">
${roleSelect(user.role)}
<div><button type="submit">Save changes</button></div></form>
<h2>Sessions</h2>${sessions}${v.sessions.length ? buttonForm(`${path}/sessions/revoke`, csrf, 'Sign out everywhere', true) : ''}
<h2>Devices</h2>${devices}
<h2>Connections</h2>${links}`;
}
