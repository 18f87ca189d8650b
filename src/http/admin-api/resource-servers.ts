// /resource-servers: the APIs tokens are issued for (RFC 8707), as the seed file and `sso-admin resources` know them
// (src/domain/resources/resource-admin.ts). The identifier is a URL: percent-encode it in the path.
import { deleteResource, listResources, setResource, showResource } from '../../domain/resources/resource-admin.js';
import type { ResourceServerEntry } from '../../domain/resources/resource-servers.js';
import { entityRoutes } from './entity-routes.js';
import type { AdminApi, JsonSchema } from './route.js';

const PROPERTIES = {
  identifier: { type: 'string', maxLength: 2048 },
  name: { type: 'string' },
  scopes: { type: 'object', additionalProperties: { type: 'string' } },
  access_token_format: { type: 'string' },
  access_token_ttl_seconds: { type: 'integer' },
  access_token_signing_alg: { type: 'string' },
  introspecting_clients: { type: 'array', items: { type: 'string' } },
} as const;
const ENTRY: JsonSchema = { type: 'object', required: ['identifier'], properties: PROPERTIES };

export function resourceServerRoutes(api: AdminApi): void {
  entityRoutes(api, {
    path: '/resource-servers',
    param: 'identifier',
    tag: 'resource-servers',
    noun: 'ResourceServer',
    item: ENTRY,
    body: { type: 'object', properties: PROPERTIES, additionalProperties: false },
    list: listResources,
    keyOf: (e) => e.identifier,
    lock: 'resource_server',
    show: showResource,
    set: async (ctx, entry) => {
      const done = await setResource(ctx, entry as unknown as ResourceServerEntry);
      return { item: done.entry, created: done.created };
    },
    remove: deleteResource,
  });
}
