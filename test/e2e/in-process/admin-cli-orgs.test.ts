// `sso-admin orgs ...` (issue 40) as an operator runs it, in this process on a database of the test's own (see
// admin-cli-clients.test.ts): organizations, their members, roles and domains, through organization-admin.ts.
import t from 'tap';
import type { Db } from '../../../src/storage/database.js';
import { adminStore, events, json, runAdmin, signedInUser } from '../../helpers/admin-cli.js';

// A user with no sessions (signedInUser with no devices writes only the user).
const users = (db: Db) => signedInUser(db, 'alice', 'app', 0);

t.test('orgs add, list, show, update and remove; bad settings are refused before the database opens', async (t) => {
  const store = await adminStore(t);

  const added = await runAdmin(
    [
      'orgs',
      'add',
      'acme',
      '--display-name',
      'Acme Corp',
      '--policy',
      'require_second_factor=true',
      '--policy',
      'sign_in_methods=password',
      '--branding',
      'primary_color=#AA0000',
      '--json',
    ],
    store.env,
  );
  const org = json(added);
  t.match(org, {
    slug: 'acme',
    display_name: 'Acme Corp',
    policies: { require_second_factor: true, sign_in_methods: ['password'], join: 'invitation' },
    branding: { primary_color: '#aa0000' },
    created_at: /Z$/,
  });
  t.same(events(added), ['admin.organization.created']);

  const taken = await runAdmin(['orgs', 'add', 'acme', '--display-name', 'Again'], store.env);
  t.equal(taken.code, 1);
  t.match(taken.message, 'an organization with the slug "acme" exists already');

  const bad = await runAdmin(['orgs', 'add', 'Bad Slug', '--display-name', 'x', '--policy', 'join=everyone'], store.env);
  t.equal(bad.code, 1);
  t.match(bad.message, 'policies.join must be "invitation" or "domain"', 'every problem is named');
  t.same(events(bad), [], 'refused before anything is written');

  const pair = await runAdmin(['orgs', 'update', 'acme', '--policy', 'nonsense'], store.env);
  t.equal(pair.code, 2);
  t.match(pair.message, '--policy takes key=value');

  const list = json<Array<Record<string, unknown>>>(await runAdmin(['orgs', 'list', '--json'], store.env));
  t.same(
    list.map((o) => [o.slug, o.members]),
    [['acme', 0]],
  );

  const updated = await runAdmin(['orgs', 'update', org.id as string, '--display-name', 'Acme', '--policy', 'join=domain'], store.env);
  t.equal(updated.code, 0, updated.stderr);
  t.equal(updated.stdout, 'organization "acme" updated: display_name, policies\n');
  const shown = await runAdmin(['orgs', 'show', 'acme'], store.env);
  t.match(shown.stdout, /display name\s+Acme\n/);
  t.match(shown.stdout, /policy join\s+domain\n/);
  t.match(shown.stdout, /policy require_second_factor\s+true\n/, 'a policy not given keeps its value');

  const refused = await runAdmin(['orgs', 'remove', 'acme'], store.env);
  t.equal(refused.code, 2, 'remove asks first: no terminal, no --yes');
  const removed = await runAdmin(['orgs', 'remove', 'acme', '--yes'], store.env);
  t.equal(removed.code, 0, removed.stderr);
  t.equal(removed.stdout, 'organization "acme" deleted (0 members)\n');
  const gone = await runAdmin(['orgs', 'show', 'acme'], store.env);
  t.equal(gone.code, 1);
});

t.test('orgs members, roles and domains; users show lists the organizations', async (t) => {
  const store = await adminStore(t);
  await store.withDb(users);
  t.equal((await runAdmin(['orgs', 'add', 'acme', '--display-name', 'Acme'], store.env)).code, 0);

  const role = await runAdmin(['orgs', 'roles', 'add', 'acme', 'billing', '--description', 'pays'], store.env);
  t.equal(role.code, 0, role.stderr);
  const roles = json<Array<Record<string, unknown>>>(await runAdmin(['orgs', 'roles', 'list', 'acme', '--json'], store.env));
  t.same(
    roles.map((r) => [r.name, r.built_in]),
    [
      ['admin', true],
      ['member', true],
      ['billing', false],
    ],
  );
  const needsRole = await runAdmin(['orgs', 'roles', 'add', 'acme'], store.env);
  t.equal(needsRole.code, 2);
  t.match(needsRole.message, 'orgs roles add needs <role>');

  const unknownRole = await runAdmin(['orgs', 'members', 'add', 'acme', 'alice', '--role', 'pilot'], store.env);
  t.equal(unknownRole.code, 1);
  t.match(unknownRole.message, 'the organization has no role "pilot"');
  const add = await runAdmin(['orgs', 'members', 'add', 'acme', 'alice', '--role', 'billing'], store.env);
  t.equal(add.stdout, '"alice" added to "acme"\n');
  t.same(events(add), ['admin.organization.member_added']);
  const again = await runAdmin(['orgs', 'members', 'add', 'acme', 'alice'], store.env);
  t.equal(again.stdout, '"alice" was a member of "acme" already\n');
  const set = await runAdmin(['orgs', 'members', 'set-roles', 'acme', 'alice', '--role', 'admin'], store.env);
  t.equal(set.stdout, '"alice" holds member, admin\n');
  const members = json<Array<Record<string, unknown>>>(await runAdmin(['orgs', 'members', 'list', 'acme', '--json'], store.env));
  t.match(members, [{ username: 'alice', roles: ['member', 'admin'], source: 'admin' }]);

  const shown = await runAdmin(['users', 'show', 'alice'], store.env);
  t.match(shown.stdout, /organizations\s+acme \(member, admin\)\n/);
  t.match(json(await runAdmin(['users', 'show', 'alice', '--json'], store.env)), {
    organizations: [{ slug: 'acme', roles: ['member', 'admin'] }],
  });

  const domain = await runAdmin(['orgs', 'domains', 'add', 'acme', 'Example.COM'], store.env);
  t.equal(domain.code, 0, domain.stderr);
  t.match(domain.stdout, /_sso-verify\.example\.com {2}TXT {2}"sso-verify=[A-Za-z0-9_-]+"/, 'the TXT record to publish');
  const domains = json<Array<Record<string, unknown>>>(await runAdmin(['orgs', 'domains', 'list', 'acme', '--json'], store.env));
  t.match(domains, [{ domain: 'example.com', verified_at: null, txt_record: { name: '_sso-verify.example.com', value: /^sso-verify=/ } }]);
  const notDomain = await runAdmin(['orgs', 'domains', 'add', 'acme', '*.example.com'], store.env);
  t.equal(notDomain.code, 1);
  t.equal((await runAdmin(['orgs', 'domains', 'remove', 'acme', 'example.com'], store.env)).code, 0);
  t.same(json(await runAdmin(['orgs', 'domains', 'list', 'acme', '--json'], store.env)), []);

  const bogus = await runAdmin(['orgs', 'members', 'promote', 'acme', 'alice'], store.env);
  t.equal(bogus.code, 2);
  t.match(bogus.message, 'unknown action "promote"');

  t.equal((await runAdmin(['orgs', 'roles', 'remove', 'acme', 'billing'], store.env)).code, 0);
  const removed = await runAdmin(['orgs', 'members', 'remove', 'acme', 'alice'], store.env);
  t.equal(removed.stdout, '"alice" removed from "acme"\n');
  t.match((await runAdmin(['users', 'show', 'alice'], store.env)).stdout, /organizations\s+none\n/);
});

t.test('connections add --organization makes a connection of the organization; show names it', async (t) => {
  const store = await adminStore(t);
  t.equal((await runAdmin(['orgs', 'add', 'acme', '--display-name', 'Acme'], store.env)).code, 0);
  const base = ['--kind', 'oidc', '--issuer', 'https://idp.example', '--client-id', 'ours', '--display-name', 'Acme IdP'];
  const added = await runAdmin(['connections', 'add', 'acme-idp', ...base, '--organization', 'acme'], store.env);
  t.equal(added.code, 0, added.stderr);
  t.match(json(await runAdmin(['connections', 'show', 'acme-idp', '--json'], store.env)), { organization: 'acme' });
  t.match((await runAdmin(['connections', 'show', 'acme-idp'], store.env)).stdout, /organization\s+acme\n/);
  const unknown = await runAdmin(['connections', 'add', 'ghost', ...base, '--organization', 'nope'], store.env);
  t.equal(unknown.code, 1);
  t.match(unknown.message, 'no organization "nope"');
  const wide = await runAdmin(['connections', 'add', 'wide', ...base], store.env);
  t.equal(wide.code, 0, wide.stderr);
  t.match((await runAdmin(['connections', 'show', 'wide'], store.env)).stdout, /organization\s+\(provider-wide\)\n/);
});
