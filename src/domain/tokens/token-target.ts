// Why a grant's statement stored no access token for the resource asked (RFC 8707 2.2), found after the fact, off
// the hot path: the statement checks the same rules (src/storage/access-token-target.ts).
import { InvalidTarget } from '../../errors/oauth-error.js';
import { findResourceServers } from '../../storage/resource-servers.js';
import type { Client } from '../clients/clients.js';
import type { ProviderContext } from '../context.js';

/** The invalid_target refusal that fits, or undefined when the resource rules held (the refusal was for another reason). */
export async function targetRefusal(
  ctx: ProviderContext,
  client: Client,
  grantResources: readonly string[],
  resource: string | null,
): Promise<InvalidTarget | undefined> {
  if (resource !== null && grantResources.length > 0 && !grantResources.includes(resource))
    return new InvalidTarget('the resource was not part of the authorization grant');
  if (resource === null && grantResources.length > 1) return new InvalidTarget('the grant is for several resources: name one');
  const audience =
    resource ?? (grantResources.length === 1 ? grantResources[0]! : grantResources.length === 0 ? client.defaultResource : null);
  if (audience !== null && (await findResourceServers(ctx.db, [audience])).length === 0)
    return new InvalidTarget('the resource is not known to this server');
  return undefined;
}
