// A connection that belongs to an organization (issue 40): `organization` (slug or id) in the seed file's entry and
// the admin's, stored in connections.organization_id, shown; an organization-scoped admin creates and changes only
// connections of its own organization (organization-scope.ts).
import t from 'tap';
import type { AdminContext } from '../../src/domain/admin/admin.js';
import { AdminError } from '../../src/domain/admin-error.js';
import { applySeed, parseSeed, SeedError } from '../../src/domain/admin/seed.js';
import { removeConnection, setConnection, showConnection } from '../../src/domain/connections/connection-admin.js';
import { createOrganization } from '../../src/domain/organizations/organization-admin.js';
import { testConfig } from '../helpers/app.js';
import { adminContext, PLAIN_PASSWORDS } from '../helpers/admin-context.js';
import { createTestDatabase } from '../helpers/database.js';

const database = await createTestDatabase();
t.teardown(() => database.drop());
const db = database.handle.db;
const config = testConfig();
const passwords = PLAIN_PASSWORDS;
const ctx = adminContext(db, config);
const entry = (id: string, organization?: string | null) => ({
  id,
  kind: 'oidc' as const,
  display_name: id,
  issuer: 'https://idp.example',
  client_id: 'ours',
  ...(organization === undefined ? {} : { organization }),
});

const acme = await createOrganization(ctx, { slug: 'acme', display_name: 'Acme' });
const globex = await createOrganization(ctx, { slug: 'globex', display_name: 'Globex' });
const scoped: AdminContext = { ...ctx, organizationScope: acme.id };

t.test('the seed file names the organization by slug; null or absent is provider-wide; an unknown one refuses the file', async (t) => {
  await applySeed(db, passwords, parseSeed({ clients: [], users: [], connections: [entry('acme-idp', 'acme'), entry('shared', null)] }));
  t.match(await showConnection(ctx, 'acme-idp'), { organization: 'acme', organization_id: acme.id });
  t.match(await showConnection(ctx, 'shared'), { organization: null, organization_id: null });
  t.throws(() => parseSeed({ clients: [], users: [], connections: [{ ...entry('x'), organization: 7 }] }), SeedError);
  await t.rejects(
    applySeed(db, passwords, parseSeed({ clients: [], users: [], connections: [entry('ghost', 'nope')] })),
    new AdminError('connection "ghost": no organization "nope"'),
  );
  const byId = await setConnection(ctx, entry('globex-idp', globex.id));
  t.equal(byId.connection.organization, 'globex', 'an id does as well as a slug');
});

t.test('an organization-scoped admin manages only connections of its own organization', async (t) => {
  const own = await setConnection(scoped, entry('acme-2', 'acme'));
  t.equal(own.connection.organization_id, acme.id);
  await t.rejects(
    setConnection(scoped, entry('mine')),
    { name: 'AdminError', kind: 'forbidden' },
    'a provider-wide connection is not its to make',
  );
  await t.rejects(
    setConnection(scoped, entry('theirs', 'globex')),
    { name: 'AdminError', kind: 'not_found' },
    'another organization is not there',
  );
  await t.rejects(
    setConnection(scoped, entry('globex-idp', 'acme')),
    { name: 'AdminError', kind: 'not_found' },
    "nor can it take another's connection",
  );
  await t.rejects(removeConnection(scoped, 'shared'), { name: 'AdminError', kind: 'not_found' });
  t.equal((await showConnection(ctx, 'globex-idp')).organization, 'globex', 'unchanged');
  await removeConnection(scoped, 'acme-2');
});
