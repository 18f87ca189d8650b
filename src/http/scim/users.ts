// /scim/v2/Users (RFC 7644 3.3 create, 3.4.1 read, 3.4.2 query, 3.5.1 replace, 3.5.2 modify, 3.6 delete).
import type { FastifyInstance } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import type { PatchOperation } from '../../domain/scim/patch.js';
import { createScimUser, deleteScimUser, getUser, listUsers, patchScimUser, replaceScimUser } from '../../domain/scim/users.js';
import { ifMatch, scimContext, sendScim } from './call.js';
import { ID_PARAMS, LIST_QUERY, PATCH_BODY, RESOURCE_BODY, type ListQuery } from './schemas.js';

type Id = { Params: { id: string } };

export function userRoutes(app: FastifyInstance, ctx: ProviderContext): void {
  app.get<{ Querystring: ListQuery }>('/Users', { schema: { querystring: LIST_QUERY } }, async (request, reply) =>
    sendScim(reply, await listUsers(scimContext(ctx, request), request.query)),
  );

  app.get<Id>('/Users/:id', { schema: { params: ID_PARAMS } }, async (request, reply) =>
    sendScim(reply, await getUser(scimContext(ctx, request), request.params.id)),
  );

  // RFC 7644 3.3: "the server SHALL return a 201 (Created) response code" with the resource and its Location.
  app.post('/Users', { schema: { body: RESOURCE_BODY } }, async (request, reply) => {
    const user = await createScimUser(scimContext(ctx, request), request.body);
    return sendScim(reply.header('location', String((user.meta as { location: string }).location)), user, 201);
  });

  app.put<Id>('/Users/:id', { schema: { params: ID_PARAMS, body: RESOURCE_BODY } }, async (request, reply) =>
    sendScim(reply, await replaceScimUser(scimContext(ctx, request), request.params.id, request.body, ifMatch(request))),
  );

  // RFC 7644 3.5.2: "the server either MUST return a 200 OK response code and the entire resource within the response body".
  app.patch<Id & { Body: { Operations: PatchOperation[] } }>(
    '/Users/:id',
    { schema: { params: ID_PARAMS, body: PATCH_BODY } },
    async (request, reply) =>
      sendScim(reply, await patchScimUser(scimContext(ctx, request), request.params.id, request.body.Operations, ifMatch(request))),
  );

  // RFC 7644 3.6: "In response to a successful DELETE, the server SHALL return a successful HTTP status code 204 (No Content)."
  app.delete<Id>('/Users/:id', { schema: { params: ID_PARAMS } }, async (request, reply) => {
    await deleteScimUser(scimContext(ctx, request), request.params.id, ifMatch(request));
    return reply.code(204).header('cache-control', 'no-store').send();
  });
}
