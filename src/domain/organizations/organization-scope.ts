// Isolation between organizations (issue 40), in one place: an actor limited to one organization (its admin in the
// console, an organization-scoped API client or SCIM token) reaches that organization and nothing else. Outside it
// nothing exists: the answer is the same "no such organization" a name that exists nowhere gets, so that an
// organization's admin cannot learn which other organizations there are.
import type { Db } from '../../storage/database.js';
import { findOrganizationById, findOrganizationBySlug } from '../../storage/organizations.js';
import type { OrganizationRow } from '../../storage/schema.js';
import type { AdminContext } from '../admin/admin.js';
import { AdminError } from '../admin-error.js';
import { isOrganizationId } from './organization-names.js';

const noSuch = (ref: string) => new AdminError(`no organization "${ref}" (give an organization id or slug)`, 'not_found');

/** The organization `ref` names (its id, else its slug), whoever asks. */
export async function findOrganizationByRef(db: Db, ref: string): Promise<OrganizationRow> {
  const row = isOrganizationId(ref) ? await findOrganizationById(db, ref.toLowerCase()) : await findOrganizationBySlug(db, ref);
  if (!row) throw noSuch(ref);
  return row;
}

/** The organization `ref` names, if the actor may reach it; otherwise the same refusal as for one that does not exist. */
export async function organizationInScope(ctx: Pick<AdminContext, 'db' | 'organizationScope'>, ref: string): Promise<OrganizationRow> {
  const row = await findOrganizationByRef(ctx.db, ref).catch((err: unknown) => {
    throw err instanceof AdminError ? noSuch(ref) : err;
  });
  if (ctx.organizationScope !== undefined && row.id !== ctx.organizationScope) throw noSuch(ref);
  return row;
}

/** Refuses an action only a provider-wide admin may take (making or deleting an organization). */
export function requireProviderWide(ctx: Pick<AdminContext, 'organizationScope'>, action: string): void {
  if (ctx.organizationScope !== undefined) throw new AdminError(`an organization's admin cannot ${action}`, 'forbidden');
}
