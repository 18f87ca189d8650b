// The console's resource server pages (RFC 8707; docs/api-access-tokens.md): the APIs tokens are issued for, listed,
// shown, created, replaced and deleted through src/domain/resources/resource-admin.ts, as `sso-admin resources` and
// the API's /resource-servers do (entities.ts).
import type { FastifyInstance } from 'fastify';
import { deleteResource, listResources, setResource, showResource } from '../../domain/resources/resource-admin.js';
import type { ResourceServerEntry } from '../../domain/resources/resource-servers.js';
import type { ProviderContext } from '../../domain/context.js';
import { shown } from './views/entities.js';
import { entityPages } from './entities.js';

export function resourceServerPages(app: FastifyInstance, ctx: ProviderContext, base: string): void {
  entityPages<ResourceServerEntry>(app, ctx, base, {
    title: 'Resource servers',
    words: {
      path: '/resource-servers',
      noun: 'resource server',
      idField: 'identifier',
      lead: 'The APIs access tokens are issued for (RFC 8707 resource indicators): their scopes, and the format and lifetime of their tokens.',
    },
    list: listResources,
    show: showResource,
    idOf: (e) => e.identifier,
    headers: ['Identifier', 'Name', 'Scopes', 'Token format', 'Token lifetime (s)'],
    row: (e) => [e.name ?? '', Object.keys(e.scopes ?? {}).join(' '), e.access_token_format ?? '', e.access_token_ttl_seconds ?? ''],
    details: (e) => [
      ['Identifier', e.identifier],
      ['Name', shown(e.name)],
      [
        'Scopes',
        Object.entries(e.scopes ?? {})
          .map(([scope, says]) => `${scope}: ${says}`)
          .join('; '),
      ],
      ['Access token format', shown(e.access_token_format)],
      ['Access token lifetime (seconds)', shown(e.access_token_ttl_seconds)],
      ['Access token signing algorithm', shown(e.access_token_signing_alg)],
      ['Clients that may introspect its tokens', shown(e.introspecting_clients)],
    ],
    entryOf: (e) => ({ ...e }),
    template: {
      identifier: 'https://api.example.com/',
      name: 'Example API',
      scopes: { 'orders:read': 'Read your orders' },
      access_token_format: 'jwt',
    },
    set: (c, entry) => setResource(c, entry as unknown as ResourceServerEntry),
    remove: deleteResource,
    consequence: () => 'Tokens already issued for it stay valid until they expire; no new one is issued for it.',
    lock: 'resource_server',
  });
}
