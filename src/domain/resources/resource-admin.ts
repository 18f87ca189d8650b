// Registering, replacing and removing resource servers by hand: the seed file's entry and rules
// (src/domain/resources/resource-servers.ts). Tokens already issued for a removed one stay valid until they expire.
import { deleteResourceServer, findResourceServers, listResourceServers, upsertResourceServer } from '../../storage/resource-servers.js';
import { inAdminTransaction, logAdminAction, type AdminContext } from '../admin/admin.js';
import { AdminError } from '../admin-error.js';
import { entryFromRow, resourceServerColumns, resourceServerProblems, type ResourceServerEntry } from './resource-servers.js';

/** Refuses an entry that the seed file would refuse; for checking a command line before the database opens. */
export function checkResourceServerEntry(entry: ResourceServerEntry): void {
  const problems = resourceServerProblems(entry);
  if (problems.length > 0) throw new AdminError(`resource server "${String(entry.identifier)}" was refused: ${problems.join('; ')}`);
}

export async function listResources(ctx: AdminContext): Promise<ResourceServerEntry[]> {
  return (await listResourceServers(ctx.db)).map(entryFromRow);
}

export async function showResource(ctx: AdminContext, identifier: string): Promise<ResourceServerEntry> {
  const [row] = await findResourceServers(ctx.db, [identifier]);
  if (!row) throw new AdminError(`no resource server "${identifier}"`, 'not_found');
  return entryFromRow(row);
}

/** Creates the resource server, or replaces every field of the one of that identifier. */
export async function setResource(
  ctx: AdminContext,
  entry: ResourceServerEntry,
): Promise<{ entry: ResourceServerEntry; created: boolean }> {
  checkResourceServerEntry(entry);
  return inAdminTransaction(ctx, async (trx, tctx) => {
    const created = await upsertResourceServer(trx, entry.identifier, resourceServerColumns(entry), ctx.clock());
    await logAdminAction(ctx, trx, {
      event: created ? 'admin.resource.created' : 'admin.resource.replaced',
      target: { type: 'resource', id: entry.identifier },
      changes: { ...entry },
      log: { resource: entry.identifier },
    });
    return { entry: await showResource(tctx, entry.identifier), created };
  });
}

export async function deleteResource(ctx: AdminContext, identifier: string): Promise<void> {
  await inAdminTransaction(ctx, async (trx) => {
    if (!(await deleteResourceServer(trx, identifier))) throw new AdminError(`no resource server "${identifier}"`, 'not_found');
    await logAdminAction(ctx, trx, {
      event: 'admin.resource.deleted',
      target: { type: 'resource', id: identifier },
      log: { resource: identifier },
    });
  });
}
