// A client limited to groups (issue 20) admits only their members: the check made where a code or a device grant is
// issued. RFC 6749 4.1.2.1 access_denied: "The resource owner or authorization server denied the request."
import { AccessDenied } from '../../errors/oauth-error.js';
import type { Db } from '../../storage/database.js';
import { findGroupsByNames, isAdmitted, replaceAllowedGroups } from '../../storage/groups.js';
import type { ProviderContext } from '../context.js';

/** What the check needs of a client: a client not limited to groups costs no query. */
export interface GroupLimit {
  clientId: string;
  groupRestricted: boolean;
}

/**
 * Whether the client admits the user: always when it is not limited to groups; else when one of its groups has the
 * user as a member, or is named (any case) among the groups their upstream provider or directory mapped.
 */
export async function clientAdmits(ctx: Pick<ProviderContext, 'db'>, client: GroupLimit, userId: string): Promise<boolean> {
  return !client.groupRestricted || isAdmitted(ctx.db, client.clientId, userId);
}

/** The error the client is told; the person is told why on a page of their own (src/http/pages/views/group-pages.ts). */
export function notInAllowedGroup(): AccessDenied {
  return new AccessDenied('the user is not in a group this client allows');
}

/**
 * Limits the client to the groups of these names (any case), or lifts the limit (undefined); the client row's
 * group_restricted is written by the caller, in the same transaction. Returns the names no group has (then nothing
 * is written, and the caller refuses the change).
 */
export async function writeAllowedGroups(db: Db, clientId: string, names: readonly string[] | undefined): Promise<string[]> {
  const groups = await findGroupsByNames(db, names ?? []);
  const found = new Set(groups.map((g) => g.name.toLowerCase()));
  const missing = (names ?? []).filter((n) => !found.has(n.toLowerCase()));
  if (missing.length === 0)
    await replaceAllowedGroups(
      db,
      clientId,
      groups.map((g) => g.id),
    );
  return missing;
}
