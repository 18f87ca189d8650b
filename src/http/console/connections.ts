// The console's connection pages (issue 19, docs/connections.md): the upstream identity providers people sign in
// through, listed, shown (with the redirect URI to register upstream), created, replaced and removed through
// src/domain/connections/connection-admin.ts, as `sso-admin connections` and the API's /connections do (entities.ts).
// The client secret is typed into a password field, stored sealed and never shown back.
import type { FastifyInstance } from 'fastify';
import { AdminError } from '../../domain/admin-error.js';
import {
  listConnections,
  removeConnection,
  setConnection,
  showConnection,
  type ConnectionView,
} from '../../domain/connections/connection-admin.js';
import type { SeedConnection } from '../../domain/connections/seed-connections.js';
import type { ProviderContext } from '../../domain/context.js';
import { shown } from './views/entities.js';
import { entityPages } from './entities.js';

/** A connection as the entry its form edits: the seed file's fields, none that is only shown (links, redirect URI). */
function entryOf(c: ConnectionView): Record<string, unknown> {
  const { has_client_secret: _secret, redirect_uri: _redirect, links: _links, ...fields } = c;
  return Object.fromEntries(
    Object.entries(fields).filter(([, v]) => v !== null && !(typeof v === 'object' && Object.keys(v).length === 0 && !Array.isArray(v))),
  );
}

export function connectionPages(app: FastifyInstance, ctx: ProviderContext, base: string): void {
  entityPages<ConnectionView>(app, ctx, base, {
    title: 'Connections',
    words: {
      path: '/connections',
      noun: 'connection',
      idField: 'id',
      lead: 'Upstream identity providers people may sign in with (OpenID Connect or OAuth 2.0: Google, Microsoft, GitHub, GitLab or your own).',
      secret: { name: 'client_secret', label: 'Client secret at the upstream (stored sealed, never shown; empty: none)' },
    },
    list: listConnections,
    show: showConnection,
    idOf: (c) => c.id,
    headers: ['Id', 'Name', 'Kind', 'Provisioning', 'Enabled', 'Linked accounts'],
    row: (c) => [c.display_name, c.preset ?? c.kind, c.provisioning, shown(c.enabled), c.links],
    details: (c) => [
      ['Id', c.id],
      ['Name', c.display_name],
      ['Kind', c.kind],
      ['Preset', shown(c.preset)],
      ['Issuer', shown(c.issuer)],
      ['Client id at the upstream', c.client_id],
      ['Client secret', c.has_client_secret ? 'set (sealed)' : 'none'],
      ['Redirect URI to register at the upstream', c.redirect_uri],
      ['Scopes', shown(c.scopes)],
      ['Claims mapping', shown(c.claims)],
      ['Provisioning', c.provisioning],
      ['Email domains', shown(c.email_domains)],
      ['Trusts its amr', shown(c.trust_amr)],
      ['Keeps upstream tokens', shown(c.store_tokens)],
      ['Enabled', shown(c.enabled)],
      ['Linked accounts', c.links],
    ],
    entryOf,
    template: { id: 'google', preset: 'google', client_id: 'the client id the upstream gave you', provisioning: 'create', enabled: true },
    withSecret(entry, secret, current) {
      if ('client_secret' in entry) throw new AdminError('type the client secret into its own field, not into the entry');
      // A change replaces every field, the secret too: one that is kept must be typed again, never dropped unawares.
      if (secret === '' && current?.has_client_secret)
        throw new AdminError('this connection has a client secret: type it again (a change replaces every field, the secret too)');
      return secret === '' ? entry : { ...entry, client_secret: secret };
    },
    set: (c, entry) => setConnection(c, entry as unknown as SeedConnection),
    remove: removeConnection,
    consequence: (c) => `Its ${c.links} links to upstream accounts go with it; the accounts here stay.`,
    lock: 'connection',
  });
}
