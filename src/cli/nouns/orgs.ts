// sso-admin orgs: organizations (issue 40). Here only `orgs invitations list|create|resend|revoke ORG ...`, over
// src/domain/organizations/invitations.ts; the rest of the noun (add, list, show, members, roles, domains) joins it.
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

export const orgs: Noun = {
  name: 'orgs',
  summary: 'organizations: their invitations by email',
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
  ],
};
