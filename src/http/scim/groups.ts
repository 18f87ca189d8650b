// /scim/v2/Groups (RFC 7644 3.3 create, 3.4.1 read, 3.4.2 query, 3.5.1 replace, 3.5.2 modify, 3.6 delete).
import type { FastifyInstance } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import type { PatchOperation } from '../../domain/scim/patch.js';
import { createScimGroup, deleteScimGroup, getGroup, listGroups, patchScimGroup, replaceScimGroup } from '../../domain/scim/groups.js';
import { ifMatch, scimContext, sendScim } from './call.js';
import { ID_PARAMS, LIST_QUERY, PATCH_BODY, RESOURCE_BODY, type ListQuery } from './schemas.js';

type Id = { Params: { id: string } };

/** RFC 7644 3.4.2.5: excludedAttributes=members leaves the members out (Entra asks so when it looks a group up). */
const withMembers = (query: ListQuery) =>
  !(query.excludedAttributes ?? '')
    .split(',')
    .map((a) => a.trim().toLowerCase())
    .some((a) => a === 'members' || a.endsWith(':members'));

export function groupRoutes(app: FastifyInstance, ctx: ProviderContext): void {
  app.get<{ Querystring: ListQuery }>('/Groups', { schema: { querystring: LIST_QUERY } }, async (request, reply) =>
    sendScim(reply, await listGroups(scimContext(ctx, request), { ...request.query, withMembers: withMembers(request.query) })),
  );

  app.get<Id & { Querystring: ListQuery }>(
    '/Groups/:id',
    { schema: { params: ID_PARAMS, querystring: LIST_QUERY } },
    async (request, reply) => sendScim(reply, await getGroup(scimContext(ctx, request), request.params.id, withMembers(request.query))),
  );

  app.post('/Groups', { schema: { body: RESOURCE_BODY } }, async (request, reply) => {
    const group = await createScimGroup(scimContext(ctx, request), request.body);
    return sendScim(reply.header('location', String((group.meta as { location: string }).location)), group, 201);
  });

  app.put<Id>('/Groups/:id', { schema: { params: ID_PARAMS, body: RESOURCE_BODY } }, async (request, reply) =>
    sendScim(reply, await replaceScimGroup(scimContext(ctx, request), request.params.id, request.body, ifMatch(request))),
  );

  app.patch<Id & { Body: { Operations: PatchOperation[] } }>(
    '/Groups/:id',
    { schema: { params: ID_PARAMS, body: PATCH_BODY } },
    async (request, reply) =>
      sendScim(reply, await patchScimGroup(scimContext(ctx, request), request.params.id, request.body.Operations, ifMatch(request))),
  );

  app.delete<Id>('/Groups/:id', { schema: { params: ID_PARAMS } }, async (request, reply) => {
    await deleteScimGroup(scimContext(ctx, request), request.params.id, ifMatch(request));
    return reply.code(204).header('cache-control', 'no-store').send();
  });
}
