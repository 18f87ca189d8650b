// The management API's connections resource with `organization` (issue 40): PUT takes the slug or id, the answer
// (as openapi.json says, api.call checks it) names it; an unknown organization is a 400 problem, never a 500.
import pino from 'pino';
import t from 'tap';
import { PasswordPolicy } from '../../../src/domain/accounts/password-policy.js';
import type { AdminContext } from '../../../src/domain/admin/admin.js';
import { createOrganization } from '../../../src/domain/organizations/organization-admin.js';
import { adminApiApp } from '../../helpers/admin-api.js';

const api = await adminApiApp(t, { notifier: null });
const ctx: AdminContext = {
  config: api.config,
  db: api.db,
  clock: () => new Date(),
  log: pino({ level: 'silent' }),
  passwords: undefined as never,
  passwordPolicy: new PasswordPolicy(api.config.passwordPolicy),
};
const acme = await createOrganization(ctx, { slug: 'acme', display_name: 'Acme' });
const entry = { kind: 'oidc', display_name: 'Acme IdP', issuer: 'https://idp.example', client_id: 'ours' };

t.test('PUT /connections/{id} with organization stores it; GET shows slug and id; unknown is a 400', async (t) => {
  const put = await api.call(t, 'PUT', '/connections/acme-idp', { body: { ...entry, organization: 'acme' } });
  t.equal(put.statusCode, 201, put.body);
  t.match(put.json(), { organization: 'acme', organization_id: acme.id });
  const got = await api.call(t, 'GET', '/connections/acme-idp', { token: api.reader });
  t.match(got.json(), { organization: 'acme', organization_id: acme.id });
  const wide = await api.call(t, 'PUT', '/connections/acme-idp', {
    body: { ...entry, organization: null },
    headers: { 'if-match': String(got.headers.etag) },
  });
  t.equal(wide.statusCode, 200, wide.body);
  t.match(wide.json(), { organization: null, organization_id: null }, 'null: provider-wide');
  const unknown = await api.call(t, 'PUT', '/connections/ghost', { body: { ...entry, organization: 'nope' } });
  t.equal(unknown.statusCode, 400);
  t.match(unknown.body, 'no organization');
});
