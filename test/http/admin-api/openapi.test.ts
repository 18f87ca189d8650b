// GET /admin/api/v1/openapi.json (src/http/admin-api/openapi.ts): an OpenAPI 3.1 document with every route the API
// registers, made from the schemas the routes validate with. That every answer matches it is checked by each call
// of the API's tests (test/helpers/admin-api.ts).
import t from 'tap';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildTestApp } from '../../helpers/app.js';
import { API } from '../../helpers/admin-api.js';

const { app } = await buildTestApp(t);
const res = await app.inject({ method: 'GET', url: `${API}/openapi.json` });
const doc = res.json() as {
  openapi: string;
  servers: Array<{ url: string }>;
  paths: Record<
    string,
    Record<
      string,
      { operationId: string; security: unknown[]; responses: Record<string, { content?: Record<string, { schema: object }> }> }
    >
  >;
  components: { securitySchemes: Record<string, { flows: { clientCredentials: { tokenUrl: string; scopes: Record<string, string> } } }> };
};

/** The routes Fastify has under the API's prefix, "METHOD /path/{param}", read from its route tree. */
function registeredRoutes(): string[] {
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+) \(([A-Z, ]+)\)$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    const path = stack.join('');
    if (!path.startsWith(API) || path === `${API}/openapi.json`) continue;
    for (const method of match[3]!.split(', ').filter((m) => m !== 'HEAD'))
      routes.push(`${method} ${path.slice(API.length).replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`);
  }
  return routes.sort();
}

t.test('the document is OpenAPI 3.1, public, and names the token endpoint and the admin scopes', async (t) => {
  t.equal(res.statusCode, 200);
  t.equal(doc.openapi, '3.1.0');
  t.same(doc.servers, [{ url: 'http://localhost:3000/admin/api/v1' }]);
  const flow = doc.components.securitySchemes.clientCredentials!.flows.clientCredentials;
  t.equal(flow.tokenUrl, 'http://localhost:3000/sso/token');
  t.same(Object.keys(flow.scopes), ['admin:read', 'admin:write']);
});

t.test('every route the API registers is in the document, and nothing else', async (t) => {
  const documented = Object.entries(doc.paths)
    .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
    .sort();
  const registered = registeredRoutes();
  t.ok(registered.length >= 35, `${registered.length} routes`);
  t.same(documented, registered);
});

t.test('each operation has a unique id, a scope, an answer and the problem of RFC 9457; every schema compiles', async (t) => {
  const ajv = new Ajv2020({ strict: false });
  addFormats.default(ajv);
  const ids = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      t.notOk(ids.has(op.operationId), `${op.operationId} is unique`);
      ids.add(op.operationId);
      t.equal(op.security.length, 1, `${method} ${path} names its scope`);
      t.ok(op.responses.default?.content?.['application/problem+json'], `${method} ${path} answers problems`);
      for (const [status, answer] of Object.entries(op.responses)) {
        if (status === 'default' || !answer.content) continue;
        t.doesNotThrow(() => ajv.compile({ ...answer.content!['application/json']!.schema }), `${method} ${path} ${status} compiles`);
      }
    }
  }
});
