// The console's group pages: the list with member counts, the form of a new group, a group with its edit form and
// its members (add by username or email, remove), and the confirmation before a deletion.
import { html, type SafeHtml } from '../../../html.js';
import type { Translate } from '../../../i18n/translate.js';
import type { GroupMember, GroupSummary } from '../../../domain/groups/group-admin.js';
import { MAX_GROUP_DESCRIPTION_LENGTH, MAX_GROUP_NAME_LENGTH } from '../../../domain/groups/group-names.js';
import { csrfField, emphasised, messages, revisionField, table, when } from './pages.js';

/** What the form shows: a group's name and description, or what was typed into a refused form. */
export interface GroupFormValues {
  name: string;
  description: string;
}

export function groupListBody(t: Translate, base: string, groups: readonly GroupSummary[], mayWrite: boolean): SafeHtml {
  return html`${mayWrite ? html`<p><a href="${base}/groups/new">${t('console.groups.new')}</a></p>` : ''}
${table(
  t('console.groups.title'),
  [t('console.name'), t('console.description'), t('console.groups.members'), t('console.updated')],
  groups.map((g) => [html`<a href="${base}/groups/${g.id}">${g.name}</a>`, g.description ?? '', g.members, when(g.updatedAt)]),
  t('console.groups.none'),
)}`;
}

function groupFields(t: Translate, v: GroupFormValues): SafeHtml {
  return html`<label for="name">${t('console.groups.nameField')}</label><input type="text" id="name" name="name" required maxlength="${MAX_GROUP_NAME_LENGTH}" value="${v.name}">
<label for="description">${t('console.descriptionOptional')}</label><textarea id="description" name="description" maxlength="${MAX_GROUP_DESCRIPTION_LENGTH}">${v.description}</textarea>`;
}

export function newGroupBody(t: Translate, base: string, csrf: string, v: GroupFormValues, error?: string): SafeHtml {
  return html`${messages(undefined, error)}<form method="post" action="${base}/groups">${csrfField(csrf)}${groupFields(t, v)}
<div><button type="submit">${t('console.groups.create')}</button></div></form>`;
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

export function groupBody(t: Translate, base: string, view: GroupView): SafeHtml {
  const { group, csrf } = view;
  const path = `${base}/groups/${group.id}`;
  const details = table(
    t('console.groups.details'),
    [t('console.field'), t('console.value')],
    [
      [t('console.id'), group.id],
      [t('console.name'), group.name],
      [t('console.description'), group.description ?? ''],
      [t('console.groups.members'), group.members],
      [t('console.created'), when(group.createdAt)],
      [t('console.updated'), when(group.updatedAt)],
    ],
  );
  const members = table(
    t('console.groups.membersOf', { name: group.name }),
    [t('console.username'), t('console.email'), t('console.groups.added'), ...(csrf ? [t('console.action')] : [])],
    view.members.map((m) => [
      html`<a href="${base}/users/${m.id}">${m.username}</a>`,
      m.email ?? '',
      when(m.addedAt),
      ...(csrf
        ? [
            html`<form class="inline" method="post" action="${path}/members/${m.id}/remove">${csrfField(csrf)}<button type="submit" aria-label="${t('console.groups.removeNamed', { username: m.username })}">${t('console.groups.remove')}</button></form>`,
          ]
        : []),
    ]),
    t('console.groups.noMember'),
  );
  const clients = html`<h2>${t('console.groups.clients')}</h2>${
    view.clients.length === 0
      ? html`<p>${t('console.groups.noClients')}</p>`
      : html`<ul>${view.clients.map((id) => html`<li><a href="${base}/clients/${encodeURIComponent(id)}">${id}</a></li>`)}</ul>
<p class="meta">${t('console.groups.clientsHow')} (sso-admin clients update --allowed-groups)</p>`
  }`;
  if (!csrf) return html`${messages(view.notice, view.error)}${details}<h2>${t('console.groups.members')}</h2>${members}${clients}`;
  const v = view.values ?? { name: group.name, description: group.description ?? '' };
  return html`${messages(view.notice, view.error)}${details}
<h2>${t('console.groups.members')}</h2>${members}
<form method="post" action="${path}/members">${csrfField(csrf)}
<label for="member">${t('console.groups.memberField')}</label><input type="text" id="member" name="member" required value="${view.member ?? ''}">
<div><button type="submit">${t('console.groups.add')}</button></div></form>
${clients}
<h2>${t('console.edit')}</h2>
<form method="post" action="${path}">${csrfField(csrf)}${revisionField(view.revision)}${groupFields(t, v)}
<div><button type="submit">${t('console.saveChanges')}</button></div></form>
<h2>${t('console.removal')}</h2>
<p><a href="${path}/delete">${t('console.groups.deleteThis')}</a></p>`;
}

export function deleteGroupBody(
  t: Translate,
  base: string,
  group: GroupSummary,
  clients: readonly string[],
  csrf: string,
  revision: string,
): SafeHtml {
  const path = `${base}/groups/${group.id}`;
  return html`<p>${emphasised(t, 'console.groups.deleteQuestion', 'name', group.name, { members: group.members })} ${t('console.cannotBeUndone')}</p>
${clients.length > 0 ? html`<p>${t('console.groups.deleteClients', { clients: clients.join(', ') })}</p>` : ''}
<form method="post" action="${path}/delete">${csrfField(csrf)}${revisionField(revision)}<button type="submit" class="danger">${t('console.deleteNamed', { name: group.name })}</button></form>
<p><a href="${path}">${t('console.keepIt')}</a></p>`;
}
