// sso-admin orgs: organizations (issue 40): add, list, show, update, remove; members, roles, domains and invitations
// of one, each over src/domain/organizations/organization-admin.ts (invitations over invitations.ts). ORG is the
// organization's id or slug; the domain layer checks everything, and answers "no organization" outside an
// organization-scoped actor's own.
import { AdminError } from '../../domain/admin-error.js';
import {
  addOrganizationDomain,
  addOrganizationMember,
  checkOrganizationInput,
  createOrganization,
  createOrganizationRole,
  deleteOrganization,
  deleteOrganizationRoleByName,
  listOrganizationDomains,
  listOrganizationMembers,
  listOrganizationRoles,
  listOrganizations,
  removeOrganizationDomain,
  removeOrganizationMember,
  setOrganizationMemberRoles,
  showOrganization,
  updateOrganization,
  type Organization,
  type OrganizationDomain,
  type OrganizationInput,
  type OrganizationMember,
} from '../../domain/organizations/organization-admin.js';
import { brandingView, policiesView } from '../../domain/organizations/organization-settings.js';
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

const ORG = { name: 'org', description: "the organization's id or slug" } as const;
/** A page large enough for any organization an operator lists on a terminal; the API pages. */
const ALL = 10_000;

/** The organization as the management API shows it (snake_case, organization-settings.ts's views). */
export const organizationJson = (o: Organization & { members?: number }) => ({
  id: o.id,
  slug: o.slug,
  display_name: o.displayName,
  branding: brandingView(o.branding),
  policies: policiesView(o.policies),
  ...(o.members === undefined ? {} : { members: o.members }),
  ...(o.problem === null ? {} : { problem: o.problem }),
  created_at: o.createdAt.toISOString(),
  updated_at: o.updatedAt.toISOString(),
});

const memberJson = (m: OrganizationMember) => ({
  user_id: m.userId,
  username: m.username,
  email: m.email,
  roles: m.roles,
  source: m.source,
  joined_at: m.joinedAt.toISOString(),
});

const domainJson = (d: OrganizationDomain) => ({
  domain: d.domain,
  txt_record: d.record,
  verified_at: d.verifiedAt?.toISOString() ?? null,
  checked_at: d.checkedAt?.toISOString() ?? null,
});

/**
 * `--policy key=value` and `--branding key=value` as the object the seed file would give: `true`/`false` are
 * booleans, whole numbers are numbers, `null` (or nothing after `=`) is null, `sign_in_methods` takes a comma list.
 */
export function settingPairs(option: string, value: string | string[] | boolean | undefined): Record<string, unknown> | undefined {
  if (value === undefined || typeof value === 'boolean') return undefined;
  const out: Record<string, unknown> = {};
  for (const pair of Array.isArray(value) ? value : [value]) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--${option} takes key=value, not "${pair}"`);
    const key = pair.slice(0, eq);
    const raw = pair.slice(eq + 1);
    out[key] =
      key === 'sign_in_methods'
        ? raw.split(',').filter((m) => m !== '')
        : raw === 'true' || raw === 'false'
          ? raw === 'true'
          : raw === '' || raw === 'null'
            ? null
            : /^\d{1,9}$/.test(raw)
              ? Number(raw)
              : raw;
  }
  return out;
}

function organizationInput(input: Invocation, slug?: string): OrganizationInput {
  const o = input.options;
  const entry: OrganizationInput = {};
  if (slug !== undefined) entry.slug = slug;
  if (typeof o.slug === 'string') entry.slug = o.slug;
  if (typeof o['display-name'] === 'string') entry.display_name = o['display-name'];
  const branding = settingPairs('branding', o.branding);
  if (branding) entry.branding = branding;
  const policies = settingPairs('policy', o.policy);
  if (policies) entry.policies = policies;
  return entry;
}

const rolesOf = (value: string | string[] | boolean | undefined): string[] =>
  Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];

function showFields(o: Organization & { members?: number }): Array<[string, unknown]> {
  const b = brandingView(o.branding);
  const p = policiesView(o.policies);
  return [
    ['id', o.id],
    ['slug', o.slug],
    ['display name', o.displayName],
    ...(o.members === undefined ? [] : ([['members', o.members]] as Array<[string, unknown]>)),
    ...Object.entries(b).map(([k, v]): [string, unknown] => [`branding ${k}`, v ?? '-']),
    ...Object.entries(p).map(([k, v]): [string, unknown] => [`policy ${k}`, Array.isArray(v) ? v.join(',') : (v ?? '-')]),
    ...(o.problem === null ? [] : ([['problem', o.problem]] as Array<[string, unknown]>)),
    ['created', o.createdAt],
    ['updated', o.updatedAt],
  ];
}

const SETTINGS_OPTIONS = {
  'display-name': { type: 'string', value: 'TEXT', description: 'the name people read (at most 200 characters)' },
  policy: {
    type: 'string',
    value: 'KEY=VALUE',
    multiple: true,
    description: 'a policy: require_second_factor, sign_in_methods (comma list), enforce_connection, session_lifetime_seconds, join',
  },
  branding: { type: 'string', value: 'KEY=VALUE', multiple: true, description: 'branding: logo_url, primary_color, background_color' },
} as const;

const MEMBER_ACTIONS = ['list', 'add', 'set-roles', 'remove'] as const;
const ROLE_ACTIONS = ['list', 'add', 'remove'] as const;
const DOMAIN_ACTIONS = ['list', 'add', 'remove', 'verify'] as const;

function action<T extends string>(what: string, all: readonly T[], input: Invocation): T {
  const a = input.args.action as T;
  if (!all.includes(a)) throw new UsageError(`unknown action "${a}" for orgs ${what} (${all.join(', ')})`);
  return a;
}

function second(input: Invocation, what: string, a: string, name: 'user' | 'role' | 'domain'): string {
  const value = input.args[name];
  if (value === undefined || value === '') throw new UsageError(`orgs ${what} ${a} needs <${name}>`);
  return value;
}

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
  summary: 'organizations: their members and roles, domains, invitations by email',
  verbs: [
    verb({
      name: 'add',
      summary: 'Create an organization.',
      args: [{ name: 'slug', description: 'its slug: lowercase letters, digits and hyphens, unique' }],
      options: SETTINGS_OPTIONS,
      notes: 'Only a provider-wide operator creates organizations. The slug is what tokens carry as org_name.',
      prepare(input) {
        const entry = organizationInput(input, input.args.slug!);
        checkOrganizationInput(entry, true);
        return entry;
      },
      async run(session, input, entry: OrganizationInput) {
        const o = await createOrganization(session.ctx, entry);
        if (input.json) return session.out.json(organizationJson(o));
        session.out.line(`organization "${o.slug}" created: id ${o.id}`);
      },
    }),
    verb({
      name: 'list',
      summary: 'List the organizations, with their number of members.',
      async run(session, input) {
        const all = await listOrganizations(session.ctx, { limit: ALL });
        if (input.json) return session.out.json(all.map(organizationJson));
        session.out.table(
          ['id', 'slug', 'display name', 'members'],
          all.map((o) => [o.id, o.slug, o.displayName, String(o.members)]),
          'no organizations',
        );
      },
    }),
    verb({
      name: 'show',
      summary: 'Show one organization: its branding and policies.',
      args: [ORG],
      async run(session, input) {
        const o = await showOrganization(session.ctx, input.args.org!);
        if (input.json) return session.out.json(organizationJson(o));
        session.out.fields(showFields(o));
      },
    }),
    verb({
      name: 'update',
      summary: "Change an organization's slug, display name, branding or policies.",
      args: [ORG],
      options: { slug: { type: 'string', value: 'SLUG', description: 'its new slug' }, ...SETTINGS_OPTIONS },
      notes: 'Each --policy and --branding changes that one key; the others keep their values.',
      prepare(input) {
        const entry = organizationInput(input);
        if (Object.keys(entry).length === 0) throw new UsageError('nothing to change: give --slug, --display-name, --policy or --branding');
        checkOrganizationInput(entry, false);
        return entry;
      },
      async run(session, input, entry: OrganizationInput) {
        const { organization: o, changed } = await updateOrganization(session.ctx, input.args.org!, entry);
        if (input.json) return session.out.json({ ...organizationJson(o), changed });
        session.out.line(
          changed.length === 0 ? `organization "${o.slug}" unchanged` : `organization "${o.slug}" updated: ${changed.join(', ')}`,
        );
      },
    }),
    verb({
      name: 'remove',
      summary: 'Delete an organization with its memberships, roles, domains, invitations and connections.',
      args: [ORG],
      destructive: true,
      notes: `The users stay. Codes and tokens issued for the organization end with it; sign-ins for it are refused.`,
      async run(session, input) {
        const target = await showOrganization(session.ctx, input.args.org!);
        await session.confirm(`Delete organization "${target.slug}" and its ${target.members} memberships?`);
        const o = await deleteOrganization(session.ctx, target.id);
        if (input.json) return session.out.json({ ...organizationJson(o), deleted: true });
        session.out.line(`organization "${o.slug}" deleted (${target.members} members)`);
      },
    }),
    verb({
      name: 'members',
      summary: "An organization's members: list, add (--role ...), set-roles (--role ...), remove.",
      args: [
        { name: 'action', description: MEMBER_ACTIONS.join(' | ') },
        ORG,
        { name: 'user', description: "add, set-roles, remove: the user's id or username", optional: true },
      ],
      options: { role: { type: 'string', value: 'ROLE', multiple: true, description: 'add, set-roles: a role (member always)' } },
      notes: 'set-roles replaces the roles with those given; member is always kept.',
      prepare: (input) => action('members', MEMBER_ACTIONS, input),
      async run(session, input, a: (typeof MEMBER_ACTIONS)[number]) {
        const { ctx, out } = session;
        const org = input.args.org!;
        if (a === 'list') {
          const all = await listOrganizationMembers(ctx, org, { limit: ALL });
          if (input.json) return out.json(all.map(memberJson));
          return out.table(
            ['user id', 'username', 'email', 'roles', 'source', 'joined'],
            all.map((m) => [m.userId, m.username, m.email ?? '-', m.roles.join(','), m.source, iso(m.joinedAt)]),
            'no members',
          );
        }
        const user = second(input, 'members', a, 'user');
        if (a === 'add') {
          const done = await addOrganizationMember(ctx, org, user, { roles: rolesOf(input.options.role) });
          if (input.json) return out.json({ organization: done.organization, user_id: done.userId, added: done.added });
          return out.line(
            done.added ? `"${user}" added to "${done.organization}"` : `"${user}" was a member of "${done.organization}" already`,
          );
        }
        if (a === 'set-roles') {
          const roles = await setOrganizationMemberRoles(ctx, org, user, rolesOf(input.options.role));
          if (input.json) return out.json({ user, roles });
          return out.line(`"${user}" holds ${roles.join(', ')}`);
        }
        const done = await removeOrganizationMember(ctx, org, user);
        if (input.json) return out.json({ organization: done.organization, user_id: done.userId, removed: done.removed });
        return out.line(
          done.removed ? `"${user}" removed from "${done.organization}"` : `"${user}" was not a member of "${done.organization}"`,
        );
      },
    }),
    verb({
      name: 'roles',
      summary: "An organization's roles: list, add (--description), remove (taken from every member).",
      args: [
        { name: 'action', description: ROLE_ACTIONS.join(' | ') },
        ORG,
        { name: 'role', description: "add, remove: the role's name", optional: true },
      ],
      options: { description: { type: 'string', value: 'TEXT', description: 'add: what the role is for' } },
      notes: 'admin and member are the roles every organization has; they cannot be added or removed.',
      prepare: (input) => action('roles', ROLE_ACTIONS, input),
      async run(session, input, a: (typeof ROLE_ACTIONS)[number]) {
        const { ctx, out } = session;
        const org = input.args.org!;
        if (a === 'list') {
          const all = await listOrganizationRoles(ctx, org);
          if (input.json) return out.json(all.map((r) => ({ name: r.name, description: r.description, built_in: r.builtIn })));
          return out.table(
            ['name', 'built in', 'description'],
            all.map((r) => [r.name, r.builtIn ? 'yes' : 'no', r.description ?? '-']),
            'no roles',
          );
        }
        const role = second(input, 'roles', a, 'role');
        if (a === 'add') {
          const description = typeof input.options.description === 'string' ? input.options.description : null;
          await createOrganizationRole(ctx, org, role, description);
          if (input.json) return out.json({ name: role, description, built_in: false });
          return out.line(`role "${role}" added`);
        }
        await deleteOrganizationRoleByName(ctx, org, role);
        if (input.json) return out.json({ name: role, deleted: true });
        return out.line(`role "${role}" removed`);
      },
    }),
    verb({
      name: 'domains',
      summary: "An organization's domains: list, add (prints the TXT record to publish), verify (looks it up now), remove.",
      args: [
        { name: 'action', description: DOMAIN_ACTIONS.join(' | ') },
        ORG,
        { name: 'domain', description: 'add, verify, remove: the domain name', optional: true },
      ],
      notes: `A domain is claimed unverified; publish the TXT record add prints, in the domain's DNS. verify looks up
TXT _sso-verify.DOMAIN on the DNS servers of DNS_RESOLVERS (the system's when empty) and verifies the domain when a
record there holds the claim's value; a domain another organization holds verified is refused; exit 1 when it is not
verified, with the reason. Only a verified domain lets its people join (policy join=domain).`,
      prepare: (input) => action('domains', DOMAIN_ACTIONS, input),
      async run(session, input, a: (typeof DOMAIN_ACTIONS)[number]) {
        const { ctx, out } = session;
        const org = input.args.org!;
        if (a === 'list') {
          const all = await listOrganizationDomains(ctx, org);
          if (input.json) return out.json(all.map(domainJson));
          return out.table(
            ['domain', 'verified', 'txt record', 'value'],
            all.map((d) => [d.domain, d.verifiedAt ? iso(d.verifiedAt) : 'no', d.record.name, d.record.value]),
            'no domains',
          );
        }
        const domain = second(input, 'domains', a, 'domain');
        if (a === 'verify') return verifyDomainCommand(session, org, domain, input.json);
        if (a === 'add') {
          const d = await addOrganizationDomain(ctx, org, domain);
          if (input.json) return out.json(domainJson(d));
          out.line(`domain "${d.domain}" claimed, not verified yet. Publish this TXT record:`);
          return out.line(`  ${d.record.name}  TXT  "${d.record.value}"`);
        }
        await removeOrganizationDomain(ctx, org, domain);
        if (input.json) return out.json({ domain, deleted: true });
        return out.line(`domain "${domain}" removed`);
      },
    }),
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
  ],
};
