// `sso-admin orgs domains verify ORG DOMAIN` (issue 40) as an operator runs it, on a database of the test's own and
// against a DNS server of the test's own named by DNS_RESOLVERS: verified with its audit line, exit 1 with the
// reason and the record to publish when it is not, and when another organization holds the domain.
import pino from 'pino';
import t from 'tap';
import type { AdminContext } from '../../../src/domain/admin/admin.js';
import { addOrganizationDomain, createOrganization } from '../../../src/domain/organizations/organization-admin.js';
import { testConfig } from '../../helpers/app.js';
import { adminStore, events, json, runAdmin } from '../../helpers/admin-cli.js';
import { startDnsServer } from '../../helpers/dns-server.js';

t.test('orgs domains verify: refused with the reason until the record is published, then verified', async (t) => {
  const dns = await startDnsServer(t);
  const store = await adminStore(t);
  const env = { ...store.env, DNS_RESOLVERS: dns.address };
  const claims = await store.withDb(async (db) => {
    const ctx = { config: testConfig(), db, clock: () => new Date(), log: pino({ level: 'silent' }) } as unknown as AdminContext;
    await createOrganization(ctx, { slug: 'acme', display_name: 'Acme' });
    await createOrganization(ctx, { slug: 'initech', display_name: 'Initech' });
    return [await addOrganizationDomain(ctx, 'acme', 'acme.example'), await addOrganizationDomain(ctx, 'initech', 'acme.example')];
  });
  const { name, value } = claims[0]!.record;

  const missing = await runAdmin(['orgs', 'domains', 'verify', 'acme', 'acme.example'], env);
  t.equal(missing.code, 1);
  t.match(missing.message, `"acme.example" is not verified: no TXT record at ${name}`);
  t.match(missing.message, value, 'says what to publish');

  dns.setTxt(name, [[value]]);
  const verified = await runAdmin(['orgs', 'domains', 'verify', 'acme', 'acme.example'], env);
  t.equal(verified.code, 0, verified.stderr);
  t.match(verified.stdout, /^"acme\.example" is verified \(since /);
  t.same(events(verified), ['admin.organization.domain_verified']);
  t.match(json(await runAdmin(['orgs', 'domains', 'verify', 'acme', 'acme.example', '--json'], env)), {
    domain: 'acme.example',
    verified: true,
    record: { name, value },
  });

  const other = await runAdmin(['orgs', 'domains', 'verify', 'initech', 'acme.example'], env);
  t.equal(other.code, 1);
  t.match(other.message, 'verified by another organization');
  const usage = await runAdmin(['orgs', 'domains', 'check', 'acme', 'acme.example'], env);
  t.equal(usage.code, 2);
});
