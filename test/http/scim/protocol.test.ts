// What a SCIM client is told when it errs (RFC 7644 3.12 bodies, RFC 6750 challenges), how filters and pages work
// (RFC 7644 3.4.2.2, 3.4.2.4), that a refused request changes nothing, and what the discovery endpoints announce
// (RFC 7644 4). Tokens are real client_credentials tokens from /sso/token.
import t from 'tap';
import { basicAuth, tokenRequest } from '../../helpers/flow.js';
import { BASE, ERROR, LIST_RESPONSE, OKTA, PATCH_OP, scimApp, USER_SCHEMA } from './scim-app.js';

const api = await scimApp(t);
const q = (filter: string) => `/Users?filter=${encodeURIComponent(filter)}`;
const user = (userName: string, extra: Record<string, unknown> = {}) => ({ schemas: [USER_SCHEMA], userName, ...extra });

const created = await Promise.all(
  ['ann.smith@corp.example', 'anna.jones@corp.example', 'ben.smith@corp.example'].map(async (userName, i) => {
    const res = await api.call('POST', '/Users', {
      body: user(userName, { displayName: `Person ${i}`, emails: [{ value: userName, primary: true }], externalId: `ext-${i}` }),
    });
    return res.json() as { id: string; userName: string; meta: { version: string } };
  }),
);

t.test('a client_credentials token from /sso/token with the scim scope provisions (RFC 6749 4.4, RFC 6750 2.1)', async (t) => {
  const res = await tokenRequest(
    api.app,
    { grant_type: 'client_credentials', scope: 'scim' },
    basicAuth(OKTA.client_id, OKTA.client_secret),
  );
  t.equal(res.statusCode, 200);
  t.equal(res.json().scope, 'scim');
  const list = await api.call('GET', '/Users?count=1', { token: res.json().access_token });
  t.equal(list.statusCode, 200);
  t.equal(list.json().itemsPerPage, 1);
});

t.test('no token is a 401 with a bare Bearer challenge (RFC 6750 3.1), in a SCIM error body (RFC 7644 3.12)', async (t) => {
  const res = await api.call('GET', '/Users', { token: null });
  t.equal(res.statusCode, 401);
  t.equal(res.headers['www-authenticate'], 'Bearer realm="sso", scope="scim"');
  t.match(res.headers['content-type'], /^application\/scim\+json/);
  t.same(res.json(), { schemas: [ERROR], status: '401', detail: 'a bearer access token is required' });
  const bad = await api.call('GET', '/Users', { token: 'not-a-token' });
  t.equal(bad.statusCode, 401);
  t.match(bad.headers['www-authenticate'], /error="invalid_token"/);
  t.equal(bad.json().status, '401');
  const unknownPath = await api.call('GET', '/Nothing', { token: null });
  t.equal(unknownPath.statusCode, 404, 'an unknown endpoint is a 404 in a SCIM body');
  t.equal(unknownPath.json().status, '404');
});

t.test('a token without the scim scope is a 403 insufficient_scope (RFC 6750 3.1)', async (t) => {
  const res = await api.call('GET', '/Users', { token: api.outsider });
  t.equal(res.statusCode, 403);
  t.match(res.headers['www-authenticate'], /error="insufficient_scope", scope="scim"/);
  t.same(Object.keys(res.json()).sort(), ['detail', 'schemas', 'status']);
  t.equal(res.json().status, '403');
  const write = await api.call('POST', '/Users', { token: api.outsider, body: user('sneaky@corp.example') });
  t.equal(write.statusCode, 403);
  t.equal((await api.call('GET', q('userName eq "sneaky@corp.example"'))).json().totalResults, 0, 'nothing was created');
});

t.test('filters: eq, co, sw and and, case-insensitive where caseExact is false (RFC 7644 3.4.2.2)', async (t) => {
  const names = async (filter: string) =>
    ((await api.call('GET', q(filter))).json().Resources as { userName: string }[]).map((u) => u.userName).sort();
  t.same(await names('userName sw "ann"'), ['ann.smith@corp.example', 'anna.jones@corp.example']);
  t.same(await names('userName co "SMITH"'), ['ann.smith@corp.example', 'ben.smith@corp.example']);
  t.same(await names('userName sw "ann" and userName co "smith"'), ['ann.smith@corp.example']);
  t.same(await names('emails.value eq "BEN.SMITH@corp.example"'), ['ben.smith@corp.example']);
  t.same(await names('displayName eq "person 1"'), ['anna.jones@corp.example']);
  t.same(await names('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "ann.smith@corp.example"'), ['ann.smith@corp.example']);
  t.same(await names('userName co "%"'), [], 'LIKE characters are taken literally');
  t.same(await names('userName co "_"'), []);
});

t.test('an unsupported or malformed filter is a 400 invalidFilter (RFC 7644 3.4.2.2, 3.12)', async (t) => {
  for (const filter of [
    'userName',
    'userName gt "a"',
    'userName eq "a" or userName eq "b"',
    '(userName eq "a")',
    'title eq "x"',
    'active co "t"',
    'userName eq "unterminated',
  ]) {
    const res = await api.call('GET', q(filter));
    t.equal(res.statusCode, 400, filter);
    t.equal(res.json().scimType, 'invalidFilter', filter);
    t.equal(res.json().status, '400');
  }
});

t.test('pages: startIndex is 1-based, count is cut to maxResults, totalResults counts all (RFC 7644 3.4.2.4)', async (t) => {
  const all = (await api.call('GET', q('userName co "@corp.example"'))).json();
  t.equal(all.totalResults, 3);
  const second = (await api.call('GET', `${q('userName co "@corp.example"')}&startIndex=2&count=1`)).json();
  t.same(
    { ...second, Resources: second.Resources.map((r: { id: string }) => r.id) },
    {
      schemas: [LIST_RESPONSE],
      totalResults: 3,
      startIndex: 2,
      itemsPerPage: 1,
      Resources: [all.Resources[1].id],
    },
  );
  const zero = (await api.call('GET', `${q('userName co "@corp.example"')}&startIndex=0&count=0`)).json();
  t.equal(zero.startIndex, 1, 'a startIndex below 1 is 1');
  t.equal(zero.itemsPerPage, 0, 'count 0 answers totalResults only');
  t.equal(zero.totalResults, 3);
  const past = (await api.call('GET', `${q('userName co "@corp.example"')}&startIndex=10`)).json();
  t.same(past.Resources, []);
});

t.test('unknown ids are 404, a taken userName is 409 uniqueness (RFC 7644 3.3, 3.12)', async (t) => {
  for (const path of ['/Users/00000000-0000-4000-8000-000000000000', '/Users/alice', '/Groups/00000000-0000-4000-8000-000000000000']) {
    const res = await api.call('GET', path);
    t.equal(res.statusCode, 404, path);
    t.equal(res.json().status, '404');
  }
  const patchMissing = await api.call('PATCH', '/Users/00000000-0000-4000-8000-000000000000', {
    body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] },
  });
  t.equal(patchMissing.statusCode, 404);
  const taken = await api.call('POST', '/Users', { body: user('ANN.SMITH@corp.example') });
  t.equal(taken.statusCode, 409);
  t.same(Object.keys(taken.json()).sort(), ['detail', 'schemas', 'scimType', 'status']);
  t.equal(taken.json().scimType, 'uniqueness');
  t.equal(taken.json().status, '409');
  const renamed = await api.call('PUT', `/Users/${created[1]!.id}`, { body: user('ann.smith@corp.example') });
  t.equal(renamed.statusCode, 409, 'a PUT to a taken userName too');
});

t.test('a refused request changes nothing: the whole PATCH is one transaction', async (t) => {
  const target = created[2]!;
  const res = await api.call('PATCH', `/Users/${target.id}`, {
    body: {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'replace', path: 'active', value: false },
        { op: 'replace', path: 'userName', value: 'ann.smith@corp.example' },
      ],
    },
  });
  t.equal(res.statusCode, 409);
  const after = (await api.call('GET', `/Users/${target.id}`)).json();
  t.equal(after.active, true, 'not disabled');
  t.equal(after.userName, 'ben.smith@corp.example');
  t.equal(after.meta.version, target.meta.version);
  const group = await api.call('POST', '/Groups', {
    body: {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'Half',
      members: [{ value: target.id }, { value: '00000000-0000-4000-8000-000000000000' }],
    },
  });
  t.equal(group.statusCode, 400);
  t.equal(group.json().scimType, 'invalidValue');
  t.equal(
    (await api.call('GET', `/Groups?filter=${encodeURIComponent('displayName eq "Half"')}`)).json().totalResults,
    0,
    'no group without its members',
  );
});

t.test('bad bodies and PATCH operations are 400 with their scimType (RFC 7644 3.5.2, 3.12)', async (t) => {
  const id = created[0]!.id;
  const cases: [unknown, string][] = [
    [{ schemas: [PATCH_OP], Operations: [{ op: 'remove' }] }, 'noTarget'],
    [{ schemas: [PATCH_OP], Operations: [{ op: 'move', path: 'userName', value: 'x' }] }, 'invalidSyntax'],
    [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'name..x', value: 'x' }] }, 'invalidPath'],
    [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'userName', value: 42 }] }, 'invalidValue'],
    [{ schemas: [PATCH_OP], Operations: [{ op: 'remove', path: 'userName' }] }, 'invalidValue'],
    [{ Operations: [{ op: 'replace', path: 'active', value: false }] }, 'invalidSyntax'],
  ];
  for (const [body, scimType] of cases) {
    const res = await api.call('PATCH', `/Users/${id}`, { body });
    t.equal(res.statusCode, 400, JSON.stringify(body));
    t.equal(res.json().scimType, scimType, JSON.stringify(body));
  }
  const notJson = await api.app.inject({
    method: 'POST',
    url: '/scim/v2/Users',
    headers: { authorization: `Bearer ${api.okta}`, 'content-type': 'application/scim+json' },
    payload: '{"userName":',
  });
  t.equal(notJson.statusCode, 400);
  t.equal(notJson.json().scimType, 'invalidSyntax');
  const noName = await api.call('POST', '/Users', { body: { schemas: [USER_SCHEMA], displayName: 'Nameless' } });
  t.equal(noName.statusCode, 400);
  t.equal(noName.json().scimType, 'invalidValue');
  t.equal((await api.call('GET', `/Users/${id}`)).json().active, true);
});

t.test('If-Match with a stale version is a 412; with the current one the change is made (RFC 7644 3.14)', async (t) => {
  const id = created[0]!.id;
  const current = await api.call('GET', `/Users/${id}`);
  const stale = await api.call('PUT', `/Users/${id}`, {
    body: user('ann.smith@corp.example', { displayName: 'New' }),
    headers: { 'if-match': 'W/"old"' },
  });
  t.equal(stale.statusCode, 412);
  t.equal(stale.json().status, '412');
  const fresh = await api.call('PUT', `/Users/${id}`, {
    body: user('ann.smith@corp.example', { displayName: 'New' }),
    headers: { 'if-match': current.headers.etag as string },
  });
  t.equal(fresh.statusCode, 200);
  t.equal(fresh.json().displayName, 'New');
  t.not(fresh.headers.etag, current.headers.etag, 'a change makes a new version');
});

t.test(
  '/ServiceProviderConfig says what works: patch, filter with maxResults, etag; no bulk, sort, changePassword (RFC 7643 5)',
  async (t) => {
    const res = await api.call('GET', '/ServiceProviderConfig');
    t.equal(res.statusCode, 200);
    const spc = res.json();
    t.same(spc.schemas, ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig']);
    t.same(spc.patch, { supported: true });
    t.same(spc.filter, { supported: true, maxResults: 100 });
    t.same(spc.bulk, { supported: false, maxOperations: 0, maxPayloadSize: 0 });
    t.same(spc.sort, { supported: false });
    t.same(spc.etag, { supported: true });
    t.same(spc.changePassword, { supported: false });
    t.equal(spc.authenticationSchemes[0].type, 'oauthbearertoken');
    t.equal(spc.meta.location, `${BASE}/ServiceProviderConfig`);
    const more = await api.call('GET', `/Users?count=500`);
    t.ok(more.json().itemsPerPage <= 100, 'count is cut to maxResults');
  },
);

t.test('/ResourceTypes and /Schemas list Users and Groups (RFC 7643 6, 7)', async (t) => {
  const types = (await api.call('GET', '/ResourceTypes')).json();
  t.same(types.schemas, [LIST_RESPONSE]);
  t.same(
    types.Resources.map((r: { id: string; endpoint: string; schema: string }) => [r.id, r.endpoint, r.schema]),
    [
      ['User', '/Users', USER_SCHEMA],
      ['Group', '/Groups', 'urn:ietf:params:scim:schemas:core:2.0:Group'],
    ],
  );
  t.equal((await api.call('GET', '/ResourceTypes/User')).json().meta.location, `${BASE}/ResourceTypes/User`);
  const schemas = (await api.call('GET', '/Schemas')).json();
  t.equal(schemas.totalResults, 2);
  const userSchema = (await api.call('GET', `/Schemas/${USER_SCHEMA}`)).json();
  const attrs = Object.fromEntries(userSchema.attributes.map((a: { name: string }) => [a.name, a]));
  t.same(Object.keys(attrs), ['userName', 'externalId', 'name', 'displayName', 'emails', 'active']);
  t.equal(attrs.userName.uniqueness, 'server');
  t.equal(attrs.userName.caseExact, false);
  t.equal(attrs.externalId.caseExact, true);
  t.equal(attrs.active.type, 'boolean');
  t.equal((await api.call('GET', '/Schemas/urn:nothing')).statusCode, 404);
});
