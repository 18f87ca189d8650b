// /organizations/{org}/invitations: an organization's invitations by email (src/domain/organizations/invitations.ts,
// as `sso-admin orgs invitations`): list, create (the link is mailed, never shown), revoke, and resend (a new link;
// the old one is dead). An organization-scoped caller reaches its own organization only (organization-scope.ts).
import {
  createInvitation,
  invitationJson,
  listInvitations,
  MAX_INVITATION_DAYS,
  resendInvitation,
  revokeInvitation,
} from '../../domain/organizations/invitations.js';
import { IDEMPOTENCY_HEADERS, idempotentCreate } from './idempotency.js';
import type { AdminApi, JsonSchema } from './route.js';
import { DATE_TIME, NULLABLE_DATE_TIME } from './schemas.js';

const ORG_REF = { type: 'string', minLength: 1, maxLength: 255, description: "the organization's id or slug" } as const;
const ID = { type: 'string', minLength: 1, maxLength: 64, description: "the invitation's id" } as const;
const ORG_PARAMS = { type: 'object', required: ['org'], properties: { org: ORG_REF } } as const;
const PARAMS = { type: 'object', required: ['org', 'id'], properties: { org: ORG_REF, id: ID } } as const;
type OrgParams = { org: string };
type InvitationParams = { org: string; id: string };

const EXPIRES_IN_DAYS = {
  type: 'integer',
  minimum: 1,
  maximum: MAX_INVITATION_DAYS,
  description: 'whole days the link works; 7 when absent',
} as const;

const INVITATION_PROPERTIES = {
  id: { type: 'string' },
  organization_id: { type: 'string' },
  email: { type: 'string' },
  roles: { type: 'array', items: { type: 'string' } },
  invited_by: { type: 'string', description: 'person:{user id}, client:{client id}, cli:{OS user} or system' },
  state: { type: 'string', enum: ['pending', 'accepted', 'revoked', 'expired'] },
  created_at: DATE_TIME,
  expires_at: DATE_TIME,
  accepted_at: NULLABLE_DATE_TIME,
  accepted_by: { type: ['string', 'null'] },
  revoked_at: NULLABLE_DATE_TIME,
} as const;
const INVITATION: JsonSchema = { type: 'object', required: Object.keys(INVITATION_PROPERTIES), properties: INVITATION_PROPERTIES };

export function organizationInvitationRoutes(api: AdminApi): void {
  api.route({
    method: 'GET',
    url: '/organizations/:org/invitations',
    access: 'read',
    // An organization's own admin client may call it for its organization (organizationInScope refuses others).
    organizationScoped: true,
    operationId: 'listOrganizationInvitations',
    summary: "An organization's invitations, newest first, in every state; never a link.",
    tag: 'organizations',
    params: ORG_PARAMS,
    response: { 200: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: INVITATION } } } },
    async handler(request, _reply, { ctx }) {
      const items = await listInvitations(ctx, (request.params as OrgParams).org);
      return { items: items.map(invitationJson) };
    },
  });

  api.route({
    method: 'POST',
    url: '/organizations/:org/invitations',
    access: 'write',
    // An organization's own admin client may call it for its organization (organizationInScope refuses others).
    organizationScoped: true,
    operationId: 'createOrganizationInvitation',
    summary: 'Invite an email address with roles; the link is mailed to it (single use, to that address only), never returned.',
    tag: 'organizations',
    params: ORG_PARAMS,
    headers: IDEMPOTENCY_HEADERS,
    body: {
      type: 'object',
      required: ['email'],
      additionalProperties: false,
      properties: {
        email: { type: 'string', minLength: 3, maxLength: 254 },
        roles: {
          type: 'array',
          maxItems: 50,
          items: { type: 'string', minLength: 1, maxLength: 64 },
          description: '`member` is always added',
        },
        expires_in_days: EXPIRES_IN_DAYS,
      },
    },
    response: { 201: INVITATION },
    async handler(request, reply, { ctx, principal }) {
      return idempotentCreate(ctx, principal, request, reply, async () => {
        const body = request.body as { email: string; roles?: string[]; expires_in_days?: number };
        const { org } = request.params as OrgParams;
        const invitation = await createInvitation(ctx, org, {
          email: body.email,
          ...(body.roles ? { roles: body.roles } : {}),
          ...(body.expires_in_days === undefined ? {} : { expiresInDays: body.expires_in_days }),
        });
        reply.header('location', `${api.prefix}/organizations/${encodeURIComponent(org)}/invitations/${invitation.id}`);
        return { status: 201, body: invitationJson(invitation) };
      });
    },
  });

  api.route({
    method: 'DELETE',
    url: '/organizations/:org/invitations/:id',
    access: 'write',
    // An organization's own admin client may call it for its organization (organizationInScope refuses others).
    organizationScoped: true,
    operationId: 'revokeOrganizationInvitation',
    summary: 'Revoke a pending invitation: its link stops working at once.',
    tag: 'organizations',
    params: PARAMS,
    response: { 200: INVITATION },
    async handler(request, _reply, { ctx }) {
      const { org, id } = request.params as InvitationParams;
      return invitationJson(await revokeInvitation(ctx, org, id));
    },
  });

  api.route({
    method: 'POST',
    url: '/organizations/:org/invitations/:id/resend',
    access: 'write',
    // An organization's own admin client may call it for its organization (organizationInScope refuses others).
    organizationScoped: true,
    operationId: 'resendOrganizationInvitation',
    summary: 'Mail a new link for a pending or expired invitation, with a new expiry; the old link stops working.',
    tag: 'organizations',
    params: PARAMS,
    body: { type: 'object', additionalProperties: false, properties: { expires_in_days: EXPIRES_IN_DAYS } },
    response: { 200: INVITATION },
    async handler(request, _reply, { ctx }) {
      const { org, id } = request.params as InvitationParams;
      const body = (request.body ?? {}) as { expires_in_days?: number };
      return invitationJson(await resendInvitation(ctx, org, id, body.expires_in_days));
    },
  });
}
