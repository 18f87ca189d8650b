// The account page's view of a person's links to upstream accounts (issue 19), linking another one (the link made when
// the signed-in person comes back from the upstream), and unlinking one: allowed only while another way to sign in
// remains (another link, a passkey, or a password: one they chose, or one a verified address lets them set by reset),
// so that nobody unlinks themselves out of their account.
import { deleteLink, findLink, insertLink, listConnectionRows, listLinksOfUser, touchLink } from '../../storage/connections.js';
import { countPasskeys } from '../../storage/passkeys.js';
import type { UserRow } from '../../storage/schema.js';
import type { ProviderContext } from '../context.js';
import { recordSecurityEvent } from '../risk/security-events.js';
import { connectionsForSignIn } from './connections.js';

export interface AccountLink {
  connectionId: string;
  /** The connection's display name (its id when it is gone or unreadable). */
  name: string;
  subject: string;
  linkedAt: Date;
  lastUsedAt: Date;
  canUnlink: boolean;
}

export async function accountLinks(ctx: ProviderContext, user: UserRow): Promise<AccountLink[]> {
  const [links, rows, passkeys] = await Promise.all([
    listLinksOfUser(ctx.db, user.id),
    listConnectionRows(ctx.db),
    countPasskeys(ctx.db, user.id),
  ]);
  const names = new Map(rows.map((r) => [r.id, r.display_name]));
  // A password the person can use: one they set (the account was not made by a link), or one a reset can give them.
  const password = !links.some((l) => l.provisioned) || (user.email !== null && user.email_verified);
  return links.map((l) => ({
    connectionId: l.connection_id,
    name: names.get(l.connection_id) ?? l.connection_id,
    subject: l.subject,
    linkedAt: l.created_at,
    lastUsedAt: l.last_used_at,
    canUnlink: links.length > 1 || passkeys > 0 || password,
  }));
}

export type UnlinkOutcome = 'unlinked' | 'last-way-in' | 'not-found';

/** Removes one of the user's own links, unless it is their last way to sign in. */
export async function unlinkOwn(ctx: ProviderContext, user: UserRow, connectionId: string, subject: string): Promise<UnlinkOutcome> {
  const link = (await accountLinks(ctx, user)).find((l) => l.connectionId === connectionId && l.subject === subject);
  if (!link) return 'not-found';
  if (!link.canUnlink) return 'last-way-in';
  if (!(await deleteLink(ctx.db, user.id, connectionId, subject))) return 'not-found';
  await recordSecurityEvent(ctx, { type: 'connection_unlinked', userId: user.id, details: { connection: connectionId } });
  return 'unlinked';
}

/** An enabled connection the person has no link to yet: the account page offers "Link {provider}". */
export interface LinkableConnection {
  id: string;
  name: string;
}

export async function linkableConnections(ctx: ProviderContext, links: readonly AccountLink[]): Promise<LinkableConnection[]> {
  const linked = new Set(links.map((l) => l.connectionId));
  // The provider-wide connections only: an organization's serves the sign-ins for that organization (issue 40).
  return (await connectionsForSignIn(ctx, null)).filter((c) => !linked.has(c.id)).map((c) => ({ id: c.id, name: c.displayName }));
}

export type LinkOutcome = 'linked' | 'already-yours' | 'linked-elsewhere';

/**
 * Links the upstream account the person just signed in to upstream with to their signed-in account here. Being signed
 * in proves the local account; the upstream's address decides nothing. An upstream account belongs to at most one
 * user (the table's key), so one linked to somebody else is refused and nothing is written.
 */
export async function linkToSignedInUser(
  ctx: ProviderContext,
  connectionId: string,
  subject: string,
  userId: string,
): Promise<LinkOutcome> {
  const now = ctx.clock();
  if (await insertLink(ctx.db, { connectionId, subject, userId, now, provisioned: false })) {
    await recordSecurityEvent(ctx, { type: 'connection_linked', userId, details: { connection: connectionId, provisioned: false } });
    return 'linked';
  }
  const existing = await findLink(ctx.db, connectionId, subject);
  if (existing?.user_id !== userId) return 'linked-elsewhere';
  await touchLink(ctx.db, connectionId, subject, now);
  return 'already-yours';
}
