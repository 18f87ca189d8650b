// The management API's tests: an app with two admin clients (one that may write, one that may only read), their
// client_credentials tokens, and a call that checks every answer against the API's own OpenAPI document.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Test } from 'tap';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildTestApp, FIXTURES, type TestApp, type TestAppOptions } from './app.js';
import { basicAuth, tokenRequest } from './flow.js';
import type { SeedFile } from '../../src/domain/admin/seed.js';

export const ADMIN_WRITER = {
  client_id: 'admin-writer',
  client_secret: 'admin-writer-secret-0123456789',
  redirect_uris: ['https://admin.example/cb'],
  grant_types: ['client_credentials'],
  scope: 'admin:read admin:write',
};
export const ADMIN_READER = {
  client_id: 'admin-reader',
  client_secret: 'admin-reader-secret-0123456789',
  redirect_uris: ['https://admin.example/cb'],
  grant_types: ['client_credentials'],
  scope: 'admin:read',
};
/** A client_credentials client with an unrelated scope: its token is good, but not for this API. */
export const OUTSIDER = {
  client_id: 'outsider',
  client_secret: 'outsider-secret-0123456789',
  redirect_uris: ['https://outsider.example/cb'],
  grant_types: ['client_credentials'],
  scope: 'api:read',
};

export const ADMIN_FIXTURES: SeedFile = { clients: [...FIXTURES.clients, ADMIN_WRITER, ADMIN_READER, OUTSIDER], users: FIXTURES.users };

export const API = '/admin/api/v1';

/** A client_credentials access token of `client`, for `scope` (its registered scope when undefined). */
export async function clientToken(
  app: FastifyInstance,
  client: { client_id: string; client_secret: string },
  scope?: string,
): Promise<string> {
  const res = await tokenRequest(app, { grant_type: 'client_credentials', scope }, basicAuth(client.client_id, client.client_secret));
  if (res.statusCode !== 200) throw new Error(`client_credentials request failed: ${res.body}`);
  return (res.json() as { access_token: string }).access_token;
}

export interface CallOptions {
  token?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface AdminApiApp extends TestApp {
  writer: string;
  reader: string;
  /** Calls the API (as the writer unless told) and asserts that the answer matches openapi.json. */
  call(t: Test, method: string, path: string, options?: CallOptions): Promise<LightMyRequestResponse>;
}

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: unknown }> }> }>> };

export async function adminApiApp(t: Test, options: TestAppOptions = {}): Promise<AdminApiApp> {
  const base = await buildTestApp(t, { seed: ADMIN_FIXTURES, ...options });
  const [writer, reader] = await Promise.all([clientToken(base.app, ADMIN_WRITER), clientToken(base.app, ADMIN_READER)]);
  const doc = (await base.app.inject({ method: 'GET', url: `${API}/openapi.json` })).json() as Doc & Record<string, unknown>;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...doc, $id: 'openapi' });
  const templates = Object.keys(doc.paths).map((p) => ({
    path: p,
    re: new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    // The most literal template wins (/clients/{id}/secret before /clients/{id}).
    weight: p.replace(/\{[^}]+\}/g, '').length,
  }));
  return {
    ...base,
    writer,
    reader,
    async call(t, method, path, options = {}) {
      const token = options.token === undefined ? writer : options.token;
      const res = await base.app.inject({
        method: method as 'GET',
        url: `${API}${path}`,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...options.headers },
        ...(options.body !== undefined ? { payload: options.body as object } : {}),
      });
      const bare = path.split('?')[0]!;
      const template = templates.filter((c) => c.re.test(bare)).sort((a, b) => b.weight - a.weight)[0];
      const operation = template && doc.paths[template.path]?.[method.toLowerCase()];
      if (!operation) {
        t.equal(res.statusCode, 404, `${method} ${bare} is in openapi.json, or answers 404`);
        return res;
      }
      const ok = operation.responses[String(res.statusCode)];
      if (ok && !ok.content) {
        t.equal(res.body, '', `${method} ${bare} ${res.statusCode} has no body`);
        return res;
      }
      const type = res.statusCode >= 400 ? 'application/problem+json' : 'application/json';
      const pointer = ok
        ? `openapi#/paths/${template.path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${res.statusCode}/content/application~1json/schema`
        : `openapi#/components/schemas/Problem`;
      t.match(res.headers['content-type'], type, `${method} ${bare} ${res.statusCode} is ${type}`);
      const validate = ajv.getSchema(pointer);
      const valid = validate?.(res.json()) ?? false;
      t.ok(valid, `${method} ${bare} ${res.statusCode} matches openapi.json`, { errors: validate?.errors, body: res.body });
      return res;
    },
  };
}
