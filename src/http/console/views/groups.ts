// The console's group pages: the list with member counts, the form of a new group, a group with its edit form and
// its members (add by username or email, remove), and the confirmation before a deletion.
import { html, type SafeHtml } from '../../../html.js';
import type { GroupMember, GroupSummary } from '../../../domain/groups/group-admin.js';
import { MAX_GROUP_DESCRIPTION_LENGTH, MAX_GROUP_NAME_LENGTH } from '../../../domain/groups/group-names.js';
import { csrfField, messages, revisionField, table, when } from './pages.js';

/** What the form shows: a group's name and description, or what was typed into a refused form. */
export interface GroupFormValues {
  name: string;
  description: string;
}

export function groupListBody(base: string, groups: readonly GroupSummary[], mayWrite: boolean): SafeHtml {
  return html`${mayWrite ? html`<p><a href="${base}/groups/new">New group</a></p>` : ''}
${table(
  'Groups',
  ['Name', 'Description', 'Members', 'Updated'],
  groups.map((g) => [html`<a href="${base}/groups/${g.id}">${g.name}</a>`, g.description ?? '', g.members, when(g.updatedAt)]),
  'No group yet.',
)}`;
}

function groupFields(v: GroupFormValues): SafeHtml {
  return html`<label for="name">Name (what the groups claim says)</label><input type="text" id="name" name="name" required maxlength="${MAX_GROUP_NAME_LENGTH}" value="${v.name}">
<label for="description">Description (optional)</label><textarea id="description" name="description" maxlength="${MAX_GROUP_DESCRIPTION_LENGTH}">${v.description}</textarea>`;
}

export function newGroupBody(base: string, csrf: string, v: GroupFormValues, error?: string): SafeHtml {
  return html`${messages(undefined, error)}<form method="post" action="${base}/groups">${csrfField(csrf)}${groupFields(v)}
<div><button type="submit">Create group</button></div></form>`;
}

export interface GroupView {
  group: GroupSummary;
  members: readonly GroupMember[];
  /** The ids of the clients limited to the group. */
  clients: readonly string[];
  /** The form token, or null for a reader (an auditor): then no form at all. */
  csrf: string | null;
  /** The group's revision, as the API's ETag: the edit form is refused once it changed (console-revision.ts). */
  revision: string;
  values?: GroupFormValues;
  /** What was typed into a refused member form. */
  member?: string;
  notice?: string | undefined;
  error?: string | undefined;
}

export function groupBody(base: string, view: GroupView): SafeHtml {
  const { group, csrf } = view;
  const path = `${base}/groups/${group.id}`;
  const details = table(
    'Group details',
    ['Field', 'Value'],
    [
      ['Id', group.id],
      ['Name', group.name],
      ['Description', group.description ?? ''],
      ['Members', group.members],
      ['Created', when(group.createdAt)],
      ['Updated', when(group.updatedAt)],
    ],
  );
  const members = table(
    `Members of ${group.name}`,
    csrf ? ['Username', 'Email', 'Added', 'Action'] : ['Username', 'Email', 'Added'],
    view.members.map((m) => [
      html`<a href="${base}/users/${m.id}">${m.username}</a>`,
      m.email ?? '',
      when(m.addedAt),
      ...(csrf
        ? [
            html`<form class="inline" method="post" action="${path}/members/${m.id}/remove">${csrfField(csrf)}<button type="submit" aria-label="Remove ${m.username}">Remove</button></form>`,
          ]
        : []),
    ]),
    'No member yet.',
  );
  const clients = html`<h2>Clients limited to this group</h2>${
    view.clients.length === 0
      ? html`<p>None: no client admits only this group's members.</p>`
      : html`<ul>${view.clients.map((id) => html`<li><a href="${base}/clients/${encodeURIComponent(id)}">${id}</a></li>`)}</ul>
<p class="meta">A client's groups are changed with the management API or the command line (sso-admin clients update --allowed-groups).</p>`
  }`;
  if (!csrf) return html`${messages(view.notice, view.error)}${details}<h2>Members</h2>${members}${clients}`;
  const v = view.values ?? { name: group.name, description: group.description ?? '' };
  return html`${messages(view.notice, view.error)}${details}
<h2>Members</h2>${members}
<form method="post" action="${path}/members">${csrfField(csrf)}
<label for="member">Add a member by username or email</label><input type="text" id="member" name="member" required value="${view.member ?? ''}">
<div><button type="submit">Add member</button></div></form>
${clients}
<h2>Edit</h2>
<form method="post" action="${path}">${csrfField(csrf)}${revisionField(view.revision)}${groupFields(v)}
<div><button type="submit">Save changes</button></div></form>
<h2>Removal</h2>
<p><a href="${path}/delete">Delete this group</a></p>`;
}

export function deleteGroupBody(base: string, group: GroupSummary, clients: readonly string[], csrf: string, revision: string): SafeHtml {
  const path = `${base}/groups/${group.id}`;
  return html`<p>Delete the group <strong>${group.name}</strong> and its ${group.members} memberships? Its members lose it from
their next token on. This cannot be undone.</p>
${
  clients.length > 0
    ? html`<p>These clients are limited to it: ${clients.join(', ')}. Each keeps its other groups, or admits nobody if it
had no other.</p>`
    : ''
}
<form method="post" action="${path}/delete">${csrfField(csrf)}${revisionField(revision)}<button type="submit" class="danger">Delete ${group.name}</button></form>
<p><a href="${path}">Keep it</a></p>`;
}
