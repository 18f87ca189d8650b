// What every admin action shares, whoever runs it (the admin command line today): the little of the provider it
// needs, the one error for a refusal, its log line with a stable `event` field, and how a user is named.
import type { Db } from '../../storage/database.js';
import type { UserRow } from '../../storage/schema.js';
import { findUserById, findUserByUsername } from '../../storage/users.js';
import type { ProviderContext } from '../context.js';

/** No key store, no caches: an admin action reads and writes the database, hashes, and logs. */
export type AdminContext = Pick<ProviderContext, 'config' | 'db' | 'clock' | 'log' | 'passwords' | 'passwordPolicy'>;

/** An admin action refused on its merits (no such client, an invalid value, a name taken); nothing was written. */
export class AdminError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdminError';
  }
}

/** The stable `event` of each admin action's log line, for shipping and searching. */
export type AdminEvent =
  | 'admin.client.created'
  | 'admin.client.updated'
  | 'admin.client.secret_rotated'
  | 'admin.client.deleted'
  | 'admin.user.created'
  | 'admin.user.password_set'
  | 'admin.user.reset_link'
  | 'admin.user.invited'
  | 'admin.user.disabled'
  | 'admin.user.enabled'
  | 'admin.user.deleted'
  | 'admin.sessions.revoked'
  | 'admin.device.revoked'
  | 'admin.key.rotated'
  | 'admin.rule.created'
  | 'admin.rule.updated'
  | 'admin.rule.deleted'
  | 'admin.resource.created'
  | 'admin.resource.replaced'
  | 'admin.resource.deleted'
  | 'admin.directory.added'
  | 'admin.directory.replaced'
  | 'admin.directory.removed'
  | 'admin.connection.created'
  | 'admin.connection.replaced'
  | 'admin.connection.removed'
  | 'admin.connection.unlinked'
  | 'admin.connection.tokens_read'
  | 'admin.webhook.created'
  | 'admin.webhook.removed'
  | 'admin.webhook.resumed'
  | 'admin.group.created'
  | 'admin.group.updated'
  | 'admin.group.deleted'
  | 'admin.group.member_added'
  | 'admin.group.member_removed'
  | 'admin.user.role_set';

/** One line per action done: ids and counts, never a secret or a password. */
export function logAdminAction(ctx: Pick<AdminContext, 'log'>, event: AdminEvent, fields: Record<string, unknown>): void {
  ctx.log.info({ event, ...fields }, 'admin action');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The user named by `ref`: their id, or else their username (any case). */
export async function findUserByRef(db: Db, ref: string): Promise<UserRow> {
  const user = (UUID.test(ref) ? await findUserById(db, ref) : undefined) ?? (await findUserByUsername(db, ref));
  if (!user) throw new AdminError(`no user "${ref}" (give a user id or a username)`);
  return user;
}
