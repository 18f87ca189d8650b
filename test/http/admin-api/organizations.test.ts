// /admin/api/v1/organizations (issue 40, src/http/admin-api/organizations.ts): organizations, their roles, members and
// domains; and delegated administration: a client limited to one organization (admin_organization) reaches that
// organization only: another organization does not exist for it (404, nothing written) and every provider-wide
// resource is refused (403, nothing written). Problems are RFC 9457; changes need If-Match (RFC 9110 13.1.1).
import t, { type Test } from 'tap';
import { adminApiApp } from '../../helpers/admin-api.js';
import { ALICE, BOB } from '../../helpers/app.js';
import { basicAuth, tokenRequest } from '../../helpers/flow.js';

const api = await adminApiApp(t);

const orgRow = (slug: string) => api.db.selectFrom('organizations').selectAll().where('slug', '=', slug).executeTakeFirst();

t.test('POST /organizations creates one (201, Location, ETag); a slug taken is a 409, a bad one a 400', async (t) => {
  const res = await api.call(t, 'POST', '/organizations', {
    body: { slug: 'acme', display_name: 'Acme', policies: { join: 'domain' } },
    headers: { 'idempotency-key': 'org-acme' },
  });
  t.equal(res.statusCode, 201);
  t.match(res.json(), { slug: 'acme', display_name: 'Acme', members: 0, policies: { join: 'domain' }, problem: null });
  t.equal(res.headers.location, `/admin/api/v1/organizations/${res.json().id}`);
  t.ok(res.headers.etag);
  const replay = await api.call(t, 'POST', '/organizations', {
    body: { slug: 'acme', display_name: 'Acme', policies: { join: 'domain' } },
    headers: { 'idempotency-key': 'org-acme' },
  });
  t.equal(replay.json().id, res.json().id, 'the Idempotency-Key replays the first answer');
  t.equal((await api.call(t, 'POST', '/organizations', { body: { slug: 'acme', display_name: 'Again' } })).statusCode, 409);
  const bad = await api.call(t, 'POST', '/organizations', { body: { slug: 'Not A Slug', display_name: 'x' } });
  t.equal(bad.statusCode, 400);
  t.equal(bad.json().code, 'invalid');
  t.equal((await api.call(t, 'POST', '/organizations', { body: { slug: 'globex', display_name: 'Globex' } })).statusCode, 201);
});

t.test('GET, PATCH (If-Match required) and the list of organizations', async (t) => {
  const list = (await api.call(t, 'GET', '/organizations?limit=1')).json();
  t.same(
    list.items.map((o: { slug: string }) => o.slug),
    ['acme'],
  );
  const next = (await api.call(t, 'GET', `/organizations?limit=1&cursor=${list.next_cursor}`)).json();
  t.same(
    next.items.map((o: { slug: string }) => o.slug),
    ['globex'],
  );
  const read = await api.call(t, 'GET', '/organizations/acme');
  t.equal(read.statusCode, 200);
  const byId = await api.call(t, 'GET', `/organizations/${read.json().id}`);
  t.equal(byId.headers.etag, read.headers.etag, 'by id or by slug, the same organization');
  const body = { display_name: 'Acme Corp', branding: { primary_color: '#112233' } };
  t.equal((await api.call(t, 'PATCH', '/organizations/acme', { body })).statusCode, 428, 'RFC 6585 3: If-Match is required');
  const stale = await api.call(t, 'PATCH', '/organizations/acme', { body, headers: { 'if-match': '"stale"' } });
  t.equal(stale.statusCode, 412);
  const done = await api.call(t, 'PATCH', '/organizations/acme', { body, headers: { 'if-match': read.headers.etag! } });
  t.equal(done.statusCode, 200);
  t.match(done.json(), { display_name: 'Acme Corp', branding: { primary_color: '#112233' } });
  t.equal((await orgRow('acme'))?.display_name, 'Acme Corp');
  t.equal((await api.call(t, 'GET', '/organizations/nowhere')).statusCode, 404);
});

t.test('roles, members and domains of an organization', async (t) => {
  t.equal((await api.call(t, 'POST', '/organizations/acme/roles', { body: { name: 'billing' } })).statusCode, 201);
  t.same(
    (await api.call(t, 'GET', '/organizations/acme/roles')).json().items.map((r: { name: string }) => r.name),
    ['admin', 'member', 'billing'],
  );
  const added = await api.call(t, 'PUT', `/organizations/acme/members/${ALICE.username}`, { body: { roles: ['billing'] } });
  t.equal(added.statusCode, 201);
  t.match(added.json(), { username: ALICE.username, roles: ['member', 'billing'], source: 'admin' });
  const changed = await api.call(t, 'PUT', `/organizations/acme/members/${added.json().user_id}`, { body: { roles: ['admin'] } });
  t.equal(changed.statusCode, 200, 'a member already: the roles are replaced');
  t.same(changed.json().roles, ['member', 'admin']);
  const unknownRole = await api.call(t, 'PUT', `/organizations/acme/members/${BOB.username}`, { body: { roles: ['pilot'] } });
  t.equal(unknownRole.statusCode, 400);
  t.equal((await api.call(t, 'PUT', `/organizations/globex/members/${BOB.username}`, { body: {} })).statusCode, 201);
  t.same(
    (await api.call(t, 'GET', '/organizations/acme/members')).json().items.map((m: { username: string }) => m.username),
    [ALICE.username],
  );
  const domain = await api.call(t, 'POST', '/organizations/acme/domains', { body: { domain: 'Acme.Example' } });
  t.equal(domain.statusCode, 201);
  t.match(domain.json(), {
    domain: 'acme.example',
    record: { name: '_sso-verify.acme.example', value: /^sso-verify=/ },
    verified_at: null,
  });
  t.equal((await api.call(t, 'GET', '/organizations/acme/domains')).json().items.length, 1);
  t.equal((await api.call(t, 'POST', '/organizations/acme/domains', { body: { domain: '10.0.0.1' } })).statusCode, 400);
  t.equal((await api.call(t, 'DELETE', '/organizations/acme/domains/acme.example')).statusCode, 204);
  t.equal((await api.call(t, 'DELETE', '/organizations/acme/roles/billing')).statusCode, 204);
  t.equal((await api.call(t, 'DELETE', `/organizations/acme/members/${BOB.username}`)).statusCode, 404, 'bob is not a member of acme');
});

/** A client made by the writer with admin_organization, and its admin:* token. */
async function scopedClient(t: Test, clientId: string, organization: string): Promise<string> {
  const res = await api.call(t, 'POST', '/clients', {
    body: {
      client_id: clientId,
      redirect_uris: ['https://ops.example/cb'],
      grant_types: ['client_credentials'],
      scope: 'admin:read admin:write',
      admin_organization: organization,
    },
  });
  t.equal(res.statusCode, 201, res.body);
  const token = await tokenRequest(api.app, { grant_type: 'client_credentials' }, basicAuth(clientId, res.json().client_secret));
  return (token.json() as { access_token: string }).access_token;
}

t.test("an organization's client administers its organization and nothing else (the issue's first property)", async (t) => {
  const token = await scopedClient(t, 'acme-bot', 'acme');
  const acme = await orgRow('acme');
  const globexBefore = await orgRow('globex');
  t.equal(
    (await api.db.selectFrom('clients').select('admin_organization_id').where('client_id', '=', 'acme-bot').executeTakeFirst())
      ?.admin_organization_id,
    acme!.id,
  );

  t.same(
    (await api.call(t, 'GET', '/organizations', { token })).json().items.map((o: { slug: string }) => o.slug),
    ['acme'],
    'the list holds its own organization only',
  );
  const own = await api.call(t, 'GET', '/organizations/acme', { token });
  t.equal(own.statusCode, 200);
  const renamed = await api.call(t, 'PATCH', '/organizations/acme', {
    token,
    body: { display_name: 'Acme by its bot' },
    headers: { 'if-match': own.headers.etag! },
  });
  t.equal(renamed.statusCode, 200, 'it changes its own organization');

  // Another organization does not exist for it: the same 404 as a name that exists nowhere; nothing written.
  for (const [method, path, body] of [
    ['GET', '/organizations/globex', undefined],
    ['GET', `/organizations/${globexBefore!.id}`, undefined],
    ['PATCH', '/organizations/globex', { display_name: 'Taken over' }],
    ['GET', '/organizations/globex/members', undefined],
    ['PUT', `/organizations/globex/members/${ALICE.username}`, { roles: ['admin'] }],
    ['DELETE', `/organizations/globex/members/${BOB.username}`, undefined],
    ['POST', '/organizations/globex/roles', { name: 'spy' }],
    ['POST', '/organizations/globex/domains', { domain: 'globex.example' }],
  ] as const) {
    const res = await api.call(t, method, path, { token, body, headers: { 'if-match': '*' } });
    t.equal(res.statusCode, 404, `${method} ${path} is a 404`);
    t.notMatch(res.body, /globex/i.test(path) ? /Globex\b/ : /^$/, 'nothing of the other organization is told');
  }
  t.same(await orgRow('globex'), globexBefore, 'the other organization is unchanged');
  const globexMembers = await api.db
    .selectFrom('organization_members')
    .select('user_id')
    .where('organization_id', '=', globexBefore!.id)
    .execute();
  t.equal(globexMembers.length, 1, "the other organization's members are unchanged (bob only)");
  t.equal((await api.db.selectFrom('organization_roles').selectAll().where('organization_id', '=', globexBefore!.id).execute()).length, 0);
  t.equal(
    (await api.db.selectFrom('organization_domains').selectAll().where('organization_id', '=', globexBefore!.id).execute()).length,
    0,
  );

  // Its own organization's members: roles of a member replaced, but no existing account pulled in (people come in
  // by invitation, which they accept): the same 403 whether the username exists or not, nothing written.
  const acmeMembers = await api.db.selectFrom('organization_members').select('user_id').where('organization_id', '=', acme!.id).execute();
  for (const who of [BOB.username, 'nobody-here']) {
    const pulled = await api.call(t, 'PUT', `/organizations/acme/members/${who}`, { token, body: { roles: [] } });
    t.equal(pulled.statusCode, 403, `adding ${who} is refused`);
    t.equal(pulled.json().code, 'forbidden');
  }
  t.same(
    await api.db.selectFrom('organization_members').select('user_id').where('organization_id', '=', acme!.id).execute(),
    acmeMembers,
    'no membership was made',
  );
  const invited = await api.call(t, 'POST', '/organizations/acme/invitations', { token, body: { email: 'carol@acme.example' } });
  t.equal(invited.statusCode, 201, 'it invites instead (its invitations routes are open to it)');
  t.equal((await api.call(t, 'GET', '/organizations/acme/invitations', { token })).statusCode, 200);
  t.equal((await api.call(t, 'GET', '/organizations/globex/invitations', { token })).statusCode, 404, "not another organization's");

  // Making or deleting an organization is the provider's: 403.
  const created = await api.call(t, 'POST', '/organizations', { token, body: { slug: 'initech', display_name: 'Initech' } });
  t.equal(created.statusCode, 403);
  t.equal(created.json().code, 'forbidden');
  t.equal(await orgRow('initech'), undefined);
  t.equal((await api.call(t, 'DELETE', '/organizations/acme', { token, headers: { 'if-match': '*' } })).statusCode, 403);
  t.ok(await orgRow('acme'), 'its own organization is not deleted either');
});

t.test("an organization's client is refused every provider-wide resource (403) and changes none", async (t) => {
  const token = await scopedClient(t, 'acme-bot-2', 'acme');
  for (const path of [
    '/clients',
    '/users',
    '/groups',
    '/risk-rules',
    '/security-events',
    '/signing-keys',
    '/resource-servers',
    '/connections',
    '/saml-service-providers',
    '/webhooks',
    '/scim-tokens',
  ]) {
    const res = await api.call(t, 'GET', path, { token });
    t.equal(res.statusCode, 403, `GET ${path} is a 403`);
    t.equal(res.json().code, 'forbidden');
  }
  t.equal((await api.call(t, 'POST', '/groups', { token, body: { name: 'intruders' } })).statusCode, 403);
  t.equal(await api.db.selectFrom('groups').select('id').where('name', '=', 'intruders').executeTakeFirst(), undefined);
  // It cannot widen itself, nor another client.
  for (const clientId of ['acme-bot-2', 'acme-bot']) {
    const res = await api.call(t, 'PATCH', `/clients/${clientId}`, {
      token,
      body: { admin_organization: null },
      headers: { 'if-match': '*' },
    });
    t.equal(res.statusCode, 403, `it cannot free ${clientId}`);
    const row = await api.db.selectFrom('clients').select('admin_organization_id').where('client_id', '=', clientId).executeTakeFirst();
    t.not(row?.admin_organization_id, null, `${clientId} stays limited`);
  }
  const audit = (await api.call(t, 'GET', '/audit?limit=200', { token })).json();
  t.ok(audit.items.length > 0, 'the audit trail of its organization');
  const acme = await orgRow('acme');
  t.ok(
    audit.items.every((r: { organization_id: string | null }) => r.organization_id === acme!.id),
    "only its organization's records",
  );
});

t.test('a provider-wide client sets and lifts admin_organization; an unknown organization is a 404', async (t) => {
  const read = await api.call(t, 'GET', '/clients/acme-bot');
  const lifted = await api.call(t, 'PATCH', '/clients/acme-bot', {
    body: { admin_organization: 'none' },
    headers: { 'if-match': read.headers.etag! },
  });
  t.equal(lifted.statusCode, 200, lifted.body);
  const row = () => api.db.selectFrom('clients').select('admin_organization_id').where('client_id', '=', 'acme-bot').executeTakeFirst();
  t.equal((await row())?.admin_organization_id, null);
  const unknown = await api.call(t, 'PATCH', '/clients/acme-bot', {
    body: { admin_organization: 'nowhere' },
    headers: { 'if-match': '*' },
  });
  t.equal(unknown.statusCode, 404);
  t.equal((await row())?.admin_organization_id, null, 'nothing written');
});
