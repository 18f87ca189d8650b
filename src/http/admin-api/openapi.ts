// GET /admin/api/v1/openapi.json: the OpenAPI 3.1 document of the management API, made from the declarations the
// routes are registered with (route.ts), so it cannot drift from what the routes validate and answer.
import { ADMIN_READ, ADMIN_WRITE } from '../../domain/admin/principal.js';
import { PROBLEM_CONTENT_TYPE } from './problem.js';
import type { AdminApi, AdminRoute, JsonSchema } from './route.js';
import { PROBLEM_SCHEMA } from './schemas.js';

/** Fastify's `/users/:user` as OpenAPI's `/users/{user}`. */
export const openApiPath = (url: string): string => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function parameters(route: AdminRoute): JsonSchema[] {
  const out: JsonSchema[] = [];
  const add = (where: 'path' | 'query' | 'header', schema: JsonSchema | undefined) => {
    const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>;
    const required = (schema?.required ?? []) as string[];
    for (const [name, s] of Object.entries(properties)) {
      const { description, ...rest } = s;
      out.push({
        name,
        in: where,
        required: where === 'path' || required.includes(name),
        schema: rest,
        ...(description ? { description } : {}),
      });
    }
  };
  add('path', route.params);
  add('query', route.querystring);
  add('header', route.headers);
  return out;
}

function operation(route: AdminRoute): JsonSchema {
  const json = (schema: JsonSchema) => ({ content: { 'application/json': { schema } } });
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    security: [{ clientCredentials: route.access === 'read' ? [ADMIN_READ] : [ADMIN_WRITE] }],
    parameters: parameters(route),
    ...(route.body ? { requestBody: { required: true, ...json(route.body) } } : {}),
    responses: {
      ...Object.fromEntries(
        Object.entries(route.response).map(([status, schema]) => [
          status,
          // An answer without a body (204) has no content.
          schema.type === 'null' ? { description: String(schema.description ?? 'done') } : { description: 'done', ...json(schema) },
        ]),
      ),
      default: {
        description: 'a problem (RFC 9457)',
        content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
      },
    },
  };
}

/** The document for the API's routes, served at `issuer`'s base URL + the API's prefix. */
export function openApiDocument(api: AdminApi): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of api.routes) {
    const path = openApiPath(route.url);
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Management API', version: '1', description: 'Administers the provider: docs/admin-api.md.' },
    servers: [{ url: `${api.ctx.config.baseUrl}${api.prefix}` }],
    paths,
    components: {
      schemas: { Problem: PROBLEM_SCHEMA },
      securitySchemes: {
        clientCredentials: {
          type: 'oauth2',
          description: `a confidential client's client_credentials access token with ${ADMIN_READ} and/or ${ADMIN_WRITE}`,
          flows: {
            clientCredentials: {
              tokenUrl: `${api.ctx.config.issuer}/token`,
              scopes: { [ADMIN_READ]: 'read everything', [ADMIN_WRITE]: 'read and change everything' },
            },
          },
        },
      },
    },
  };
}

export function openApiRoute(api: AdminApi): void {
  // Made once, when every route is registered: the document is the same for every request.
  let document: JsonSchema | undefined;
  api.app.get('/openapi.json', async (_request, reply) => {
    document ??= openApiDocument(api);
    return reply.header('cache-control', 'no-cache').send(document);
  });
}
