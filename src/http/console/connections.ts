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
  if (c.saml) return samlEntryOf(c, c.saml);
  const { has_client_secret: _secret, redirect_uri: _redirect, links: _links, ...fields } = c;
  return Object.fromEntries(
    Object.entries(fields).filter(([, v]) => v !== null && !(typeof v === 'object' && Object.keys(v).length === 0 && !Array.isArray(v))),
  );
}

/** A saml connection's entry (issue 39): its IdP's metadata (by URL when it has one) and its own choices. */
function samlEntryOf(c: ConnectionView, saml: NonNullable<ConnectionView['saml']>): Record<string, unknown> {
  return {
    id: c.id,
    kind: 'saml',
    display_name: c.display_name,
    ...(saml.metadata_url ? { saml_metadata_url: saml.metadata_url } : { saml_metadata: saml.metadata_xml }),
    ...(saml.allow_unsolicited ? { saml_allow_unsolicited: true } : {}),
    ...(Object.keys(saml.attributes).length > 0 ? { saml_attributes: saml.attributes } : {}),
    provisioning: c.provisioning,
    ...(c.email_domains.length > 0 ? { email_domains: c.email_domains } : {}),
    trust_amr: c.trust_amr,
    enabled: c.enabled,
  };
}

export function connectionPages(app: FastifyInstance, ctx: ProviderContext, base: string): void {
  entityPages<ConnectionView>(app, ctx, base, {
    words: {
      path: '/connections',
      keys: 'console.connections',
      idField: 'id',
      secret: { name: 'client_secret', label: 'console.connections.secretLabel' },
    },
    list: listConnections,
    show: showConnection,
    idOf: (c) => c.id,
    headers: (t) => [
      t('console.id'),
      t('console.name'),
      t('console.connections.kind'),
      t('console.connections.provisioning'),
      t('console.enabled'),
      t('console.connections.links'),
    ],
    row: (c, t) => [c.display_name, c.preset ?? c.kind, c.provisioning, shown(t, c.enabled), c.links],
    details: (c, t) => [
      [t('console.id'), c.id],
      [t('console.name'), c.display_name],
      [t('console.connections.kind'), c.kind],
      [t('console.connections.preset'), shown(t, c.preset)],
      [t('console.connections.issuer'), shown(t, c.issuer)],
      [t('console.connections.clientId'), c.client_id],
      [t('console.connections.clientSecret'), c.has_client_secret ? t('console.connections.secretSet') : t('console.none')],
      [t('console.connections.redirectUri'), c.redirect_uri],
      [t('console.connections.scopes'), shown(t, c.scopes)],
      [t('console.connections.claims'), shown(t, c.claims)],
      [t('console.connections.provisioning'), c.provisioning],
      [t('console.connections.emailDomains'), shown(t, c.email_domains)],
      [t('console.connections.trustAmr'), shown(t, c.trust_amr)],
      [t('console.connections.storeTokens'), shown(t, c.store_tokens)],
      [t('console.enabled'), shown(t, c.enabled)],
      [t('console.connections.links'), c.links],
    ],
    entryOf,
    template: (t) => ({
      id: 'google',
      preset: 'google',
      client_id: t('console.connections.templateClientId'),
      provisioning: 'create',
      enabled: true,
    }),
    withSecret(entry, secret, current, t) {
      if ('client_secret' in entry) throw new AdminError(t('console.connections.secretInEntry'));
      // A change replaces every field, the secret too: one that is kept must be typed again, never dropped unawares.
      if (secret === '' && current?.has_client_secret) throw new AdminError(t('console.connections.secretAgain'));
      return secret === '' ? entry : { ...entry, client_secret: secret };
    },
    set: (c, entry) => setConnection(c, entry as unknown as SeedConnection),
    remove: removeConnection,
    consequence: (c, t) => t('console.connections.consequence', { links: c.links }),
    lock: 'connection',
  });
}
