// The console's directory pages (docs/directories.md): the LDAP and Active Directory servers the password form checks
// passwords against, listed in search order, shown, added, replaced, removed and tested through
// src/domain/directories/directory-admin.ts, as `sso-admin directories` does (entities.ts). The bind password is
// typed into a password field each time the entry is saved (it is stored sealed and never shown back), as the
// command line asks for it on each add. The management API has no directories, so there is no revision to compare.
import type { FastifyInstance } from 'fastify';
import { AdminError } from '../../domain/admin-error.js';
import {
  addDirectory,
  listDirectorySummaries,
  removeDirectory,
  showDirectory,
  testDirectory,
  type DirectorySummary,
} from '../../domain/directories/directory-admin.js';
import type { DirectoryInput } from '../../domain/directories/directory-settings.js';
import type { ProviderContext } from '../../domain/context.js';
import type { RawParams } from '../../domain/params.js';
import { html } from '../../html.js';
import { csrfField } from './views/pages.js';
import { shown } from './views/entities.js';
import { attempt, field } from './console-forms.js';
import { adminContextOf } from './console-http.js';
import { entityPages } from './entities.js';

const idParams = { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 64 } }, required: ['id'] } as const;

export function directoryPages(app: FastifyInstance, ctx: ProviderContext, base: string): void {
  const render = entityPages<DirectorySummary>(app, ctx, base, {
    title: 'Directories',
    words: {
      path: '/directories',
      noun: 'directory',
      idField: 'id',
      lead: 'LDAP and Active Directory servers the sign-in form checks passwords against, searched in this order (user federation).',
      secret: {
        name: 'bind_password',
        label: "The service account's bind password (stored sealed, never shown; typed again on each save)",
      },
    },
    list: listDirectorySummaries,
    show: showDirectory,
    idOf: (d) => d.id,
    headers: ['Id', 'Name', 'URL', 'Order', 'Enabled', 'Users'],
    row: (d) => [d.display_name, d.url, d.order, shown(d.enabled), d.linked_users],
    details: (d) => [
      ['Id', d.id],
      ['Name', d.display_name],
      ['URL', d.url],
      ['StartTLS', shown(d.start_tls)],
      ['Plain LDAP allowed', shown(d.allow_plain_ldap)],
      ['Own CA certificate', d.ca_certificate === undefined ? 'no' : 'yes'],
      ['Bind DN', d.bind_dn],
      ['User base', d.user_base],
      ['User filter', d.user_filter],
      ['Attributes', shown(d.attributes)],
      ['Group search', d.group_search ? `${d.group_search.filter} under ${d.group_search.base}` : ''],
      ['Timeouts', `connect ${d.connect_timeout_ms} ms, operation ${d.operation_timeout_ms} ms`],
      ['Order', d.order],
      ['Enabled', shown(d.enabled)],
      ['Users it provisioned', d.linked_users],
    ],
    entryOf: ({ linked_users: _users, ...entry }) => ({ ...entry }),
    template: {
      id: 'corp',
      display_name: 'Corporate directory',
      url: 'ldaps://ldap.example.com:636',
      bind_dn: 'cn=sso,ou=services,dc=example,dc=com',
      user_base: 'ou=people,dc=example,dc=com',
      user_filter: '(uid={login})',
      attributes: { username: 'uid', id_attribute: 'entryUUID', email: 'mail', name: 'cn' },
    },
    withSecret(entry, secret) {
      if ('bind_password' in entry) throw new AdminError('type the bind password into its own field, not into the entry');
      if (secret === '') throw new AdminError("type the service account's bind password: it is stored sealed and never shown back");
      return { ...entry, bind_password: secret };
    },
    set: (c, entry) => addDirectory(c, entry as unknown as DirectoryInput),
    remove: removeDirectory,
    consequence: (d) => `Its ${d.linked_users} users stay, but can no longer sign in with a password.`,
    extra: (d, csrf) =>
      csrf
        ? html`<h2>Test</h2><form method="post" action="${base}/directories/${encodeURIComponent(d.id)}/test">${csrfField(csrf)}
<label for="login">A login a person would type (no password is asked or sent)</label><input type="text" id="login" name="login" required autocomplete="off">
<div><button type="submit">Search it</button></div></form>`
        : html``,
  });

  // Binds as the service account and searches the login as a sign-in would (testDirectory), for the admin only.
  app.post<{ Params: { id: string }; Body: RawParams }>(
    '/directories/:id/test',
    { schema: { params: idParams } },
    async (request, reply) => {
      const { id } = request.params;
      const login = field(request.body, 'login');
      const done = await attempt(
        () => testDirectory(adminContextOf(ctx, request), id, login),
        (error, status) => render(request, reply, id, { status, error }),
      );
      if (!done.ok) return done.reply;
      const found = done.value;
      const notice = found
        ? `"${login}" is ${found.dn}: username ${found.username}, email ${found.email ?? 'none'}, claims ${JSON.stringify(found.claims)}.`
        : `No single entry matches "${login}".`;
      return render(request, reply, id, { notice });
    },
  );
}
