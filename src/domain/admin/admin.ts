// What every admin action shares, whoever runs it (the command line, the management API): the little of the
// provider it needs, who acts, the one error for a refusal, its audit record and log line with a stable `event`
// field, and how a user is named.
import type { Db } from '../../storage/database.js';
import { insertAuditRecord } from '../../storage/audit-records.js';
import type { UserRow } from '../../storage/schema.js';
import { lockRowForUpdate, type LockableTable } from '../../storage/row-locks.js';
import { findUserById, findUserByUsername } from '../../storage/users.js';
import type { ProviderContext } from '../context.js';
import { AdminError } from '../admin-error.js';

/**
 * Who acts: a client with an admin:* token (the API), a person with an admin role (the console), the operator at
 * the command line (their OS user name), or code of the provider itself (tests, the server's start).
 */
export type AdminActor =
  { kind: 'client'; clientId: string } | { kind: 'person'; userId: string } | { kind: 'cli'; osUser: string } | { kind: 'system' };

/** No key store, no caches: an admin action reads and writes the database, hashes, and logs; who acts and from where. */
export type AdminContext = Pick<ProviderContext, 'config' | 'db' | 'clock' | 'log' | 'passwords' | 'passwordPolicy'> & {
  /** Recorded in the audit trail; `system` when unset. */
  actor?: AdminActor;
  /** The request's IP address, for an action over HTTP. */
  origin?: string | null;
  /** The surface acting, as user.email_changed names it: `scim` for a provisioning client; `admin` when unset. */
  via?: 'admin' | 'scim';
  /**
   * Delegated administration (issue 40): the id of the one organization the actor administers (an organization's
   * admin in the console, an organization-scoped API client or SCIM token). Unset: the whole provider. Every
   * organization action checks it (src/domain/organizations/organization-scope.ts); outside it, nothing exists.
   */
  organizationScope?: string | undefined;
};

/** The stable `event` of each admin action's log line, for shipping and searching. */
export type AdminEvent =
  | 'admin.client.created'
  | 'admin.client.updated'
  | 'admin.client.secret_rotated'
  | 'admin.client.deleted'
  | 'admin.user.created'
  | 'admin.user.updated'
  | 'admin.user.second_factor_reset'
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
  | 'admin.user.role_set'
  | 'admin.scim_token.created'
  | 'admin.scim_token.revoked'
  | 'admin.webhook.updated'
  | 'admin.webhook.paused'
  | 'admin.saml_sp.created'
  | 'admin.saml_sp.replaced'
  | 'admin.saml_sp.removed'
  | 'admin.saml_key.rotated'
  | 'admin.organization.created'
  | 'admin.organization.updated'
  | 'admin.organization.deleted'
  | 'admin.organization.role_created'
  | 'admin.organization.role_deleted'
  | 'admin.organization.member_added'
  | 'admin.organization.member_updated'
  | 'admin.organization.member_removed'
  | 'admin.organization.domain_added'
  | 'admin.organization.domain_verified'
  | 'admin.organization.domain_unverified'
  | 'admin.organization.domain_removed'
  | 'admin.organization.invitation_created'
  | 'admin.organization.invitation_resent'
  | 'admin.organization.invitation_revoked';

/** The value the audit trail records for a secret or password that changed: its name, never its value. */
export const NOT_RECORDED = '(not recorded)';

export interface AdminAction {
  event: AdminEvent;
  target: { type: string; id: string };
  /** The fields changed and their new values; a secret with the value NOT_RECORDED. */
  changes?: Record<string, unknown>;
  /** What only the log line says (counts, revisions). */
  log?: Record<string, unknown>;
  /** The organization the change is in (issue 40); the actor's organization scope when unset. */
  organizationId?: string | null;
}

const actorColumns = (actor: AdminActor = { kind: 'system' }): { actorKind: string; actorId: string } => {
  switch (actor.kind) {
    case 'client':
      return { actorKind: 'client', actorId: actor.clientId };
    case 'person':
      return { actorKind: 'person', actorId: actor.userId };
    case 'cli':
      return { actorKind: 'cli', actorId: actor.osUser };
    default:
      return { actorKind: 'system', actorId: 'system' };
  }
};

/**
 * The one place an action is recorded: its audit record, written on `db`, which must be the transaction of the
 * change itself (a change without its record, or a record without its change, is never committed), and one log
 * line: ids and counts, never a secret or a password.
 */
export async function logAdminAction(
  ctx: Pick<AdminContext, 'log' | 'clock' | 'actor' | 'origin' | 'organizationScope'>,
  db: Db,
  action: AdminAction,
): Promise<void> {
  const actor = actorColumns(ctx.actor);
  await insertAuditRecord(db, {
    occurredAt: ctx.clock(),
    ...actor,
    origin: ctx.origin ?? null,
    event: action.event,
    targetType: action.target.type,
    targetId: action.target.id,
    changes: action.changes ?? {},
    organizationId: action.organizationId ?? ctx.organizationScope ?? null,
  });
  ctx.log.info({ event: action.event, ...action.log }, 'admin action');
}

/**
 * Runs a change and its audit record in one transaction; `ctx.db` inside is the transaction. When `ctx.db` is a
 * transaction already (an API or SCIM request made of several admin changes), the change joins it: Kysely has no
 * nested transactions, and the request as a whole commits, or none of it does.
 */
export function inAdminTransaction<C extends Pick<AdminContext, 'db'>, T>(ctx: C, fn: (trx: Db, tctx: C) => Promise<T>): Promise<T> {
  if (ctx.db.isTransaction) return fn(ctx.db, ctx);
  return ctx.db.transaction().execute((trx: Db) => fn(trx, { ...ctx, db: trx }));
}

/**
 * Several admin changes made as one (a form that edits a profile and a role, a SCIM PUT, a change under If-Match):
 * each function called with the context `fn` is given joins the one transaction, and each writes its own audit
 * record in it; all commit, or nothing does.
 */
export function asOneChange<C extends Pick<AdminContext, 'db'>, T>(ctx: C, fn: (tctx: C) => Promise<T>): Promise<T> {
  return inAdminTransaction(ctx, (_trx, tctx) => fn(tctx));
}

/** The kinds of resource a change under If-Match locks, and their tables. */
const LOCKED_TABLES = {
  user: 'users',
  group: 'groups',
  risk_rule: 'risk_rules',
  webhook: 'webhook_subscriptions',
  resource_server: 'resource_servers',
  connection: 'connections',
  saml_sp: 'saml_service_providers',
  organization: 'organizations',
} as const satisfies Record<string, LockableTable>;

export interface LockTarget {
  type: keyof typeof LOCKED_TABLES;
  /** Its key as stored (an id, a resource server's identifier), not a name that leads to it. */
  id: string;
}

/**
 * Locks the resource's row for the rest of the change's transaction (`ctx.db` must be one: see asOneChange), so that
 * a precondition read after it holds until commit. A resource gone meanwhile is a not_found refusal.
 */
export async function lockForChange(ctx: Pick<AdminContext, 'db'>, target: LockTarget): Promise<void> {
  if (!ctx.db.isTransaction) throw new Error('lockForChange outside a transaction locks nothing');
  if (!(await lockRowForUpdate(ctx.db, LOCKED_TABLES[target.type], target.id)))
    throw new AdminError(`no ${target.type.replace('_', ' ')} "${target.id}"`, 'not_found');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The user named by `ref`: their id, or else their username (any case). */
export async function findUserByRef(db: Db, ref: string): Promise<UserRow> {
  const user = (UUID.test(ref) ? await findUserById(db, ref) : undefined) ?? (await findUserByUsername(db, ref));
  if (!user) throw new AdminError(`no user "${ref}" (give a user id or a username)`, 'not_found');
  return user;
}
