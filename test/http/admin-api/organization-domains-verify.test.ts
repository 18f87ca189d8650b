// POST /admin/api/v1/organizations/{org}/domains/{domain}/verify (issue 40) against a DNS server of the test's own:
// 200 verified, 200 with the reason when the record is missing or different, 409 for a domain another organization
// holds, 503 with Retry-After when the DNS does not answer (nothing recorded), 404 for an unclaimed domain, 403 for
// a reader; every answer as openapi.json says.
import pino from 'pino';
import t from 'tap';
import type { AdminContext } from '../../../src/domain/admin/admin.js';
import { addOrganizationDomain, createOrganization } from '../../../src/domain/organizations/organization-admin.js';
import { findOrganizationDomain } from '../../../src/storage/organizations.js';
import { adminApiApp } from '../../helpers/admin-api.js';
import { startDnsServer } from '../../helpers/dns-server.js';

const dns = await startDnsServer(t);
const test = await adminApiApp(t, { env: { DNS_RESOLVERS: dns.address } });
const ctx = { config: test.config, db: test.db, clock: () => new Date(), log: pino({ level: 'silent' }) } as unknown as AdminContext;
const acme = await createOrganization(ctx, { slug: 'acme', display_name: 'Acme' });
const umbrella = await createOrganization(ctx, { slug: 'umbrella', display_name: 'Umbrella' });
const acmeClaim = await addOrganizationDomain(ctx, 'acme', 'acme.example');
const umbrellaClaim = await addOrganizationDomain(ctx, 'umbrella', 'acme.example');
const verify = (org: string, domain: string, token?: string) =>
  test.call(t, 'POST', `/organizations/${org}/domains/${domain}/verify`, token === undefined ? {} : { token });

t.test('a missing record answers 200 with verified false and why; the check is recorded', async (t) => {
  const res = await verify('acme', 'acme.example');
  t.equal(res.statusCode, 200);
  t.match(res.json(), {
    domain: 'acme.example',
    verified: false,
    reason: 'record_missing',
    record: acmeClaim.record,
    verified_at: null,
    checked_at: String,
  });
});

t.test('the record published: 200 verified; then 409 for the other organization', async (t) => {
  // Two strings of one TXT record read as one value (RFC 7208 3.3).
  dns.setTxt(acmeClaim.record.name, [[acmeClaim.record.value.slice(0, 7), acmeClaim.record.value.slice(7)]]);
  const res = await verify(acme.id, 'acme.example');
  t.equal(res.statusCode, 200);
  t.match(res.json(), { verified: true, reason: null, detail: null, verified_at: String });

  dns.setTxt(acmeClaim.record.name, [[umbrellaClaim.record.value]]);
  const before = await findOrganizationDomain(test.db, umbrella.id, 'acme.example');
  const conflict = await verify('umbrella', 'acme.example');
  t.equal(conflict.statusCode, 409);
  t.match(conflict.json(), { code: 'conflict', detail: /verified by another organization/ });
  t.same(await findOrganizationDomain(test.db, umbrella.id, 'acme.example'), before, 'nothing changed');
});

t.test('the DNS failing: 503 dns_unavailable with Retry-After, nothing recorded', async (t) => {
  const claim = await addOrganizationDomain(ctx, 'umbrella', 'umbrella.example');
  dns.setTxt(claim.record.name, [[claim.record.value]]);
  dns.mode = 'servfail';
  t.teardown(() => void (dns.mode = 'answer'));
  const res = await verify('umbrella', 'umbrella.example');
  t.equal(res.statusCode, 503);
  t.equal(res.headers['retry-after'], '60');
  t.match(res.json(), { code: 'dns_unavailable', detail: /try again later/ });
  t.match(await findOrganizationDomain(test.db, umbrella.id, 'umbrella.example'), {
    checked_at: null,
    check_failures: 0,
    verified_at: null,
  });
});

t.test('an unclaimed domain is 404, a bad one 400, a reader 403', async (t) => {
  t.equal((await verify('acme', 'other.example')).statusCode, 404);
  t.equal((await verify('no-such-org', 'acme.example')).statusCode, 404);
  t.equal((await verify('acme', 'not_a_domain')).statusCode, 400);
  t.equal((await verify('acme', 'acme.example', test.reader)).statusCode, 403);
});
