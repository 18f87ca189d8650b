// After the sign-in of an interaction for an organization (issue 40): only its members pass, or a person the
// organization's `join: domain` policy admits by a verified address at one of its verified domains. A `require`
// client's sign-in that named no organization has the person pick one of theirs (one: chosen for them; none: refused).
import type { MessageKey } from '../../i18n/catalog.js';
import { findUserById } from '../../storage/users.js';
import { findMembership, findVerifiedDomain, insertMembership, listMembershipsOfUser } from '../../storage/organizations.js';
import { completeInteraction, setInteractionOrganization } from '../../storage/interactions.js';
import type { ActiveSession } from '../../storage/sessions.js';
import type { ProviderContext } from '../context.js';
import { MEMBER_ROLE, domainOfEmail, isOrganizationId } from '../organizations/organization-names.js';
import type { Organization } from '../organizations/organization-admin.js';
import { InteractionError, type Interaction } from './authorize.js';

/** One of the person's organizations, as the pick page lists it. */
export interface OrganizationChoice {
  id: string;
  slug: string;
  displayName: string;
}

/**
 * `pass`: go on (the interaction, with its organization when it has one); `pick`: the person chooses among `choices`;
 * `again`: an organization was set whose policy the session does not meet (a second factor): the interaction page
 * starts over; `refused`: the sign-in ends on a page saying `message`, with no response to the client.
 */
export type OrganizationStep =
  { kind: 'pass' } | { kind: 'pick'; choices: OrganizationChoice[] } | { kind: 'again' } | { kind: 'refused'; message: MessageKey };

/** What the signed-in person's organization allows the interaction to do next. */
export async function organizationStep(ctx: ProviderContext, interaction: Interaction, session: ActiveSession): Promise<OrganizationStep> {
  if (interaction.organizationId === null) {
    if (interaction.organizationUsage !== 'require') return { kind: 'pass' };
    const memberships = await listMembershipsOfUser(ctx.db, session.userId);
    if (memberships.length === 0) return refuse(ctx, interaction, 'organization.noMembership', session.userId);
    if (memberships.length > 1) {
      return { kind: 'pick', choices: memberships.map((m) => ({ id: m.organization_id, slug: m.slug, displayName: m.display_name })) };
    }
    return choose(ctx, interaction, session, memberships[0]!.organization_id);
  }
  const organization = interaction.organization;
  if (organization === undefined || organization.problem !== null) {
    // Settings a newer version wrote (or an organization deleted meanwhile): its policies cannot be honoured.
    ctx.log.warn(
      {
        event: 'authorization.organization_unavailable',
        organizationId: interaction.organizationId,
        reason: organization?.problem ?? 'gone',
      },
      'sign-in for an organization whose settings cannot be read',
    );
    return refuse(ctx, interaction, 'organization.unavailable', session.userId);
  }
  if (await isOrJoinsAsMember(ctx, organization, session.userId)) return { kind: 'pass' };
  return refuse(ctx, interaction, 'organization.notMember', session.userId);
}

/**
 * The person picked `organizationId` (the pick page, or their only one): it must be one of theirs. The interaction
 * then carries it; when its policy asks for a second factor this session lacks, the sign-in starts over (`again`).
 */
export async function choose(
  ctx: ProviderContext,
  interaction: Interaction,
  session: ActiveSession,
  organizationId: string,
): Promise<OrganizationStep> {
  if (interaction.organizationId !== null || interaction.organizationUsage === 'none') throw new InteractionError('interaction.completed');
  const membership = isOrganizationId(organizationId)
    ? await findMembership(ctx.db, organizationId.toLowerCase(), session.userId)
    : undefined;
  if (!membership) throw new InteractionError('organization.notMember');
  if (!(await setInteractionOrganization(ctx.db, interaction.id, membership.organization_id)))
    throw new InteractionError('interaction.completed');
  return { kind: 'again' };
}

/** A member, or one the organization's `join: domain` policy admits now (then a member with source 'domain'). */
async function isOrJoinsAsMember(ctx: ProviderContext, organization: Organization, userId: string): Promise<boolean> {
  if (await findMembership(ctx.db, organization.id, userId)) return true;
  if (organization.policies.join !== 'domain') return false;
  const user = await findUserById(ctx.db, userId);
  if (!user || user.email === null || !user.email_verified) return false;
  const domain = domainOfEmail(user.email);
  const verified = domain === undefined ? undefined : await findVerifiedDomain(ctx.db, domain);
  if (verified?.organization_id !== organization.id) return false;
  const row = {
    organization_id: organization.id,
    user_id: userId,
    roles: [MEMBER_ROLE],
    source: 'domain' as const,
    joined_at: ctx.clock(),
  };
  await insertMembership(ctx.db, row);
  ctx.log.info({ event: 'organization.member_joined', organizationId: organization.id, userId, source: 'domain' }, 'joined by domain');
  return true;
}

async function refuse(ctx: ProviderContext, interaction: Interaction, message: MessageKey, userId: string): Promise<OrganizationStep> {
  if (!(await completeInteraction(ctx.db, interaction.id, ctx.clock()))) throw new InteractionError('interaction.completed');
  ctx.log.info(
    {
      event: 'authorization.organization_refused',
      clientId: interaction.request.clientId,
      organizationId: interaction.organizationId,
      userId,
      reason: message,
    },
    'sign-in refused for the organization',
  );
  return { kind: 'refused', message };
}
