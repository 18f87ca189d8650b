// What an unknown path answers under each surface's prefix: SCIM's error body, the management API's problem, the
// OAuth JSON elsewhere; before any authentication, and with the surface's own errors for a thrown value.
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';

const { app } = await buildTestApp(t);

t.test('an unknown path under /scim/v2 is a 404 in a SCIM error body, asked of no token', async (t) => {
  for (const url of ['/scim/v2/Nothing', '/scim/v2/Users/a/b', '/scim/v2/?x=1']) {
    const res = await app.inject({ method: 'GET', url });
    t.equal(res.statusCode, 404, url);
    t.match(res.headers['content-type'], /^application\/scim\+json/, url);
    t.same(res.json(), { schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '404', detail: 'no such endpoint' }, url);
  }
});

t.test('an unknown path under /admin/api/ is a 404 problem (RFC 9457), asked of no token', async (t) => {
  for (const url of ['/admin/api/v1/nothing', '/admin/api/v2/clients', '/admin/api/']) {
    const res = await app.inject({ method: 'GET', url });
    t.equal(res.statusCode, 404, url);
    t.match(res.headers['content-type'], /^application\/problem\+json/, url);
    t.equal(res.json().code, 'not_found', url);
  }
});

t.test('a known management API path without a token is a 401 problem', async (t) => {
  const res = await app.inject({ method: 'GET', url: '/admin/api/v1/clients' });
  t.equal(res.statusCode, 401);
  t.match(res.headers['content-type'], /^application\/problem\+json/);
});

t.test('a known SCIM path without a token is a 401 SCIM error', async (t) => {
  const res = await app.inject({ method: 'GET', url: '/scim/v2/Users' });
  t.equal(res.statusCode, 401);
  t.match(res.headers['content-type'], /^application\/scim\+json/);
});

t.test('an unknown path elsewhere is the OAuth JSON 404', async (t) => {
  for (const url of ['/sso/nothing', '/admin/nothing', '/scim/v3/Users', '/nothing']) {
    const res = await app.inject({ method: 'GET', url });
    t.equal(res.statusCode, 404, url);
    t.same(res.json(), { error: 'not_found', error_description: 'no such endpoint' }, url);
  }
});

t.test('a protocol endpoint refuses a body of the wrong type with OAuth JSON', async (t) => {
  const res = await app.inject({ method: 'POST', url: '/sso/token', headers: { 'content-type': 'application/json' }, payload: '{}' });
  t.equal(res.statusCode, 400);
  t.equal(res.json().error, 'invalid_request');
});
