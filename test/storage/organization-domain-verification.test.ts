// Proving an organization's domain by its DNS TXT record (issue 40), on a real database and against a DNS server of
// the test's own (test/helpers/dns-server.ts): verified when the record holds the claim's value, refused otherwise;
// one organization at a time; a DNS that does not answer changes nothing; the periodic re-check unverifies a domain
// whose record is gone after UNVERIFY_AFTER_FAILURES checks; the per-organization counter stops a flood before any
// lookup.
import pino from 'pino';
import t, { type Test } from 'tap';
import { PasswordPolicy } from '../../src/domain/accounts/password-policy.js';
import type { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { AdminError } from '../../src/domain/admin-error.js';
import {
  recheckVerifiedDomains,
  RECHECK_INTERVAL_HOURS,
  UNVERIFY_AFTER_FAILURES,
  VERIFY_CHECKS_PER_MINUTE,
  verifyOrganizationDomain,
  type VerificationContext,
} from '../../src/domain/organizations/domain-verification.js';
import { addOrganizationDomain, createOrganization } from '../../src/domain/organizations/organization-admin.js';
import { addWebhook } from '../../src/domain/webhooks/webhook-admin.js';
import { TooManyRequests } from '../../src/errors/oauth-error.js';
import { dnsTxtLookup } from '../../src/outbound/dns-txt.js';
import { findOrganizationDomain, findVerifiedDomain } from '../../src/storage/organizations.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import { startDnsServer } from '../helpers/dns-server.js';

const database = await createTestDatabase();
t.teardown(() => database.drop());
const db = database.handle.db;
const dnsServer = await startDnsServer(t);
const config = testConfig({ DNS_RESOLVERS: dnsServer.address });
let nowMs = Date.parse('2026-12-08T00:00:00Z');
const ctx: VerificationContext = {
  config,
  db,
  clock: () => new Date(nowMs),
  log: pino({ level: 'silent' }),
  passwords: {} as PasswordHasher,
  passwordPolicy: new PasswordPolicy(config.passwordPolicy),
  // A short budget, so that the server that never answers costs little.
  dns: dnsTxtLookup(config.dnsResolvers, { timeoutMs: 600 }),
};
const advanceHours = (h: number) => (nowMs += h * 3_600_000);
let orgs = 0;

/** An organization claiming `domain`, and the TXT record's name and value it must publish. */
async function claimant(domain: string) {
  orgs += 1;
  const org = await createOrganization(ctx, { slug: `org-${orgs}`, display_name: `Org ${orgs}` });
  const claim = await addOrganizationDomain(ctx, org.slug, domain);
  return { org, ...claim.record };
}

const row = (orgId: string, domain: string) => findOrganizationDomain(db, orgId, domain);
const audits = async (event: string) =>
  (await db.selectFrom('admin_audit_records').select(['event', 'changes']).where('event', '=', event).execute()).map((r) => r.changes);
const refusal = async (t: Test, p: Promise<unknown>, kind: string) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof AdminError && err.kind === kind, `refused: ${kind}`, { err });
};

t.test('DNS_RESOLVERS takes addresses with optional ports and refuses host names', async (t) => {
  t.same(testConfig({ DNS_RESOLVERS: '10.0.0.53, 127.0.0.1:5353,[::1]:53,::1' }).dnsResolvers, [
    '10.0.0.53',
    '127.0.0.1:5353',
    '[::1]:53',
    '[::1]',
  ]);
  t.same(testConfig().dnsResolvers, [], "unset: the system's resolvers");
  t.throws(() => testConfig({ DNS_RESOLVERS: 'dns.example:53' }), /DNS_RESOLVERS: "dns.example:53"/);
  t.throws(() => testConfig({ DNS_RESOLVERS: '127.0.0.1:70000' }), /DNS_RESOLVERS/);
});

t.test('a domain is verified when its TXT record holds the value, strings of one record joined (RFC 7208 3.3)', async (t) => {
  await addWebhook(ctx, { id: 'domains', url: 'https://hooks.example/in', events: ['organization.domain_verified'] });
  const { org, name, value } = await claimant('acme.example');
  t.equal(name, '_sso-verify.acme.example');
  // RFC 1035 3.3.14: a TXT record is one or more <character-string>s; split anywhere, they read as one value.
  dnsServer.setTxt(name, [['v=spf1 -all'], [value.slice(0, 10), value.slice(10, 25), value.slice(25)]]);
  const result = await verifyOrganizationDomain(ctx, org.slug, 'ACME.example.');
  t.equal(result.outcome, 'verified');
  t.equal(result.domain.verifiedAt?.getTime(), nowMs);
  t.equal((await findVerifiedDomain(db, 'acme.example'))?.organization_id, org.id, 'home-realm discovery finds it');
  t.same(await audits('admin.organization.domain_verified'), [{ domain: 'acme.example', verified: true }]);
  const hooks = await db
    .selectFrom('webhook_deliveries')
    .select(['event_type', 'payload'])
    .where('subscription_id', '=', 'domains')
    .execute();
  t.same(
    hooks.map((h) => [h.event_type, h.payload]),
    [['organization.domain_verified', { organization_id: org.id, domain: 'acme.example' }]],
  );

  advanceHours(1);
  const again = await verifyOrganizationDomain(ctx, org.slug, 'acme.example');
  t.equal(again.domain.verifiedAt?.getTime(), nowMs - 3_600_000, 'checked again: verified since the first time');
  t.equal(again.domain.checkedAt?.getTime(), nowMs);
  t.equal((await audits('admin.organization.domain_verified')).length, 1, 'one audit record: when it became verified');
});

t.test('a missing record or another value is refused, the check recorded, nothing verified', async (t) => {
  const { org, name, value } = await claimant('missing.example');
  const missing = await verifyOrganizationDomain(ctx, org.slug, 'missing.example');
  t.match(missing, { outcome: 'record_missing', detail: /no TXT record at _sso-verify\.missing\.example/ });
  t.match(await row(org.id, 'missing.example'), { verified_at: null, check_failures: 1, checked_at: new Date(nowMs) });

  dnsServer.setTxt(name, [[`${value}x`], ['sso-verify=someone-else']]);
  const differs = await verifyOrganizationDomain(ctx, org.slug, 'missing.example');
  t.equal(differs.outcome, 'value_differs');
  t.equal((await row(org.id, 'missing.example'))?.verified_at, null);
  t.equal(await findVerifiedDomain(db, 'missing.example'), undefined);

  await refusal(t, verifyOrganizationDomain(ctx, org.slug, 'unclaimed.example'), 'not_found');
  await refusal(t, verifyOrganizationDomain(ctx, org.slug, '*.example'), 'invalid');
});

t.test('a domain verified by one organization is refused to another, with nothing changed', async (t) => {
  const a = await claimant('shared.example');
  dnsServer.setTxt(a.name, [[a.value]]);
  t.equal((await verifyOrganizationDomain(ctx, a.org.slug, 'shared.example')).outcome, 'verified');
  const b = await claimant('shared.example');
  // B controls the zone now and publishes its own value beside A's.
  dnsServer.setTxt(a.name, [[a.value], [b.value]]);
  const before = await row(b.org.id, 'shared.example');
  const asked = dnsServer.queries.length;
  await refusal(t, verifyOrganizationDomain(ctx, b.org.slug, 'shared.example'), 'conflict');
  t.same(await row(b.org.id, 'shared.example'), before, "B's claim unchanged");
  t.equal(dnsServer.queries.length, asked, 'refused before any lookup');
  t.equal((await findVerifiedDomain(db, 'shared.example'))?.organization_id, a.org.id, 'A keeps it');
  await refusal(t, verifyOrganizationDomain({ ...ctx, organizationScope: b.org.id }, a.org.slug, 'shared.example'), 'not_found');
});

t.test('a DNS that fails or does not answer is a temporary error: nothing is written', async (t) => {
  const { org, name, value } = await claimant('flaky.example');
  dnsServer.setTxt(name, [[value]]);
  const before = await row(org.id, 'flaky.example');
  try {
    for (const mode of ['servfail', 'silent'] as const) {
      dnsServer.mode = mode;
      const result = await verifyOrganizationDomain(ctx, org.slug, 'flaky.example');
      t.match(result, { outcome: 'dns_unavailable', detail: /try again later/ }, mode);
      t.same(await row(org.id, 'flaky.example'), before, `${mode}: no check recorded, no failure counted`);
    }
  } finally {
    dnsServer.mode = 'answer';
  }
});

t.test('the re-check unverifies a domain whose record is gone after UNVERIFY_AFTER_FAILURES checks; DNS down counts nothing', async (t) => {
  await addWebhook(ctx, { id: 'unverified', url: 'https://hooks.example/in', events: ['organization.domain_unverified'] });
  const { org, name, value } = await claimant('gone.example');
  dnsServer.setTxt(name, [[value]]);
  await verifyOrganizationDomain(ctx, org.slug, 'gone.example');
  const due = () => advanceHours(RECHECK_INTERVAL_HOURS);

  t.same(await recheckVerifiedDomains(ctx), { checked: 0, unverified: 0, unavailable: 0 }, 'nothing due yet');
  dnsServer.setTxt(name, undefined);
  for (let n = 1; n < UNVERIFY_AFTER_FAILURES; n++) {
    due();
    await recheckVerifiedDomains(ctx);
    t.match(await row(org.id, 'gone.example'), { check_failures: n, verified_at: Date }, `failure ${n}: still verified`);
  }
  due();
  dnsServer.mode = 'servfail';
  const down = await recheckVerifiedDomains(ctx);
  dnsServer.mode = 'answer';
  t.ok(down.unavailable >= 1 && down.unverified === 0, 'DNS down: given back');
  t.match(await row(org.id, 'gone.example'), { check_failures: UNVERIFY_AFTER_FAILURES - 1, verified_at: Date }, 'counted nothing');

  const round = await recheckVerifiedDomains(ctx);
  t.equal(round.unverified, 1, 'still due after the DNS came back: this check unverifies it');
  t.match(await row(org.id, 'gone.example'), { check_failures: UNVERIFY_AFTER_FAILURES, verified_at: null });
  t.equal(await findVerifiedDomain(db, 'gone.example'), undefined);
  t.same(await audits('admin.organization.domain_unverified'), [{ domain: 'gone.example', verified: false }]);
  const hooks = await db.selectFrom('webhook_deliveries').select('payload').where('subscription_id', '=', 'unverified').execute();
  t.same(
    hooks.map((h) => h.payload),
    [{ organization_id: org.id, domain: 'gone.example', failed_checks: UNVERIFY_AFTER_FAILURES }],
  );
  due();
  const asked = dnsServer.queries.filter((q) => q === name).length;
  await recheckVerifiedDomains(ctx);
  t.equal(dnsServer.queries.filter((q) => q === name).length, asked, 'an unverified domain is no longer checked');
});

t.test('two re-check rounds at once (two instances) check each due domain once', async (t) => {
  const { org, name, value } = await claimant('twice.example');
  dnsServer.setTxt(name, [[value]]);
  await verifyOrganizationDomain(ctx, org.slug, 'twice.example');
  advanceHours(RECHECK_INTERVAL_HOURS);
  const asked = dnsServer.queries.filter((q) => q === name).length;
  await Promise.all([recheckVerifiedDomains(ctx), recheckVerifiedDomains(ctx)]);
  t.equal(dnsServer.queries.filter((q) => q === name).length - asked, 1, 'claimed by one round (FOR UPDATE SKIP LOCKED)');
  t.match(await row(org.id, 'twice.example'), { checked_at: new Date(nowMs), check_failures: 0 });
});

t.test('the per-organization counter refuses a flood of checks before any lookup', async (t) => {
  const { org } = await claimant('flood.example');
  const other = await claimant('calm.example');
  const asked = dnsServer.queries.length;
  for (let i = 0; i < VERIFY_CHECKS_PER_MINUTE; i++) await verifyOrganizationDomain(ctx, org.slug, 'flood.example');
  t.equal(dnsServer.queries.length - asked, VERIFY_CHECKS_PER_MINUTE);
  const err = await verifyOrganizationDomain(ctx, org.slug, 'flood.example').catch((e: unknown) => e);
  t.ok(err instanceof TooManyRequests, 'refused with 429');
  t.equal(dnsServer.queries.length - asked, VERIFY_CHECKS_PER_MINUTE, 'no lookup for the refused check');
  t.equal(
    (await verifyOrganizationDomain(ctx, other.org.slug, 'calm.example')).outcome,
    'record_missing',
    'another organization is not held up',
  );
  advanceHours(1 / 30);
  t.equal((await verifyOrganizationDomain(ctx, org.slug, 'flood.example')).outcome, 'record_missing', 'a minute later it may check again');
});
