// sso-admin orgs: organizations (issue 40). Here only `orgs domains verify ORG DOMAIN`, over
// src/domain/organizations/domain-verification.ts; the rest of the noun (add, list, show, members, roles, the other
// domain actions, invitations) joins it, and its `domains` verb calls verifyDomainCommand for `verify`.
import { AdminError } from '../../domain/admin-error.js';
import { verifyOrganizationDomain } from '../../domain/organizations/domain-verification.js';
import { OAuthError } from '../../errors/oauth-error.js';
import { dnsTxtLookup } from '../../outbound/dns-txt.js';
import { UsageError, verb, type Noun, type Session } from '../command.js';
import { iso } from '../output.js';

/**
 * `orgs domains verify ORG DOMAIN`: looks the claim's TXT record up now (DNS_RESOLVERS) and records the check. Exit 1
 * when the domain is not verified (the record missing or different, the DNS not answering), saying why.
 */
export async function verifyDomainCommand(session: Session, org: string, domain: string, json: boolean): Promise<void> {
  const { ctx, config, out } = session;
  const result = await verifyOrganizationDomain({ ...ctx, dns: dnsTxtLookup(config.dnsResolvers) }, org, domain).catch((err: unknown) => {
    // The per-organization counter's refusal (a 429 on the API) is a refusal here like any other.
    if (err instanceof OAuthError && err.status === 429) throw new AdminError(err.description);
    throw err;
  });
  const d = result.domain;
  if (result.outcome !== 'verified') {
    throw new AdminError(`"${d.domain}" is not verified: ${result.detail} (TXT ${d.record.name} "${d.record.value}")`);
  }
  if (json) return out.json({ domain: d.domain, verified: true, record: d.record, verified_at: d.verifiedAt, checked_at: d.checkedAt });
  out.line(`"${d.domain}" is verified (since ${iso(d.verifiedAt)}; TXT ${d.record.name} "${d.record.value}")`);
}

export const orgs: Noun = {
  name: 'orgs',
  summary: "organizations: their domains' verification",
  verbs: [
    verb({
      name: 'domains',
      summary: "An organization's domains: verify (look up the claim's TXT record now).",
      args: [
        { name: 'action', description: 'verify' },
        { name: 'org', description: "the organization's id or slug" },
        { name: 'domain', description: 'a domain the organization claims' },
      ],
      notes: `verify looks up TXT _sso-verify.DOMAIN on the DNS servers of DNS_RESOLVERS (the system's when empty) and
verifies the domain when a record there holds the claim's value (sso-verify=...). A domain another organization
holds verified is refused. Exit 1 when the domain is not verified, with the reason.`,
      prepare(input) {
        if (input.args.action !== 'verify') throw new UsageError(`unknown action "${input.args.action}" (verify)`);
      },
      async run(session, input) {
        await verifyDomainCommand(session, input.args.org!, input.args.domain!, input.json);
      },
    }),
  ],
};
