// POST /organizations/{org}/domains/{domain}/verify: checks the claim's TXT record now
// (src/domain/organizations/domain-verification.ts, as `sso-admin orgs domains verify`). A check that ran answers
// 200 with `verified` and, when not, why; another organization holding the domain is 409, a flood 429, and a DNS
// that did not answer 503 with Retry-After (nothing recorded).
import { verifyOrganizationDomain, type DomainVerification } from '../../domain/organizations/domain-verification.js';
import { ApiProblem } from './problem.js';
import type { AdminApi, JsonSchema } from './route.js';
import { NULLABLE_DATE_TIME } from './schemas.js';

const PARAMS = {
  type: 'object',
  required: ['org', 'domain'],
  properties: {
    org: { type: 'string', minLength: 1, maxLength: 255, description: "the organization's id or slug" },
    domain: { type: 'string', minLength: 1, maxLength: 253, description: 'a domain the organization claims' },
  },
} as const;
type Params = { org: string; domain: string };

const RESULT_PROPERTIES = {
  domain: { type: 'string' },
  verified: { type: 'boolean' },
  reason: {
    type: ['string', 'null'],
    enum: ['record_missing', 'value_differs', null],
    description: 'why the check did not verify the domain; null when verified',
  },
  detail: { type: ['string', 'null'] },
  record: {
    type: 'object',
    required: ['name', 'value'],
    properties: { name: { type: 'string' }, value: { type: 'string' } },
    description: 'the TXT record to publish',
  },
  verified_at: NULLABLE_DATE_TIME,
  checked_at: NULLABLE_DATE_TIME,
} as const;
const RESULT: JsonSchema = { type: 'object', required: Object.keys(RESULT_PROPERTIES), properties: RESULT_PROPERTIES };

/** How long a caller should wait before asking again after the DNS did not answer. */
const RETRY_AFTER_SECONDS = 60;

function resultJson(v: Exclude<DomainVerification, { outcome: 'dns_unavailable' }>) {
  return {
    domain: v.domain.domain,
    verified: v.outcome === 'verified',
    reason: v.outcome === 'verified' ? null : v.outcome,
    detail: v.outcome === 'verified' ? null : v.detail,
    record: v.domain.record,
    verified_at: v.domain.verifiedAt?.toISOString() ?? null,
    checked_at: v.domain.checkedAt?.toISOString() ?? null,
  };
}

export function organizationDomainVerifyRoutes(api: AdminApi): void {
  api.route({
    method: 'POST',
    url: '/organizations/:org/domains/:domain/verify',
    access: 'write',
    // An organization's own admin client may call it for its organization (organizationInScope refuses others).
    organizationScoped: true,
    operationId: 'verifyOrganizationDomain',
    summary: "Look up the domain's TXT record (_sso-verify.{domain}) now and record the check; verified when it holds the claim's value.",
    tag: 'organizations',
    params: PARAMS,
    response: { 200: RESULT },
    async handler(request, _reply, { ctx }) {
      const { org, domain } = request.params as Params;
      const result = await verifyOrganizationDomain({ ...ctx, dns: api.ctx.dns }, org, domain);
      if (result.outcome === 'dns_unavailable')
        throw new ApiProblem(503, 'dns_unavailable', result.detail, { 'retry-after': String(RETRY_AFTER_SECONDS) });
      return resultJson(result);
    },
  });
}
