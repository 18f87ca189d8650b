// sso-admin orgs: organizations (issue 40): their invitations (src/domain/organizations/invitations.ts) and the
// verification of their domains (domain-verification.ts); the rest of the noun (add, list, show, members, roles, the
// other domain actions) joins it.
import { AdminError } from '../../domain/admin-error.js';
import {
  createInvitation,
  invitationJson,
  listInvitations,
  MAX_INVITATION_DAYS,
  resendInvitation,
  revokeInvitation,
  type Invitation,
} from '../../domain/organizations/invitations.js';
import { iso } from '../output.js';
import { UsageError, verb, type Noun, type Session, type Invocation } from '../command.js';
import { verifyOrganizationDomain } from '../../domain/organizations/domain-verification.js';
import { OAuthError } from '../../errors/oauth-error.js';
import { dnsTxtLookup } from '../../outbound/dns-txt.js';

const ACTIONS = ['list', 'create', 'resend', 'revoke'] as const;
type Action = (typeof ACTIONS)[number];

function days(value: string | string[] | boolean | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n)) throw new AdminError(`--expires-in takes whole days (1 to ${MAX_INVITATION_DAYS})`);
  return n;
}

function needed(input: Invocation, name: 'email' | 'id', action: Action): string {
  const value = input.options[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`orgs invitations ${action} needs --${name}`);
  return value;
}

const describe = (i: Invitation) => `invitation ${i.id} for ${i.email} (${i.state}, expires ${iso(i.expiresAt)})`;

async function run(session: Session, input: Invocation, action: Action): Promise<void> {
  const org = input.args.org!;
  const { ctx, out } = session;
  switch (action) {
    case 'list': {
      const all = await listInvitations(ctx, org);
      if (input.json) return out.json(all.map(invitationJson));
      return out.table(
        ['id', 'email', 'roles', 'state', 'expires', 'invited by'],
        all.map((i) => [i.id, i.email, i.roles.join(','), i.state, iso(i.expiresAt), i.invitedBy]),
        'no invitations',
      );
    }
    case 'create': {
      const roles = input.options.role;
      const i = await createInvitation(ctx, org, {
        email: needed(input, 'email', action),
        roles: Array.isArray(roles) ? roles : typeof roles === 'string' ? [roles] : [],
        ...(days(input.options['expires-in']) === undefined ? {} : { expiresInDays: days(input.options['expires-in'])! }),
      });
      if (input.json) return out.json(invitationJson(i));
      return out.line(`${describe(i)} created; the link is mailed to the address`);
    }
    case 'resend': {
      const i = await resendInvitation(ctx, org, needed(input, 'id', action), days(input.options['expires-in']));
      if (input.json) return out.json(invitationJson(i));
      return out.line(`${describe(i)}: a new link is mailed; the old one no longer works`);
    }
    case 'revoke': {
      const id = needed(input, 'id', action);
      // Not asked first: an invitation revoked by mistake is made again in one command.
      const i = await revokeInvitation(ctx, org, id);
      if (input.json) return out.json(invitationJson(i));
      return out.line(`${describe(i)}`);
    }
  }
}

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
  summary: 'organizations: their invitations by email and the verification of their domains',
  verbs: [
    verb({
      name: 'invitations',
      summary: "An organization's invitations: list, create (the link is mailed), resend (a new link), revoke.",
      args: [
        { name: 'action', description: ACTIONS.join(' | ') },
        { name: 'org', description: "the organization's id or slug" },
      ],
      options: {
        email: { type: 'string', value: 'ADDRESS', description: 'create: the address to invite' },
        role: { type: 'string', value: 'ROLE', multiple: true, description: 'create: a role the invitation gives (member always)' },
        'expires-in': {
          type: 'string',
          value: 'DAYS',
          description: `create, resend: days the link works (1 to ${MAX_INVITATION_DAYS}; 7 unless given)`,
        },
        id: { type: 'string', value: 'ID', description: "resend, revoke: the invitation's id (from list)" },
      },
      notes: `The link is mailed to the address through the outbox (NOTIFIER); it is never printed. It works once,
for a person signed in with that address (verified), until it expires.`,
      prepare(input) {
        const action = input.args.action as Action;
        if (!(ACTIONS as readonly string[]).includes(action)) throw new UsageError(`unknown action "${action}" (${ACTIONS.join(', ')})`);
        return action;
      },
      async run(session, input, action: Action) {
        await run(session, input, action);
      },
    }),
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
