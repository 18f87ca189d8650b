// The routes' JSON schemas are compiled on first use (src/http/lazy-schema-compilers.ts), so a schema that ajv or
// fast-json-stringify refuses would fail only its route's first request. This test compiles every one of them, with
// every optional route on, and checks that a request still gets the validation Fastify gives.
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { lazySchemaCompilers } from '../../src/http/lazy-schema-compilers.js';

const EVERY_ROUTE = {
  SIGNUP: 'open',
  REGISTRATION_OPEN: 'true',
  BRAND_COLOR: '#336699',
  METRICS_TOKEN: 'm'.repeat(32),
};

t.test('every route schema compiles, none of them before its first use', async (t) => {
  const compilers = lazySchemaCompilers();
  const { app } = await buildTestApp(t, { env: EVERY_ROUTE, schemaCompilers: compilers });
  const compiled = compilers.compileAll();
  // Dozens of routes each have a body, query or response schema; a factory that compiled eagerly would leave none.
  t.ok(compiled >= 50, `${compiled} schemas were left to compile after the app was ready`);
  t.equal(compilers.compileAll(), 0, 'each schema is compiled once');
  t.ok(app.hasRoute({ method: 'POST', url: '/sso/token' }));
});

t.test('a lazily compiled validator refuses as the eager one did, with the errors of each request', async (t) => {
  const compilers = lazySchemaCompilers();
  const { app } = await buildTestApp(t, { schemaCompilers: compilers });
  // RFC 6749 3.1: a repeated parameter is refused; the schema's error names the field (http/plugins/error-handler.ts).
  const repeated = await app.inject({ method: 'GET', url: '/sso/session/end?state=a&state=b' });
  t.equal(repeated.statusCode, 400);
  t.match(repeated.body, /state must not be repeated/);
  // The same compiled validator, another field: the errors are this request's, not the first one's.
  const other = await app.inject({ method: 'GET', url: '/sso/session/end?client_id=a&client_id=b' });
  t.equal(other.statusCode, 400);
  t.match(other.body, /client_id must not be repeated/);
  t.ok(compilers.compileAll() > 0, 'the routes not asked for are still pending');
});
