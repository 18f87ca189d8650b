// Managing users by hand: create (the seed file's validation), passwords, disabling, deleting, and what a user is
// signed in with: sessions (ending them queues their back-channel logouts) and devices (src/domain/risk/devices.ts).
import { randomUUID } from 'node:crypto';
import type { Db } from '../../storage/database.js';
import { listLiveDevices } from '../../storage/devices.js';
import type { UserRow } from '../../storage/schema.js';
import { endUserSessions, listLiveUserSessions, type LiveSessionRow } from '../../storage/sessions.js';
import {
  deleteUserRow,
  disableUserRow,
  enableUserRow,
  findUserActivity,
  findUserByEmail,
  insertUserIfAbsent,
  listUsers as listUserRows,
  updateUser,
  type DisabledUserRow,
} from '../../storage/users.js';
import { AdminError, findUserByRef, logAdminAction, type AdminContext } from './admin.js';
import { listDevices, revokeDeviceIn, type AccountDevice, type RevokedDevice } from '../risk/devices.js';
import { userColumns, userEntryProblems, type SeedUser } from './seed.js';
import { PasswordPolicy, type PasswordOwner } from '../accounts/password-policy.js';
import { issueResetLink } from '../accounts/password-reset.js';
import { inviteByEmail, isEmailAddress } from '../accounts/signup.js';
import { findLinkOfUser } from '../../storage/directories.js';
import { emitSessionsEnded, emitUserEvent } from '../webhooks/emit.js';
import { findUserRole, groupNamesOfUser, replaceUserRole } from '../../storage/groups.js';

export interface UserSummary {
  id: string;
  username: string;
  email: string | null;
  emailVerified: boolean;
  disabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface UserDetails extends UserSummary {
  /** The OIDC Core 5.1 claims kept beside username and email. */
  claims: Record<string, unknown>;
  liveSessions: number;
  devices: number;
  authenticatorApp: boolean;
  /** The console role (issue 20); `none` when they have none. */
  role: AdminRoleChoice;
  /** The names of their groups here (those an upstream provider maps are in `claims.groups`). */
  groups: string[];
}

const summary = (row: UserRow): UserSummary => ({
  id: row.id,
  username: row.username,
  email: row.email,
  emailVerified: row.email_verified,
  disabledAt: row.disabled_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export async function listUsers(ctx: AdminContext): Promise<UserSummary[]> {
  return (await listUserRows(ctx.db)).map(summary);
}

export async function showUser(ctx: AdminContext, ref: string): Promise<UserDetails> {
  const row = await findUserByRef(ctx.db, ref);
  const activity = await findUserActivity(ctx.db, row.id, ctx.clock());
  return {
    ...summary(row),
    claims: row.claims,
    liveSessions: activity.sessions,
    devices: activity.devices,
    authenticatorApp: activity.authenticator,
    role: (await findUserRole(ctx.db, row.id)) ?? 'none',
    groups: await groupNamesOfUser(ctx.db, row.id),
  };
}

/**
 * Refuses a user entry the seed file would refuse. Before the database opens (the command line's first check) the
 * default password policy applies; createUser checks again with the configured one.
 */
export function checkUserEntry(entry: SeedUser, policy?: PasswordPolicy): void {
  const problems = userEntryProblems(entry, policy);
  if (problems.length > 0) throw new AdminError(`user "${entry.username}" was refused: ${problems.join('; ')}`);
}

/** Refuses a password the policy refuses (src/domain/accounts/password-policy.ts), for its owner when known. */
export function checkPassword(password: string, policy: PasswordPolicy = new PasswordPolicy(), owner: PasswordOwner = {}): void {
  const problem = policy.problem(password, owner);
  if (problem) throw new AdminError(`the password was refused: password ${problem.detail}`);
}

export async function createUser(ctx: AdminContext, entry: SeedUser): Promise<UserSummary> {
  checkUserEntry(entry, ctx.passwordPolicy);
  const columns = userColumns(entry, await ctx.passwords.hash(entry.password));
  const now = ctx.clock();
  const id = randomUUID();
  const role = entry.role === undefined || entry.role === 'none' ? null : entry.role;
  // The user, their role (an API caller may give one) and its user.created webhook event commit together, or none does.
  const inserted = await ctx.db.transaction().execute(async (trx: Db) => {
    const done = await insertUserIfAbsent(trx, {
      id,
      ...columns,
      claims: JSON.stringify(columns.claims),
      created_at: now,
      updated_at: now,
    });
    if (done) await emitUserEvent(ctx, trx, 'user.created', { id, username: columns.username, email: columns.email }, { via: 'admin' });
    if (done && role !== null) await replaceUserRole(trx, id, role, now);
    return done;
  });
  if (!inserted) {
    const taken =
      entry.email === undefined
        ? `username "${entry.username}" is taken`
        : `username "${entry.username}" or email "${entry.email}" is taken`;
    throw new AdminError(`${taken} (usernames and emails are unique, in any case)`);
  }
  logAdminAction(ctx, 'admin.user.created', { userId: id, ...(role === null ? {} : { role }) });
  return summary(await findUserByRef(ctx.db, id));
}

/**
 * A linked directory user's password is changed in their directory (src/domain/directories/), never here. Once their
 * directory is removed they are unlinked, and an admin may give them a local password.
 */
async function refuseDirectoryUser(db: Db, user: UserRow): Promise<void> {
  if (await findLinkOfUser(db, user.id))
    throw new AdminError(`the password of "${user.username}" is kept by their directory: change it there (sso-admin directories)`);
}

/** Replaces the user's password. Their sessions and tokens are left alone (sessions revoke ends the sessions). */
export async function setPassword(ctx: AdminContext, ref: string, password: string): Promise<UserSummary> {
  const user = await findUserByRef(ctx.db, ref);
  await refuseDirectoryUser(ctx.db, user);
  checkPassword(password, ctx.passwordPolicy, user);
  const hash = await ctx.passwords.hash(password);
  await ctx.db.transaction().execute(async (trx: Db) => {
    await updateUser(trx, user.id, { password_hash: hash, updated_at: ctx.clock() });
    await emitUserEvent(ctx, trx, 'user.updated', user, { changes: ['password'], via: 'admin' });
  });
  logAdminAction(ctx, 'admin.user.password_set', { userId: user.id });
  return summary(user);
}

/**
 * A password reset link for the user, valid PASSWORD_RESET_TTL_SECONDS like one they ask for: mailed to their address
 * (through the outbox) when `send`, else returned for the admin to hand over. Refused for a disabled user, and, to
 * send, for a user without an email address.
 */
export async function resetLink(ctx: AdminContext, ref: string, send: boolean): Promise<{ user: UserSummary; url?: string }> {
  const user = await findUserByRef(ctx.db, ref);
  await refuseDirectoryUser(ctx.db, user);
  if (user.disabled_at !== null) throw new AdminError(`user "${user.username}" is disabled: enable them first`);
  if (send && !user.email) throw new AdminError(`user "${user.username}" has no email address: print the link instead`);
  const issued = await issueResetLink(ctx, user.id, send);
  if (!issued) throw new AdminError(`user "${user.username}" changed meanwhile: nothing was issued`);
  logAdminAction(ctx, 'admin.user.reset_link', { userId: user.id, sent: send });
  return send ? { user: summary(user) } : { user: summary(user), url: issued.url };
}

/**
 * Mails an invitation to create an account with `email` (SIGNUP=invite or open): a link valid
 * SIGNUP_VERIFICATION_TTL_SECONDS, once, to a form with the address fixed; following it verifies the address.
 */
export async function inviteUser(ctx: AdminContext, email: string): Promise<void> {
  if (ctx.config.signup.mode === 'off') throw new AdminError('sign-up is off (SIGNUP=off): set SIGNUP=invite for invitations to work');
  if (!isEmailAddress(email)) throw new AdminError(`"${email}" is not an email address`);
  if (await findUserByEmail(ctx.db, email)) throw new AdminError(`an account with the address "${email}" exists already`);
  await inviteByEmail(ctx, email);
  logAdminAction(ctx, 'admin.user.invited', {});
}

export interface DisabledUser extends DisabledUserRow {
  user: UserSummary;
}

/**
 * Disables the user: no sign-in, no token, no userinfo from now on; their sessions end (with back-channel
 * logouts queued) and everything issued to them is revoked, in one statement (storage/users.ts disableUserRow).
 * Disabling a disabled user again changes nothing but ends anything that might still be live.
 */
export async function disableUser(ctx: AdminContext, ref: string): Promise<DisabledUser> {
  const user = await findUserByRef(ctx.db, ref);
  const done = await ctx.db.transaction().execute(async (trx: Db) => {
    const row = await disableUserRow(trx, user.id, ctx.clock());
    if (!row) throw new AdminError(`no user "${ref}"`);
    if (!row.alreadyDisabled) await emitUserEvent(ctx, trx, 'user.updated', user, { changes: ['disabled'], via: 'admin' });
    await emitSessionsEnded(ctx, trx, user.id, 'user_disabled', { count: row.sessionsEnded });
    return row;
  });
  const { disabledAt: _at, ...counts } = done;
  logAdminAction(ctx, 'admin.user.disabled', { userId: user.id, ...counts });
  return { ...done, user: { ...summary(user), disabledAt: done.disabledAt } };
}

/** Lets a disabled user sign in again; what was revoked when they were disabled stays revoked. */
export async function enableUser(ctx: AdminContext, ref: string): Promise<{ user: UserSummary; changed: boolean }> {
  const user = await findUserByRef(ctx.db, ref);
  const changed = await ctx.db.transaction().execute(async (trx: Db) => {
    const enabled = await enableUserRow(trx, user.id);
    if (enabled) await emitUserEvent(ctx, trx, 'user.updated', user, { changes: ['enabled'], via: 'admin' });
    return enabled;
  });
  if (changed) logAdminAction(ctx, 'admin.user.enabled', { userId: user.id });
  return { user: { ...summary(user), disabledAt: null }, changed };
}

export interface DeletedUser {
  user: UserSummary;
  sessionsEnded: number;
  logoutsQueued: number;
}

/**
 * Deletes the user and everything of theirs (sessions, codes, tokens, consents, devices, authenticator app: the
 * foreign keys cascade). Their live sessions are ended first, in the same transaction, so that the clients they
 * signed in to are told by back-channel logout. Stored security events stay, without the user.
 */
export async function deleteUser(ctx: AdminContext, ref: string): Promise<DeletedUser> {
  const user = await findUserByRef(ctx.db, ref);
  const ended = await ctx.db.transaction().execute(async (trx: Db) => {
    const sessions = await endUserSessions(trx, user.id, ctx.clock());
    if (!(await deleteUserRow(trx, user.id))) throw new AdminError(`no user "${ref}"`);
    await emitSessionsEnded(ctx, trx, user.id, 'user_deleted', { sids: sessions.endedSids });
    await emitUserEvent(ctx, trx, 'user.deleted', user, { via: 'admin' });
    return sessions;
  });
  logAdminAction(ctx, 'admin.user.deleted', { userId: user.id, sessionsEnded: ended.endedSids.length, logoutsQueued: ended.queued });
  return { user: summary(user), sessionsEnded: ended.endedSids.length, logoutsQueued: ended.queued };
}

export async function listSessions(ctx: AdminContext, ref: string): Promise<{ user: UserSummary; sessions: LiveSessionRow[] }> {
  const user = await findUserByRef(ctx.db, ref);
  return { user: summary(user), sessions: await listLiveUserSessions(ctx.db, user.id, ctx.clock()) };
}

export interface RevokedSessions {
  user: UserSummary;
  endedSids: string[];
  logoutsQueued: number;
}

/**
 * Signs the user out everywhere: every live session ends and its clients are told by back-channel logout, as at a
 * logout. Tokens already issued are left alone (disable the user, or revoke devices, to revoke them too).
 */
export async function revokeSessions(ctx: AdminContext, ref: string): Promise<RevokedSessions> {
  const user = await findUserByRef(ctx.db, ref);
  const ended = await ctx.db.transaction().execute(async (trx: Db) => {
    const done = await endUserSessions(trx, user.id, ctx.clock());
    await emitSessionsEnded(ctx, trx, user.id, 'revoked', { sids: done.endedSids });
    return done;
  });
  logAdminAction(ctx, 'admin.sessions.revoked', { userId: user.id, sessionsEnded: ended.endedSids.length, logoutsQueued: ended.queued });
  return { user: summary(user), endedSids: ended.endedSids, logoutsQueued: ended.queued };
}

export async function listUserDevices(ctx: AdminContext, ref: string): Promise<{ user: UserSummary; devices: AccountDevice[] }> {
  const user = await findUserByRef(ctx.db, ref);
  return { user: summary(user), devices: await listDevices(ctx, user.id, { deviceId: null, deviceCookie: undefined }) };
}

/**
 * Revokes one device of the user (`deviceId`), or every device they have, in one transaction: as on the account
 * page, each device's sessions end (back-channel logouts queued) and the tokens issued through them are revoked.
 */
export async function revokeUserDevices(
  ctx: AdminContext,
  ref: string,
  deviceId?: string,
): Promise<{ user: UserSummary; revoked: RevokedDevice[] }> {
  const user = await findUserByRef(ctx.db, ref);
  const revoked = await ctx.db.transaction().execute(async (trx: Db) => {
    const ids = deviceId === undefined ? (await listLiveDevices(trx, user.id)).map((d) => d.id) : [deviceId];
    const done: RevokedDevice[] = [];
    for (const id of ids) {
      const one = await revokeDeviceIn(ctx, trx, user.id, id);
      if (!one) throw new AdminError(`user "${user.username}" has no device "${id}" that is not revoked (devices list shows them)`);
      done.push(one);
    }
    return done;
  });
  for (const d of revoked) {
    logAdminAction(ctx, 'admin.device.revoked', {
      userId: user.id,
      deviceId: d.id,
      sessionsEnded: d.endedSids.length,
      logoutsQueued: d.logoutsQueued,
    });
  }
  return { user: summary(user), revoked };
}

/** The console roles (issue 20): admin may do everything, auditor may read only; `none` takes a role away. */
export const ADMIN_ROLES = ['admin', 'auditor', 'none'] as const;
export type AdminRoleChoice = (typeof ADMIN_ROLES)[number];

export function isAdminRoleChoice(value: unknown): value is AdminRoleChoice {
  return typeof value === 'string' && (ADMIN_ROLES as readonly string[]).includes(value);
}

/** The user's console role, `none` when they have none. */
export async function roleOf(ctx: AdminContext, ref: string): Promise<{ user: UserSummary; role: AdminRoleChoice }> {
  const user = await findUserByRef(ctx.db, ref);
  return { user: summary(user), role: (await findUserRole(ctx.db, user.id)) ?? 'none' };
}

/** Gives the user a console role, or takes theirs away (`none`); `changed` is false when they had it already. */
export async function setRole(
  ctx: AdminContext,
  ref: string,
  role: AdminRoleChoice,
): Promise<{ user: UserSummary; role: AdminRoleChoice; previous: AdminRoleChoice; changed: boolean }> {
  if (!isAdminRoleChoice(role)) throw new AdminError(`"${String(role)}" is not a role (${ADMIN_ROLES.join(', ')})`);
  const user = await findUserByRef(ctx.db, ref);
  const previous = (await findUserRole(ctx.db, user.id)) ?? 'none';
  if (previous === role) return { user: summary(user), role, previous, changed: false };
  await replaceUserRole(ctx.db, user.id, role === 'none' ? null : role, ctx.clock());
  logAdminAction(ctx, 'admin.user.role_set', { userId: user.id, role, previous });
  return { user: summary(user), role, previous, changed: true };
}
