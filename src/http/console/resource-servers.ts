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
    words: { path: '/resource-servers', keys: 'console.resourceServers', idField: 'identifier' },
    list: listResources,
    show: showResource,
    idOf: (e) => e.identifier,
    headers: (t) => [
      t('console.resourceServers.identifier'),
      t('console.name'),
      t('console.resourceServers.scopes'),
      t('console.resourceServers.format'),
      t('console.resourceServers.lifetime'),
    ],
    row: (e) => [e.name ?? '', Object.keys(e.scopes ?? {}).join(' '), e.access_token_format ?? '', e.access_token_ttl_seconds ?? ''],
    details: (e, t) => [
      [t('console.resourceServers.identifier'), e.identifier],
      [t('console.name'), shown(t, e.name)],
      [
        t('console.resourceServers.scopes'),
        Object.entries(e.scopes ?? {})
          .map(([scope, says]) => `${scope}: ${says}`)
          .join('; '),
      ],
      [t('console.resourceServers.tokenFormat'), shown(t, e.access_token_format)],
      [t('console.resourceServers.tokenLifetime'), shown(t, e.access_token_ttl_seconds)],
      [t('console.resourceServers.tokenAlg'), shown(t, e.access_token_signing_alg)],
      [t('console.resourceServers.introspecting'), shown(t, e.introspecting_clients)],
    ],
    entryOf: (e) => ({ ...e }),
    template: (t) => ({
      identifier: 'https://api.example.com/',
      name: t('console.resourceServers.templateName'),
      scopes: { 'orders:read': t('console.resourceServers.templateScope') },
      access_token_format: 'jwt',
    }),
    set: (c, entry) => setResource(c, entry as unknown as ResourceServerEntry),
    remove: deleteResource,
    consequence: (_e, t) => t('console.resourceServers.consequence'),
    lock: 'resource_server',
  });
}
