// Delegated administration (issue 40): limiting a management-API client to one organization
// (clients.admin_organization_id), so that its admin:* tokens reach that organization only. Only a provider-wide actor
// may set or lift it: a scoped client can neither widen itself nor limit (or free) another.
import { findClient, setClientAdminOrganization } from '../../storage/clients.js';
import { inAdminTransaction, logAdminAction, type AdminContext } from '../admin/admin.js';
import { AdminError } from '../admin-error.js';
import { findOrganizationByRef, requireProviderWide } from '../organizations/organization-scope.js';

/** The words that lift the limit, on the command line and in the API. */
export const NO_ORGANIZATION = 'none';

/** Limits the client to the organization `ref` names (its id or slug), or lifts the limit (null); answers the id set. */
export async function setAdminOrganization(ctx: AdminContext, clientId: string, ref: string | null): Promise<string | null> {
  requireProviderWide(ctx, 'change the organization an API client administers');
  const organizationId = ref === null || ref === NO_ORGANIZATION ? null : (await findOrganizationByRef(ctx.db, ref)).id;
  return inAdminTransaction(ctx, async (trx) => {
    const current = await findClient(trx, clientId);
    if (!current) throw new AdminError(`no client "${clientId}"`, 'not_found');
    if (current.admin_organization_id === organizationId) return organizationId;
    if (!(await setClientAdminOrganization(trx, clientId, organizationId, ctx.clock())))
      throw new AdminError(`no client "${clientId}"`, 'not_found');
    await logAdminAction(ctx, trx, {
      event: 'admin.client.updated',
      target: { type: 'client', id: clientId },
      changes: { admin_organization: organizationId },
      log: { clientId, fields: ['admin_organization'] },
      organizationId,
    });
    return organizationId;
  });
}
