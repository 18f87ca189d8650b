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
import { adminContextOf, textOf } from './console-http.js';
import { entityPages } from './entities.js';

const idParams = { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 64 } }, required: ['id'] } as const;

export function directoryPages(app: FastifyInstance, ctx: ProviderContext, base: string): void {
  const render = entityPages<DirectorySummary>(app, ctx, base, {
    words: {
      path: '/directories',
      keys: 'console.directories',
      idField: 'id',
      secret: { name: 'bind_password', label: 'console.directories.secretLabel' },
    },
    list: listDirectorySummaries,
    show: showDirectory,
    idOf: (d) => d.id,
    headers: (t) => [
      t('console.id'),
      t('console.name'),
      'URL',
      t('console.directories.order'),
      t('console.enabled'),
      t('console.directories.users'),
    ],
    row: (d, t) => [d.display_name, d.url, d.order, shown(t, d.enabled), d.linked_users],
    details: (d, t) => [
      [t('console.id'), d.id],
      [t('console.name'), d.display_name],
      ['URL', d.url],
      ['StartTLS', shown(t, d.start_tls)],
      [t('console.directories.plainLdap'), shown(t, d.allow_plain_ldap)],
      [t('console.directories.ownCa'), shown(t, d.ca_certificate !== undefined)],
      ['Bind DN', d.bind_dn],
      [t('console.directories.userBase'), d.user_base],
      [t('console.directories.userFilter'), d.user_filter],
      [t('console.directories.attributes'), shown(t, d.attributes)],
      [
        t('console.directories.groupSearch'),
        d.group_search ? t('console.directories.groupSearchValue', { filter: d.group_search.filter, base: d.group_search.base }) : '',
      ],
      [
        t('console.directories.timeouts'),
        t('console.directories.timeoutsValue', { connect: d.connect_timeout_ms, operation: d.operation_timeout_ms }),
      ],
      [t('console.directories.order'), d.order],
      [t('console.enabled'), shown(t, d.enabled)],
      [t('console.directories.provisioned'), d.linked_users],
    ],
    entryOf: ({ linked_users: _users, ...entry }) => ({ ...entry }),
    template: (t) => ({
      id: 'corp',
      display_name: t('console.directories.templateName'),
      url: 'ldaps://ldap.example.com:636',
      bind_dn: 'cn=sso,ou=services,dc=example,dc=com',
      user_base: 'ou=people,dc=example,dc=com',
      user_filter: '(uid={login})',
      attributes: { username: 'uid', id_attribute: 'entryUUID', email: 'mail', name: 'cn' },
    }),
    withSecret(entry, secret, _current, t) {
      if ('bind_password' in entry) throw new AdminError(t('console.directories.secretInEntry'));
      if (secret === '') throw new AdminError(t('console.directories.secretNeeded'));
      return { ...entry, bind_password: secret };
    },
    set: (c, entry) => addDirectory(c, entry as unknown as DirectoryInput),
    remove: removeDirectory,
    consequence: (d, t) => t('console.directories.consequence', { users: d.linked_users }),
    extra: (d, csrf, t) =>
      csrf
        ? html`<h2>${t('console.directories.test')}</h2><form method="post" action="${base}/directories/${encodeURIComponent(d.id)}/test">${csrfField(csrf)}
<label for="login">${t('console.directories.testLogin')}</label><input type="text" id="login" name="login" required autocomplete="off">
<div><button type="submit">${t('console.directories.testButton')}</button></div></form>`
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
      const t = textOf(request);
      const notice = found
        ? t('console.directories.found', {
            login,
            dn: found.dn,
            username: found.username,
            email: found.email ?? t('console.none'),
            claims: JSON.stringify(found.claims),
          })
        : t('console.directories.notFound', { login });
      return render(request, reply, id, { notice });
    },
  );
}
