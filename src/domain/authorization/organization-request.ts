// The `organization` authorization request parameter (issue 40): the organization a sign-in is for, by its id or slug,
// taken as the client's `organization_usage` says (none: refused; allow, require: taken). Resolved once at /authorize
// (and at the PAR endpoint, which validates as /authorize does); the interaction then carries the organization's id.
import { InvalidRequest } from '../../errors/oauth-error.js';
import { findOrganizationById, findOrganizationBySlug } from '../../storage/organizations.js';
import type { Client } from '../clients/clients.js';
import type { ProviderContext } from '../context.js';
import { isOrganizationId, slugProblem } from '../organizations/organization-names.js';
import { single, type RawParams } from '../params.js';
import type { AuthorizationRequest } from './authorization-request.js';

/** The request parameter's name. */
export const ORGANIZATION_PARAMETER = 'organization';

/**
 * Completes a validated request with the organization its `organization` parameter names. Throws invalid_request
 * (RFC 6749 4.1.2.1, redirected to the verified redirect URI) for a client that does not use organizations, and for a
 * value that names no organization: "unknown organization", which says nothing the client did not ask about. A
 * request without the parameter costs nothing.
 */
export async function withOrganization(
  ctx: ProviderContext,
  client: Pick<Client, 'organizationUsage'>,
  request: AuthorizationRequest,
  params: RawParams,
): Promise<AuthorizationRequest> {
  const ref = single(params, ORGANIZATION_PARAMETER);
  if (ref === undefined) return request;
  if (client.organizationUsage === 'none') throw new InvalidRequest('the client does not use organizations');
  const id = await organizationIdOf(ctx, ref);
  if (id === undefined) throw new InvalidRequest('unknown organization');
  return { ...request, organizationId: id };
}

/** The id of the organization `ref` names (its id, else its slug); undefined for none (or a malformed value). */
async function organizationIdOf(ctx: ProviderContext, ref: string): Promise<string | undefined> {
  if (isOrganizationId(ref)) return (await findOrganizationById(ctx.db, ref.toLowerCase()))?.id;
  if (slugProblem(ref) !== undefined) return undefined;
  return (await findOrganizationBySlug(ctx.db, ref))?.id;
}
