// /scim/v2/ServiceProviderConfig, /ResourceTypes and /Schemas (RFC 7644 4): what this server supports.
import type { FastifyInstance } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import { resourceTypes, schemas, serviceProviderConfig } from '../../domain/scim/discovery.js';
import { listResponse, pageOf, type Json } from '../../domain/scim/representation.js';
import { SCIM_PREFIX, sendScim } from './call.js';
import { ScimError } from '../../domain/scim/scim-error.js';

/** RFC 7644 4: the collections answer a ListResponse of all their entries; one entry is read by its id. */
function collection(app: FastifyInstance, path: string, entries: () => Json[]): void {
  app.get(path, async (_request, reply) => {
    const all = entries();
    return sendScim(reply, listResponse(all.length, pageOf(1, all.length), all));
  });
  app.get<{ Params: { id: string } }>(`${path}/:id`, async (request, reply) => {
    const entry = entries().find((e) => e.id === request.params.id);
    if (!entry) throw new ScimError(404, 'no such entry');
    return sendScim(reply, entry);
  });
}

export function discoveryRoutes(app: FastifyInstance, ctx: ProviderContext): void {
  const base = `${ctx.config.baseUrl}${SCIM_PREFIX}`;
  app.get('/ServiceProviderConfig', async (_request, reply) => sendScim(reply, serviceProviderConfig(base)));
  collection(app, '/ResourceTypes', () => resourceTypes(base));
  collection(app, '/Schemas', () => schemas(base));
}
