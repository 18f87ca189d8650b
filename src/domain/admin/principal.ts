// Who calls the management API (issue 20): a confidential client with a client_credentials token granted admin:read
// and/or admin:write, or (the web console) a signed-in person with the admin or auditor role. The same handlers serve
// both; what each may do is decided here.
import { findClientAdminOrganization } from '../../storage/clients.js';
import type { ProviderContext } from '../context.js';
import { clientTokenScopes } from '../tokens/client-token-scopes.js';
import type { AdminActor } from './admin.js';

export const ADMIN_READ = 'admin:read';
export const ADMIN_WRITE = 'admin:write';
export const ADMIN_SCOPES = [ADMIN_READ, ADMIN_WRITE] as const;
export type AdminScope = (typeof ADMIN_SCOPES)[number];

export type AdminPrincipal =
  | {
      kind: 'client';
      clientId: string;
      scopes: AdminScope[];
      /** Delegated administration (issue 40): the one organization the client administers (clients.admin_organization_id). */
      organizationId?: string;
    }
  | { kind: 'person'; userId: string; role: 'admin' | 'auditor' };

/** Reading needs admin:read or admin:write (or either role); changing needs admin:write (or the admin role). */
export type AdminAccess = 'read' | 'write';

export function mayDo(principal: AdminPrincipal, access: AdminAccess): boolean {
  if (principal.kind === 'person') return access === 'read' || principal.role === 'admin';
  return access === 'read' ? principal.scopes.length > 0 : principal.scopes.includes(ADMIN_WRITE);
}

/** The client a client_credentials token stands for, with its admin scopes (clientTokenScopes' errors otherwise). */
export async function clientPrincipal(ctx: Pick<ProviderContext, 'db' | 'clock'>, token: string): Promise<AdminPrincipal> {
  const holder = await clientTokenScopes(ctx, token, ADMIN_SCOPES, {
    description: `the management API needs a client_credentials token with the ${ADMIN_READ} or ${ADMIN_WRITE} scope`,
    challenge: `${ADMIN_READ} ${ADMIN_WRITE}`,
  });
  const organizationId = await findClientAdminOrganization(ctx.db, holder.clientId);
  return {
    kind: 'client',
    clientId: holder.clientId,
    scopes: holder.scopes as AdminScope[],
    ...(typeof organizationId === 'string' ? { organizationId } : {}),
  };
}

/** The organization the principal is limited to (AdminContext.organizationScope); undefined: the whole provider. */
export const organizationScopeOf = (principal: AdminPrincipal): string | undefined =>
  principal.kind === 'client' ? principal.organizationId : undefined;

/** How the audit trail names the principal. */
export function actorOf(principal: AdminPrincipal): AdminActor {
  return principal.kind === 'client' ? { kind: 'client', clientId: principal.clientId } : { kind: 'person', userId: principal.userId };
}

/** A stable name of the principal, which scopes its Idempotency-Keys. */
export function principalKey(principal: AdminPrincipal): string {
  return principal.kind === 'client' ? `client:${principal.clientId}` : `person:${principal.userId}`;
}
