// Proving a domain (issue 40): the organization publishes the TXT record its claim names (`_sso-verify.{domain}` =
// `sso-verify={token}`, organization-admin.ts); a check looks it up and records what it found. One organization at a
// time holds a domain verified. A verified domain is checked again every RECHECK_INTERVAL_HOURS
// (src/jobs/organization-domains-job.ts) and loses its verification after UNVERIFY_AFTER_FAILURES checks in a row
// that did not find the record. A DNS that does not answer proves nothing either way: it counts nothing.
import { perMinute } from '../../config/throttles.js';
import type { TxtAnswer, TxtLookup } from '../../outbound/dns-txt.js';
import { isUniqueViolation } from '../../storage/database-errors.js';
import type { Db } from '../../storage/database.js';
import {
  claimDomainsDueForCheck,
  findOrganizationDomain,
  findVerifiedDomain,
  recordDomainCheck,
  releaseDomainCheck,
} from '../../storage/organizations.js';
import type { OrganizationDomainRow } from '../../storage/schema.js';
import { inAdminTransaction, logAdminAction, type AdminContext } from '../admin/admin.js';
import { AdminError } from '../admin-error.js';
import type { ProviderContext } from '../context.js';
import { claimRequestCounters } from '../network-counter.js';
import { emitWebhookEvent } from '../webhooks/emit.js';
import { domainOf, verificationRecordName, verificationRecordValue, type OrganizationDomain } from './organization-admin.js';
import { normalizeDomain } from './organization-names.js';
import { organizationInScope } from './organization-scope.js';

/** How long a verified domain goes between two checks of its record. */
export const RECHECK_INTERVAL_HOURS = 24;
/** Checks in a row that do not find the record before a verified domain is unverified. */
export const UNVERIFY_AFTER_FAILURES = 3;
/** Checks an admin may ask for, per organization, before a minute's wait: each is a DNS query the provider sends. */
export const VERIFY_CHECKS_PER_MINUTE = 10;

/** What a check of the record found. */
export type CheckFinding = 'found' | 'record_missing' | 'value_differs' | 'dns_unavailable';

export type DomainVerification =
  | { outcome: 'verified'; domain: OrganizationDomain }
  | { outcome: 'record_missing' | 'value_differs' | 'dns_unavailable'; domain: OrganizationDomain; detail: string };

/** An admin context that can look up TXT records (the provider context's, or the command line's own). */
export type VerificationContext = AdminContext & { readonly dns: TxtLookup };

/** The claim's record among the TXT records at its name: any one of them holding the value proves the domain. */
export function findingOf(answer: TxtAnswer, expected: string): CheckFinding {
  if (answer.kind === 'unavailable') return 'dns_unavailable';
  if (answer.kind === 'none') return 'record_missing';
  return answer.values.includes(expected) ? 'found' : 'value_differs';
}

function lookUp(dns: TxtLookup, claim: OrganizationDomainRow): Promise<{ finding: CheckFinding; answer: TxtAnswer }> {
  return dns.txt(verificationRecordName(claim.domain)).then((answer) => ({
    answer,
    finding: findingOf(answer, verificationRecordValue(claim.verification_token)),
  }));
}

const heldElsewhere = (domain: string) =>
  new AdminError(`"${domain}" is verified by another organization: it must be removed there first`, 'conflict');

/**
 * Writes a check's result (a DNS answer, found or not) with what it changes: newly verified, or unverified after
 * UNVERIFY_AFTER_FAILURES failures in a row, each with its audit record and webhook event, in one transaction.
 * Undefined when the claim is gone. Throws a unique violation when another organization holds the domain verified.
 */
async function recordCheck(
  ctx: Pick<AdminContext, 'db' | 'clock' | 'log' | 'actor' | 'origin' | 'organizationScope'>,
  claim: OrganizationDomainRow,
  found: boolean,
): Promise<OrganizationDomainRow | undefined> {
  const now = ctx.clock();
  const unverify = !found && claim.verified_at !== null && claim.check_failures + 1 >= UNVERIFY_AFTER_FAILURES;
  return inAdminTransaction(ctx, async (trx: Db) => {
    const row = await recordDomainCheck(trx, claim.organization_id, claim.domain, { found, now, unverify });
    if (!row) return undefined;
    // verified_at keeps an earlier verification (coalesce): it is `now` only for the check that verified it.
    const event =
      found && row.verified_at?.getTime() === now.getTime() ? 'verified' : unverify && row.verified_at === null ? 'unverified' : undefined;
    if (event) {
      const data = { organization_id: row.organization_id, domain: row.domain };
      await emitWebhookEvent(
        ctx,
        trx,
        `organization.domain_${event}`,
        event === 'unverified' ? { ...data, failed_checks: row.check_failures } : data,
      );
      await logAdminAction(ctx, trx, {
        event: `admin.organization.domain_${event}`,
        target: { type: 'organization', id: row.organization_id },
        changes: { domain: row.domain, verified: event === 'verified' },
        log: { organizationId: row.organization_id, domain: row.domain, failedChecks: row.check_failures },
        organizationId: row.organization_id,
      });
    }
    return row;
  });
}

/**
 * Checks the domain's TXT record now and records the result. Verified: the domain is the organization's for
 * home-realm discovery. Not found or another value: the check is recorded, the answer says why. The DNS not
 * answering: nothing is written, try again later. Counted per organization before the lookup (429 when flooded).
 */
export async function verifyOrganizationDomain(ctx: VerificationContext, ref: string, input: string): Promise<DomainVerification> {
  const domain = normalizeDomain(input);
  if (!domain) throw new AdminError(`"${input}" is not a domain name (a host name of two labels or more, no wildcard)`);
  const org = await organizationInScope(ctx, ref);
  const claim = await findOrganizationDomain(ctx.db, org.id, domain);
  if (!claim) throw new AdminError(`the organization does not claim "${domain}" (add it first)`, 'not_found');
  const holder = await findVerifiedDomain(ctx.db, domain);
  if (holder && holder.organization_id !== org.id) throw heldElsewhere(domain);
  await claimRequestCounters(
    ctx,
    [[`domain-verify:${org.id}`, perMinute(VERIFY_CHECKS_PER_MINUTE)]],
    'too many domain checks for this organization, try again in a minute',
  );

  const { finding, answer } = await lookUp(ctx.dns, claim);
  const record = verificationRecordName(domain);
  if (finding === 'dns_unavailable') {
    const reason = answer.kind === 'unavailable' ? answer.reason : 'no answer';
    return { outcome: finding, domain: domainOf(claim), detail: `the DNS did not answer for ${record} (${reason}): try again later` };
  }
  let row: OrganizationDomainRow | undefined;
  try {
    row = await recordCheck(ctx, claim, finding === 'found');
  } catch (err) {
    if (isUniqueViolation(err)) throw heldElsewhere(domain);
    throw err;
  }
  if (!row) throw new AdminError(`the organization does not claim "${domain}" (add it first)`, 'not_found');
  if (finding === 'found') return { outcome: 'verified', domain: domainOf(row) };
  const detail =
    finding === 'record_missing'
      ? `no TXT record at ${record}: publish one with the value the claim names`
      : `the TXT records at ${record} do not hold the value the claim names`;
  return { outcome: finding, domain: domainOf(row), detail };
}

/** What one round of re-checks did. */
export interface RecheckRound {
  checked: number;
  unverified: number;
  /** Checks the DNS did not answer: given back, due again at the next round. */
  unavailable: number;
}

/** Domains claimed per statement, and looked up at once. */
const BATCH = 20;

/**
 * Checks again every verified domain last checked RECHECK_INTERVAL_HOURS ago or more, a batch at a time, until none
 * is due (or `keepGoing` says stop). A domain not found UNVERIFY_AFTER_FAILURES times in a row is unverified.
 */
export async function recheckVerifiedDomains(
  ctx: Pick<ProviderContext, 'db' | 'clock' | 'log' | 'dns'>,
  keepGoing: () => boolean = () => true,
): Promise<RecheckRound> {
  const round: RecheckRound = { checked: 0, unverified: 0, unavailable: 0 };
  while (keepGoing()) {
    const now = ctx.clock();
    const due = await claimDomainsDueForCheck(ctx.db, new Date(now.getTime() - RECHECK_INTERVAL_HOURS * 3_600_000), now, BATCH);
    const results = await Promise.all(
      due.map(async (claimed) => {
        const { finding } = await lookUp(ctx.dns, claimed);
        if (finding === 'dns_unavailable') {
          await releaseDomainCheck(ctx.db, claimed);
          return 'unavailable' as const;
        }
        const row = await recordCheck(ctx, claimed, finding === 'found');
        return row && claimed.verified_at !== null && row.verified_at === null ? ('unverified' as const) : ('checked' as const);
      }),
    );
    for (const r of results) {
      round.checked += r === 'unavailable' ? 0 : 1;
      if (r === 'unverified') round.unverified += 1;
      if (r === 'unavailable') round.unavailable += 1;
    }
    // Checks the DNS did not answer stay due: the next round, not this one, asks again.
    if (due.length < BATCH || results.includes('unavailable')) break;
  }
  return round;
}
