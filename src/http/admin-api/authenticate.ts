// Who calls the management API, before anything else of the request is looked at (RFC 6750 bearer tokens): a
// client's client_credentials token with admin:read and/or admin:write, each route needing one or the other; a client
// limited to one organization (issue 40) only on the routes that keep it there.
import type { FastifyRequest } from 'fastify';
import { ADMIN_READ, ADMIN_WRITE, clientPrincipal, mayDo, organizationScopeOf, type AdminPrincipal } from '../../domain/admin/principal.js';
import type { ProviderContext } from '../../domain/context.js';
import { AdminError } from '../../domain/admin-error.js';
import { InsufficientScope } from '../../errors/oauth-error.js';
import { bearerToken } from '../bearer-token.js';

/** The console (later) finds a signed-in person here; a request it does not recognise falls to the bearer token. */
export type PersonPrincipal = (request: FastifyRequest) => Promise<AdminPrincipal | undefined>;

export async function authenticate(ctx: ProviderContext, request: FastifyRequest, person?: PersonPrincipal): Promise<void> {
  const access = request.routeOptions.config?.adminAccess;
  // An unknown path is answered 404 by the not-found handler, whoever asks.
  if (access === undefined) return;
  const principal = (await person?.(request)) ?? (await clientPrincipal(ctx, bearerToken(request, `${ADMIN_READ} ${ADMIN_WRITE}`)));
  if (!mayDo(principal, access)) {
    // RFC 6750 3.1 insufficient_scope, naming the scope the request needs.
    throw new InsufficientScope(`this request needs the ${ADMIN_WRITE} scope`, ADMIN_WRITE);
  }
  // Delegated administration (issue 40): a client limited to one organization reaches only the routes that keep it
  // there; every other resource is the provider's, not an organization's.
  if (organizationScopeOf(principal) !== undefined && request.routeOptions.config?.adminOrganizationScoped !== true)
    throw new AdminError("an organization's API client cannot use this resource: it is the whole provider's", 'forbidden');
  request.adminPrincipal = principal;
}
