// `sso-admin clients update ID --admin-organization ORG|none` (issue 40 delegated administration): limits a client's
// admin:* tokens to one organization (clients.admin_organization_id), lifts the limit, refuses an unknown one.
import t from 'tap';
import { adminStore, runAdmin } from '../helpers/admin-cli.js';
import { createOrganization } from '../../src/domain/organizations/organization-admin.js';
import { testConfig } from '../helpers/app.js';
import pino from 'pino';

t.test('--admin-organization sets, lifts and refuses an unknown organization, writing nothing then', async (t) => {
  const s = await adminStore(t);
  const org = await s.withDb((db) =>
    createOrganization(
      {
        config: testConfig(),
        db,
        clock: () => new Date(),
        log: pino({ enabled: false }),
        passwords: undefined as never,
        passwordPolicy: undefined as never,
      },
      { slug: 'acme', display_name: 'Acme' },
    ),
  );
  const added = await runAdmin(
    [
      'clients',
      'create',
      'ops-bot',
      '--grant-type',
      'client_credentials',
      '--scope',
      'admin:read',
      '--redirect-uri',
      'https://ops.example/cb',
    ],
    s.env,
  );
  t.equal(added.code, 0, added.message);
  const column = () =>
    s.withDb(
      async (db) =>
        (await db.selectFrom('clients').select('admin_organization_id').where('client_id', '=', 'ops-bot').executeTakeFirst())
          ?.admin_organization_id,
    );
  t.equal((await runAdmin(['clients', 'update', 'ops-bot', '--admin-organization', 'acme'], s.env)).code, 0);
  t.equal(await column(), org.id);
  const unknown = await runAdmin(['clients', 'update', 'ops-bot', '--admin-organization', 'nowhere'], s.env);
  t.not(unknown.code, 0);
  t.match(unknown.message, /no organization "nowhere"/);
  t.equal(await column(), org.id, 'nothing written');
  t.equal((await runAdmin(['clients', 'update', 'ops-bot', '--admin-organization', 'none'], s.env)).code, 0);
  t.equal(await column(), null);
});
