// A client limited to groups (issue 20) admits only their members: the check made where a code or a device grant is
// issued. RFC 6749 4.1.2.1 access_denied: "The resource owner or authorization server denied the request."
import { AccessDenied } from '../../errors/oauth-error.js';
import { isAdmitted } from '../../storage/groups.js';
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

/** The error the client is told; the person is told why on a page of their own (src/http/views/group-pages.ts). */
export function notInAllowedGroup(): AccessDenied {
  return new AccessDenied('the user is not in a group this client allows');
}
