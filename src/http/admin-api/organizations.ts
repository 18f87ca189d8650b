// /organizations (issue 40): organizations, their roles, members and domains (src/domain/organizations/
// organization-admin.ts, as `sso-admin orgs`). An organization is named in the path by its id or slug. Every route
// here may be called by an organization-scoped API client: the domain keeps it to its own organization (outside it,
// nothing exists: 404), and refuses it the creation and deletion of organizations (403).
import { AdminError } from '../../domain/admin-error.js';
import type { FastifyRequest } from 'fastify';
import { isoTime } from '../../domain/admin/representations.js';
import {
  addOrganizationDomain,
  addOrganizationMember,
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
  showOrganizationMember,
  updateOrganization,
  type Organization,
  type OrganizationDomain,
  type OrganizationInput,
  type OrganizationMember,
  type OrganizationSummary,
} from '../../domain/organizations/organization-admin.js';
import { brandingView, policiesView } from '../../domain/organizations/organization-settings.js';
import { asOneChange } from '../../domain/admin/admin.js';
import { changeIfMatch, etagOf, IF_MATCH_HEADERS, type IfMatchGuard } from './etag.js';
import { IDEMPOTENCY_HEADERS, idempotentCreate } from './idempotency.js';
import { PAGE_QUERY_PROPERTIES, pageSchema, readPage, type PageQuery } from './pagination.js';
import type { AdminApi, AdminRoute, JsonSchema } from './route.js';
import { DATE_TIME, NULLABLE_DATE_TIME } from './schemas.js';

const STRING = { type: 'string' } as const;
const ORG_REF = { type: 'string', minLength: 1, maxLength: 255, description: "the organization's id or slug" } as const;
const USER_REF = { type: 'string', minLength: 1, maxLength: 255, description: "the user's id (or username)" } as const;
const ROLE = { type: 'string', minLength: 1, maxLength: 63 } as const;
const DOMAIN = { type: 'string', minLength: 1, maxLength: 253 } as const;
const PARAMS = { type: 'object', required: ['org'], properties: { org: ORG_REF } } as const;
const MEMBER_PARAMS = { type: 'object', required: ['org', 'user_id'], properties: { org: ORG_REF, user_id: USER_REF } } as const;
const ROLE_PARAMS = { type: 'object', required: ['org', 'role'], properties: { org: ORG_REF, role: ROLE } } as const;
const DOMAIN_PARAMS = { type: 'object', required: ['org', 'domain'], properties: { org: ORG_REF, domain: DOMAIN } } as const;
type OrgParams = { org: string };

const BRANDING: JsonSchema = {
  type: 'object',
  properties: {
    logo_url: { type: ['string', 'null'] },
    primary_color: { type: ['string', 'null'] },
    background_color: { type: ['string', 'null'] },
  },
};
const POLICIES: JsonSchema = {
  type: 'object',
  properties: {
    require_second_factor: { type: 'boolean' },
    sign_in_methods: { type: 'array', items: STRING },
    enforce_connection: { type: 'boolean' },
    session_lifetime_seconds: { type: ['integer', 'null'] },
    join: { type: 'string', enum: ['invitation', 'domain'] },
  },
};
const ORG_PROPERTIES = {
  id: STRING,
  slug: STRING,
  display_name: STRING,
  branding: BRANDING,
  policies: POLICIES,
  problem: {
    type: ['string', 'null'],
    description: 'why its settings cannot be read (a newer version wrote them): its sign-ins are refused',
  },
  members: { type: 'integer', description: 'how many users are members' },
  created_at: DATE_TIME,
  updated_at: DATE_TIME,
} as const;
const ORGANIZATION: JsonSchema = { type: 'object', required: Object.keys(ORG_PROPERTIES), properties: ORG_PROPERTIES };
const MEMBER: JsonSchema = {
  type: 'object',
  required: ['user_id', 'username', 'email', 'roles', 'source', 'joined_at'],
  properties: {
    user_id: STRING,
    username: STRING,
    email: { type: ['string', 'null'] },
    roles: { type: 'array', items: STRING },
    source: { type: 'string', enum: ['admin', 'invitation', 'domain', 'scim', 'connection'] },
    joined_at: DATE_TIME,
  },
};
const ROLE_VIEW: JsonSchema = {
  type: 'object',
  required: ['name', 'description', 'built_in'],
  properties: { name: STRING, description: { type: ['string', 'null'] }, built_in: { type: 'boolean' } },
};
const DOMAIN_VIEW: JsonSchema = {
  type: 'object',
  required: ['domain', 'record', 'verified_at', 'checked_at'],
  properties: {
    domain: STRING,
    record: {
      type: 'object',
      required: ['name', 'value'],
      description: 'the TXT record to publish to prove the domain',
      properties: { name: STRING, value: STRING },
    },
    verified_at: NULLABLE_DATE_TIME,
    checked_at: NULLABLE_DATE_TIME,
  },
};
/** The display name, slug and settings are checked by the domain (organization-names.ts, organization-settings.ts). */
const WRITABLE = {
  slug: { type: 'string', minLength: 1, maxLength: 63 },
  display_name: { type: 'string', minLength: 1, maxLength: 200 },
  branding: { type: 'object' },
  policies: { type: 'object' },
} as const;
const NONE: JsonSchema = { type: 'null', description: 'done' };

const organizationJson = (o: Organization & { members?: number }) => ({
  id: o.id,
  slug: o.slug,
  display_name: o.displayName,
  branding: brandingView(o.branding),
  policies: policiesView(o.policies),
  problem: o.problem,
  members: o.members ?? 0,
  created_at: isoTime(o.createdAt),
  updated_at: isoTime(o.updatedAt),
});
/** What an organization's ETag covers: what an admin sets, not the count of members, which moves on its own. */
const editable = (o: Organization) => ({
  id: o.id,
  slug: o.slug,
  display_name: o.displayName,
  branding: brandingView(o.branding),
  policies: policiesView(o.policies),
});
const memberJson = (m: OrganizationMember) => ({
  user_id: m.userId,
  username: m.username,
  email: m.email,
  roles: m.roles,
  source: m.source,
  joined_at: isoTime(m.joinedAt),
});
const domainJson = (d: OrganizationDomain) => ({
  domain: d.domain,
  record: d.record,
  verified_at: d.verifiedAt && isoTime(d.verifiedAt),
  checked_at: d.checkedAt && isoTime(d.checkedAt),
});

/** The organization of the path, locked for a change under If-Match (etag.ts changeIfMatch). */
const organizationGuard = (request: FastifyRequest): IfMatchGuard<OrganizationSummary> => ({
  read: (ctx) => showOrganization(ctx, (request.params as OrgParams).org),
  lock: (o) => ({ type: 'organization', id: o.id }),
  tagged: editable,
});

export function organizationRoutes(api: AdminApi): void {
  // Every route of this resource keeps an organization-scoped caller to its own organization (the domain's rule).
  const route = (spec: Omit<AdminRoute, 'tag' | 'organizationScoped'>) =>
    api.route({ ...spec, tag: 'organizations', organizationScoped: true });

  route({
    method: 'GET',
    url: '/organizations',
    access: 'read',
    operationId: 'listOrganizations',
    summary: 'List the organizations by slug (an organization-scoped client sees its own only).',
    querystring: { type: 'object', properties: PAGE_QUERY_PROPERTIES },
    response: { 200: pageSchema(ORGANIZATION) },
    async handler(request, _reply, { ctx }) {
      const page = await readPage(
        'organizations',
        request.query as PageQuery,
        (after, limit) => listOrganizations(ctx, { afterSlug: after, limit }),
        (o) => o.slug,
      );
      return { items: page.items.map(organizationJson), next_cursor: page.next_cursor };
    },
  });

  route({
    method: 'POST',
    url: '/organizations',
    access: 'write',
    operationId: 'createOrganization',
    summary: 'Create an organization (a provider-wide client only: 403 for an organization-scoped one).',
    headers: IDEMPOTENCY_HEADERS,
    body: { type: 'object', required: ['slug', 'display_name'], properties: WRITABLE, additionalProperties: false },
    response: { 201: ORGANIZATION },
    async handler(request, reply, { ctx, principal }) {
      return idempotentCreate(ctx, principal, request, reply, async () => {
        const org = await createOrganization(ctx, request.body as OrganizationInput);
        reply.header('location', `${api.prefix}/organizations/${org.id}`).header('etag', etagOf(editable(org)));
        return { status: 201, body: organizationJson(org) };
      });
    },
  });

  route({
    method: 'GET',
    url: '/organizations/:org',
    access: 'read',
    operationId: 'getOrganization',
    summary: 'One organization, with its number of members and its ETag.',
    params: PARAMS,
    response: { 200: ORGANIZATION },
    async handler(request, reply, { ctx }) {
      const org = await showOrganization(ctx, (request.params as OrgParams).org);
      return reply.header('etag', etagOf(editable(org))).send(organizationJson(org));
    },
  });

  route({
    method: 'PATCH',
    url: '/organizations/:org',
    access: 'write',
    operationId: 'updateOrganization',
    summary: 'Change the slug, display name, branding or policies (JSON Merge Patch); If-Match is required.',
    params: PARAMS,
    headers: IF_MATCH_HEADERS,
    body: { type: 'object', minProperties: 1, properties: WRITABLE, additionalProperties: false },
    response: { 200: ORGANIZATION },
    async handler(request, reply, { ctx }) {
      const org = await changeIfMatch(request, ctx, organizationGuard(request), async (tctx, current) => {
        await updateOrganization(tctx, current.id, request.body as OrganizationInput);
        return showOrganization(tctx, current.id);
      });
      return reply.header('etag', etagOf(editable(org))).send(organizationJson(org));
    },
  });

  route({
    method: 'DELETE',
    url: '/organizations/:org',
    access: 'write',
    operationId: 'deleteOrganization',
    summary: 'Delete an organization with its memberships, roles, domains, invitations, connections and grants; If-Match is required.',
    params: PARAMS,
    headers: IF_MATCH_HEADERS,
    response: { 204: NONE },
    async handler(request, reply, { ctx }) {
      await changeIfMatch(request, ctx, organizationGuard(request), (tctx, current) => deleteOrganization(tctx, current.id));
      return reply.code(204).send();
    },
  });

  route({
    method: 'GET',
    url: '/organizations/:org/members',
    access: 'read',
    operationId: 'listOrganizationMembers',
    summary: 'The members of an organization, by username, with their roles.',
    params: PARAMS,
    querystring: { type: 'object', properties: PAGE_QUERY_PROPERTIES },
    response: { 200: pageSchema(MEMBER) },
    async handler(request, _reply, { ctx }) {
      const { org } = request.params as OrgParams;
      const page = await readPage(
        'organization-members',
        request.query as PageQuery,
        (after, limit) => listOrganizationMembers(ctx, org, { afterUsername: after, limit }),
        (m) => m.username,
      );
      return { items: page.items.map(memberJson), next_cursor: page.next_cursor };
    },
  });

  route({
    method: 'PUT',
    url: '/organizations/:org/members/:user_id',
    access: 'write',
    operationId: 'putOrganizationMember',
    summary: 'Make the user a member with these roles (201), or replace a member\'s roles (200); "member" is always kept.',
    params: MEMBER_PARAMS,
    body: {
      type: 'object',
      properties: { roles: { type: 'array', items: ROLE, maxItems: 50 } },
      additionalProperties: false,
    },
    response: { 200: MEMBER, 201: MEMBER },
    async handler(request, reply, { ctx }) {
      const { org, user_id } = request.params as { org: string; user_id: string };
      const roles = (request.body as { roles?: string[] } | undefined)?.roles ?? [];
      const { member, added } = await asOneChange(ctx, async (tctx) => {
        // A member's roles are replaced; anyone else is added (which an organization's own admin may not do).
        const member = await showOrganizationMember(tctx, org, user_id).catch((err: unknown) => {
          if (err instanceof AdminError && err.kind === 'not_found') return undefined;
          throw err;
        });
        if (member) await setOrganizationMemberRoles(tctx, org, user_id, roles);
        else await addOrganizationMember(tctx, org, user_id, { roles });
        return { member: await showOrganizationMember(tctx, org, user_id), added: member === undefined };
      });
      return reply.code(added ? 201 : 200).send(memberJson(member));
    },
  });

  route({
    method: 'DELETE',
    url: '/organizations/:org/members/:user_id',
    access: 'write',
    operationId: 'removeOrganizationMember',
    summary: 'End the membership (404 when the user is not a member); the user stays.',
    params: MEMBER_PARAMS,
    response: { 204: NONE },
    async handler(request, reply, { ctx }) {
      const { org, user_id } = request.params as { org: string; user_id: string };
      await showOrganizationMember(ctx, org, user_id);
      await removeOrganizationMember(ctx, org, user_id);
      return reply.code(204).send();
    },
  });

  route({
    method: 'GET',
    url: '/organizations/:org/roles',
    access: 'read',
    operationId: 'listOrganizationRoles',
    summary: "The roles a member may hold: admin and member, then the organization's own.",
    params: PARAMS,
    response: { 200: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: ROLE_VIEW } } } },
    async handler(request, _reply, { ctx }) {
      const roles = await listOrganizationRoles(ctx, (request.params as OrgParams).org);
      return { items: roles.map((r) => ({ name: r.name, description: r.description, built_in: r.builtIn })) };
    },
  });

  route({
    method: 'POST',
    url: '/organizations/:org/roles',
    access: 'write',
    operationId: 'createOrganizationRole',
    summary: 'Define a role of the organization.',
    params: PARAMS,
    body: {
      type: 'object',
      required: ['name'],
      properties: { name: ROLE, description: { type: ['string', 'null'], maxLength: 500 } },
      additionalProperties: false,
    },
    response: { 201: ROLE_VIEW },
    async handler(request, reply, { ctx }) {
      const body = request.body as { name: string; description?: string | null };
      await createOrganizationRole(ctx, (request.params as OrgParams).org, body.name, body.description ?? null);
      return reply.code(201).send({ name: body.name, description: body.description ?? null, built_in: false });
    },
  });

  route({
    method: 'DELETE',
    url: '/organizations/:org/roles/:role',
    access: 'write',
    operationId: 'deleteOrganizationRole',
    summary: "Delete one of the organization's own roles and take it from every member.",
    params: ROLE_PARAMS,
    response: { 204: NONE },
    async handler(request, reply, { ctx }) {
      const { org, role } = request.params as { org: string; role: string };
      await deleteOrganizationRoleByName(ctx, org, role);
      return reply.code(204).send();
    },
  });

  route({
    method: 'GET',
    url: '/organizations/:org/domains',
    access: 'read',
    operationId: 'listOrganizationDomains',
    summary: 'The domains the organization claims, each with the TXT record that proves it and whether it is verified.',
    params: PARAMS,
    response: { 200: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: DOMAIN_VIEW } } } },
    async handler(request, _reply, { ctx }) {
      return { items: (await listOrganizationDomains(ctx, (request.params as OrgParams).org)).map(domainJson) };
    },
  });

  route({
    method: 'POST',
    url: '/organizations/:org/domains',
    access: 'write',
    operationId: 'addOrganizationDomain',
    summary: 'Claim a domain, unverified: the answer names the TXT record to publish at _sso-verify.{domain}.',
    params: PARAMS,
    body: { type: 'object', required: ['domain'], properties: { domain: DOMAIN }, additionalProperties: false },
    response: { 201: DOMAIN_VIEW },
    async handler(request, reply, { ctx }) {
      const domain = await addOrganizationDomain(ctx, (request.params as OrgParams).org, (request.body as { domain: string }).domain);
      return reply.code(201).send(domainJson(domain));
    },
  });

  route({
    method: 'DELETE',
    url: '/organizations/:org/domains/:domain',
    access: 'write',
    operationId: 'removeOrganizationDomain',
    summary: 'Give up the claim of a domain (verified or not).',
    params: DOMAIN_PARAMS,
    response: { 204: NONE },
    async handler(request, reply, { ctx }) {
      const { org, domain } = request.params as { org: string; domain: string };
      await removeOrganizationDomain(ctx, org, domain);
      return reply.code(204).send();
    },
  });
}
