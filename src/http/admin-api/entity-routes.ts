// The four routes of a resource that is set whole, as a seed file entry is (resource servers, upstream connections,
// and whatever is added later the same way): list, get with an ETag, PUT to create (201) or replace (200, If-Match
// required), DELETE (If-Match required). The id is the path's; a body that names another id is refused.
import { asOneChange, type AdminContext, type LockTarget } from '../../domain/admin/admin.js';
import { AdminError } from '../../domain/admin-error.js';
import { changeIfMatch, IF_MATCH_HEADERS, sendWithEtag, type IfMatchGuard } from './etag.js';
import { PAGE_QUERY_PROPERTIES, pageOf, pageSchema, type PageQuery } from './pagination.js';
import type { AdminApi, JsonSchema } from './route.js';

export interface EntitySpec<T> {
  /** The collection's path: /resource-servers. */
  path: string;
  /** The id's name, in the path and in the body: identifier, id. */
  param: string;
  tag: string;
  /** For the operation ids: listResourceServers, getResourceServer... */
  noun: string;
  /** The answer's schema, and the PUT body's. */
  item: JsonSchema;
  body: JsonSchema;
  list(ctx: AdminContext): Promise<T[]>;
  keyOf(item: T): string;
  /** The row a change under If-Match locks (its key is keyOf's). */
  lock: LockTarget['type'];
  show(ctx: AdminContext, id: string): Promise<T>;
  set(ctx: AdminContext, entry: Record<string, unknown>): Promise<{ item: T; created: boolean }>;
  remove(ctx: AdminContext, id: string): Promise<void>;
}

/** An existing entity, or undefined when there is none by that id (the domain's not_found refusal). */
async function existing<T>(spec: EntitySpec<T>, ctx: AdminContext, id: string): Promise<T | undefined> {
  try {
    return await spec.show(ctx, id);
  } catch (err) {
    if (err instanceof AdminError && err.kind === 'not_found') return undefined;
    throw err;
  }
}

export function entityRoutes<T>(api: AdminApi, spec: EntitySpec<T>): void {
  const one = `${spec.path}/:${spec.param}`;
  const params = {
    type: 'object',
    required: [spec.param],
    properties: { [spec.param]: { type: 'string', minLength: 1, maxLength: 2048 } },
  };
  const idOf = (request: { params: unknown }) => (request.params as Record<string, string>)[spec.param]!;
  const guard = (id: string): IfMatchGuard<T> => ({
    read: (ctx) => spec.show(ctx, id),
    lock: (item) => ({ type: spec.lock, id: spec.keyOf(item) }),
    tagged: (item) => item,
  });

  api.route({
    method: 'GET',
    url: spec.path,
    access: 'read',
    operationId: `list${spec.noun}s`,
    summary: `List the ${spec.tag}, by ${spec.param}.`,
    tag: spec.tag,
    querystring: { type: 'object', properties: PAGE_QUERY_PROPERTIES },
    response: { 200: pageSchema(spec.item) },
    async handler(request, _reply, { ctx }) {
      return pageOf(spec.tag, await spec.list(ctx), spec.keyOf, request.query as PageQuery);
    },
  });

  api.route({
    method: 'GET',
    url: one,
    access: 'read',
    operationId: `get${spec.noun}`,
    summary: `One of the ${spec.tag}, with its ETag.`,
    tag: spec.tag,
    params,
    response: { 200: spec.item },
    async handler(request, reply, { ctx }) {
      return sendWithEtag(reply, await spec.show(ctx, idOf(request)));
    },
  });

  api.route({
    method: 'PUT',
    url: one,
    access: 'write',
    operationId: `put${spec.noun}`,
    summary: `Create (201) or replace (200; If-Match with its ETag required) one of the ${spec.tag}, checked as the seed file checks it.`,
    tag: spec.tag,
    params,
    headers: IF_MATCH_HEADERS,
    body: spec.body,
    response: { 200: spec.item, 201: spec.item },
    async handler(request, reply, { ctx }) {
      const id = idOf(request);
      const body = request.body as Record<string, unknown>;
      if (body[spec.param] !== undefined && body[spec.param] !== id)
        throw new AdminError(`the body's ${spec.param} is not the path's: ${spec.param} cannot be changed`);
      const entry = { ...body, [spec.param]: id };
      // A replacement is checked against the row as locked in its transaction; a creation has no row to lock.
      const { item, created } = await asOneChange(ctx, async (tctx) =>
        (await existing(spec, tctx, id)) === undefined
          ? spec.set(tctx, entry)
          : changeIfMatch(request, tctx, guard(id), (lctx) => spec.set(lctx, entry)),
      );
      if (created) reply.header('location', `${api.prefix}${spec.path}/${encodeURIComponent(id)}`);
      return sendWithEtag(reply, item, created ? 201 : 200);
    },
  });

  api.route({
    method: 'DELETE',
    url: one,
    access: 'write',
    operationId: `delete${spec.noun}`,
    summary: `Remove one of the ${spec.tag}; If-Match with its ETag is required.`,
    tag: spec.tag,
    params,
    headers: IF_MATCH_HEADERS,
    response: { 204: { type: 'null', description: 'removed' } },
    async handler(request, reply, { ctx }) {
      const id = idOf(request);
      await changeIfMatch(request, ctx, guard(id), (tctx) => spec.remove(tctx, id));
      return reply.code(204).send();
    },
  });
}
