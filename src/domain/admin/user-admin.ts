// Managing users by hand: create (the seed file's validation), passwords, disabling, deleting, and what a user is
// signed in with: sessions (ending them queues their back-channel logouts) and devices (src/domain/risk/devices.ts).
import { randomUUID } from 'node:crypto';
import type { Db } from '../../storage/database.js';
import { listLiveDevices } from '../../storage/devices.js';
import type { UserRow } from '../../storage/schema.js';
import { endUserSessions, listLiveUserSessions, type LiveSessionRow } from '../../storage/sessions.js';
import { consoleIdleSince } from '../console/console-sessions.js';
import {
  deleteUserRow,
  disableUserRow,
  enableUserRow,
  findUserActivity,
  findUserByEmail,
  insertUserIfAbsent,
  listUsers as listUserRows,
  pageUserRows,
  updateUser,
  type DisabledUserRow,
  type UserListFilter,
} from '../../storage/users.js';
import { findUserByRef, inAdminTransaction, logAdminAction, NOT_RECORDED, type AdminContext } from './admin.js';
import { AdminError } from '../admin-error.js';
import { listDevices, revokeDeviceIn, type AccountDevice, type RevokedDevice } from '../risk/devices.js';
import { ADMIN_ROLES, isAdminRoleChoice, userColumns, userEntryProblems, type AdminRoleChoice, type UserEntry } from '../user-entry.js';
import { PasswordPolicy, type PasswordOwner } from '../accounts/password-policy.js';
import { issueResetLink } from '../accounts/password-reset.js';
import { emitEmailChanged, endPendingEmailChanges } from '../accounts/email-change.js';
import { inviteByEmail, isEmailAddress } from '../accounts/signup.js';
import { findLinkOfUser } from '../../storage/directories.js';
import { emitSessionsEnded, emitUserEvent } from '../webhooks/emit.js';
import { findUserRole, groupNamesOfUser, replaceUserRole } from '../../storage/groups.js';
import { isUniqueViolation } from '../../storage/database-errors.js';
import { deleteAuthenticator } from '../../storage/totp-authenticators.js';
import { randomToken } from '../secrets.js';

/** A live session as the admin's lists show it. */
export type LiveSession = LiveSessionRow;

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

/** A page of the users the filter selects, by id, after the id `after` (the management API's list). */
export async function listUserPage(
  ctx: AdminContext,
  filter: UserListFilter,
  after: string | undefined,
  limit: number,
): Promise<UserSummary[]> {
  return (await pageUserRows(ctx.db, filter, after, limit)).map(summary);
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
export function checkUserEntry(entry: UserEntry, policy?: PasswordPolicy): void {
  const problems = userEntryProblems(entry, policy);
  if (problems.length > 0) throw new AdminError(`user "${entry.username}" was refused: ${problems.join('; ')}`);
}

/** Refuses a password the policy refuses (src/domain/accounts/password-policy.ts), for its owner when known. */
export function checkPassword(password: string, policy: PasswordPolicy = new PasswordPolicy(), owner: PasswordOwner = {}): void {
  const problem = policy.problem(password, owner);
  if (problem) throw new AdminError(`the password was refused: password ${problem.detail}`);
}

export async function createUser(ctx: AdminContext, entry: UserEntry): Promise<UserSummary> {
  checkUserEntry(entry, ctx.passwordPolicy);
  const columns = userColumns(entry, await ctx.passwords.hash(entry.password));
  const now = ctx.clock();
  const id = randomUUID();
  const role = entry.role === undefined || entry.role === 'none' ? null : entry.role;
  // The user, their role (an API caller may give one), its user.created webhook event and its audit record commit
  // together, or none does.
  return inAdminTransaction(ctx, async (trx) => {
    const inserted = await insertUserIfAbsent(trx, {
      id,
      ...columns,
      claims: JSON.stringify(columns.claims),
      created_at: now,
      updated_at: now,
    });
    if (!inserted) {
      const taken =
        entry.email === undefined
          ? `username "${entry.username}" is taken`
          : `username "${entry.username}" or email "${entry.email}" is taken`;
      throw new AdminError(`${taken} (usernames and emails are unique, in any case)`, 'conflict');
    }
    if (role !== null) await replaceUserRole(trx, id, role, now);
    await emitUserEvent(ctx, trx, 'user.created', { id, username: columns.username, email: columns.email }, { via: 'admin' });
    const user = summary(await findUserByRef(trx, id));
    const { password: _password, ...fields } = entry;
    await logAdminAction(ctx, trx, {
      event: 'admin.user.created',
      target: { type: 'user', id },
      changes: { ...fields, password: NOT_RECORDED },
      log: { userId: id },
    });
    return user;
  });
}

/** The user as the seed file writes them, without the password. */
function entryOf(user: UserRow): Omit<UserEntry, 'password'> {
  return {
    username: user.username,
    ...(user.email === null ? {} : { email: user.email }),
    email_verified: user.email_verified,
    ...user.claims,
  };
}

/** The same mailbox, whatever the case of its letters (addresses are unique in any case). */
const sameAddress = (a: unknown, b: unknown) =>
  typeof a === 'string' && typeof b === 'string' ? a.toLowerCase() === b.toLowerCase() : a === b;

/**
 * Changes the user's username, email or claims (a JSON Merge Patch, RFC 7396: null removes a claim), checked as
 * the seed file checks a user. The password is set apart (setPassword), never here.
 *
 * Issue 38, docs/accounts.md "Who may change an address": an address set here is not its owner's doing, so it is
 * unverified until its owner verifies it (signed in, on the account page), and no reset link or one-time code goes
 * to it until then; `email_verified: true` is refused for the same reason. The change ends the user's pending email
 * changes (a recovery), and is audited and sent as user.email_changed.
 */
export async function updateUserProfile(ctx: AdminContext, ref: string, patch: Record<string, unknown>): Promise<UserDetails> {
  for (const field of ['password', 'id'])
    if (field in patch) throw new AdminError(`${field} cannot be changed here${field === 'password' ? ' (set the password apart)' : ''}`);
  if (patch.username === null) throw new AdminError('username cannot be removed');
  const user = await findUserByRef(ctx.db, ref);
  const current = entryOf(user);
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  const addressChanged = !sameAddress(next.email ?? null, user.email);
  if (patch.email_verified === true && (addressChanged || !user.email_verified))
    throw new AdminError('email_verified cannot be set to true by an admin: the owner verifies their address on their account page');
  if (addressChanged) next.email_verified = false;
  // A stand-in password the policy accepts: only the profile is checked here.
  checkUserEntry({ ...(next as Omit<UserEntry, 'password'>), password: randomToken() } as UserEntry, ctx.passwordPolicy);
  const changed = [...new Set([...Object.keys(current), ...Object.keys(next)])]
    .filter((k) => JSON.stringify((current as Record<string, unknown>)[k]) !== JSON.stringify(next[k]))
    .sort();
  if (changed.length > 0) {
    const columns = userColumns({ ...(next as Omit<UserEntry, 'password'>), password: '' } as UserEntry, user.password_hash);
    try {
      await inAdminTransaction(ctx, async (trx) => {
        await updateUser(trx, user.id, {
          username: columns.username,
          email: columns.email,
          email_verified: columns.email_verified,
          claims: JSON.stringify(columns.claims),
          updated_at: ctx.clock(),
        });
        await emitUserEvent(ctx, trx, 'user.updated', user, { changes: changed, via: 'admin' });
        if (addressChanged) {
          await endPendingEmailChanges(ctx, trx, user.id);
          await emitEmailChanged(ctx, trx, user, { email: columns.email, previous: user.email, verified: false, via: ctx.via ?? 'admin' });
        }
        await logAdminAction(ctx, trx, {
          event: 'admin.user.updated',
          target: { type: 'user', id: user.id },
          changes: Object.fromEntries(changed.map((k) => [k, next[k] ?? null])),
          log: { userId: user.id, fields: changed },
        });
      });
    } catch (err) {
      if (isUniqueViolation(err))
        throw new AdminError('that username or email is taken (usernames and emails are unique, in any case)', 'conflict');
      throw err;
    }
  }
  return showUser(ctx, user.id);
}

/**
 * Removes the user's authenticator app (their second factor), for a person who lost it: their next sign-in asks no
 * code until they enrol again. Passkeys are sign-in methods of their own and stay. Every session of the user ends,
 * the console's too: whoever holds the lost app keeps no session made with it.
 */
export async function resetSecondFactor(ctx: AdminContext, ref: string): Promise<{ user: UserSummary; removed: boolean }> {
  const user = await findUserByRef(ctx.db, ref);
  const removed = await inAdminTransaction(ctx, async (trx) => {
    const done = await deleteAuthenticator(trx, user.id);
    if (done) await endSessionsIn(ctx, trx, user.id);
    if (done)
      await logAdminAction(ctx, trx, {
        event: 'admin.user.second_factor_reset',
        target: { type: 'user', id: user.id },
        changes: { authenticator_app: null },
        log: { userId: user.id },
      });
    return done;
  });
  return { user: summary(user), removed };
}

/**
 * A linked directory user's password is changed in their directory (src/domain/directories/), never here. Once their
 * directory is removed they are unlinked, and an admin may give them a local password.
 */
async function refuseDirectoryUser(db: Db, user: UserRow): Promise<void> {
  if (await findLinkOfUser(db, user.id))
    throw new AdminError(`the password of "${user.username}" is kept by their directory: change it there (sso-admin directories)`);
}

/**
 * Replaces the user's password, a recovery: every session of the user ends, the console's too, and so does every
 * pending email change; tokens already issued stay.
 */
export async function setPassword(ctx: AdminContext, ref: string, password: string): Promise<UserSummary> {
  const user = await findUserByRef(ctx.db, ref);
  await refuseDirectoryUser(ctx.db, user);
  checkPassword(password, ctx.passwordPolicy, user);
  const hash = await ctx.passwords.hash(password);
  await inAdminTransaction(ctx, async (trx) => {
    await updateUser(trx, user.id, { password_hash: hash, updated_at: ctx.clock() });
    await endSessionsIn(ctx, trx, user.id);
    await emitUserEvent(ctx, trx, 'user.updated', user, { changes: ['password'], via: 'admin' });
    await logAdminAction(ctx, trx, {
      event: 'admin.user.password_set',
      target: { type: 'user', id: user.id },
      changes: { password: NOT_RECORDED },
      log: { userId: user.id },
    });
  });
  return summary(user);
}

/**
 * A password reset link for the user, valid PASSWORD_RESET_TTL_SECONDS like one they ask for: mailed to their address
 * (through the outbox) when `send`, else returned for the admin to hand over. Refused for a disabled user, and, to
 * send, for a user without a verified email address.
 */
export async function resetLink(ctx: AdminContext, ref: string, send: boolean): Promise<{ user: UserSummary; url?: string }> {
  const user = await findUserByRef(ctx.db, ref);
  await refuseDirectoryUser(ctx.db, user);
  if (user.disabled_at !== null) throw new AdminError(`user "${user.username}" is disabled: enable them first`);
  if (send && !user.email) throw new AdminError(`user "${user.username}" has no email address: print the link instead`);
  // Issue 38: a reset link goes only to a verified address; one someone else set is verified by its owner first.
  if (send && !user.email_verified)
    throw new AdminError(`the address of "${user.username}" is not verified: no link is mailed to it (print the link instead)`);
  const issued = await inAdminTransaction(ctx, async (trx, tctx) => {
    const link = await issueResetLink(tctx, user.id, send);
    if (!link) throw new AdminError(`user "${user.username}" changed meanwhile: nothing was issued`, 'conflict');
    await logAdminAction(ctx, trx, {
      event: 'admin.user.reset_link',
      target: { type: 'user', id: user.id },
      changes: { reset_link: send ? 'sent' : 'handed over' },
      log: { userId: user.id, sent: send },
    });
    return link;
  });
  return send ? { user: summary(user) } : { user: summary(user), url: issued.url };
}

/**
 * Mails an invitation to create an account with `email` (SIGNUP=invite or open): a link valid
 * SIGNUP_VERIFICATION_TTL_SECONDS, once, to a form with the address fixed; following it verifies the address.
 */
export async function inviteUser(ctx: AdminContext, email: string): Promise<void> {
  if (ctx.config.signup.mode === 'off') throw new AdminError('sign-up is off (SIGNUP=off): set SIGNUP=invite for invitations to work');
  if (!isEmailAddress(email)) throw new AdminError(`"${email}" is not an email address`);
  if (await findUserByEmail(ctx.db, email)) throw new AdminError(`an account with the address "${email}" exists already`, 'conflict');
  // The invitation is written in a transaction of its own (storage/signups.ts); its record follows it.
  await inviteByEmail(ctx, email);
  await logAdminAction(ctx, ctx.db, { event: 'admin.user.invited', target: { type: 'invitation', id: email }, changes: { email } });
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
  const done = await inAdminTransaction(ctx, async (trx) => {
    const row = await disableUserRow(trx, user.id, ctx.clock());
    if (!row) throw new AdminError(`no user "${ref}"`, 'not_found');
    if (!row.alreadyDisabled) await emitUserEvent(ctx, trx, 'user.updated', user, { changes: ['disabled'], via: 'admin' });
    await emitSessionsEnded(ctx, trx, user.id, 'user_disabled', { count: row.sessionsEnded });
    const { disabledAt: _at, ...counts } = row;
    await logAdminAction(ctx, trx, {
      event: 'admin.user.disabled',
      target: { type: 'user', id: user.id },
      changes: { disabled: true },
      log: { userId: user.id, ...counts },
    });
    return row;
  });
  return { ...done, user: { ...summary(user), disabledAt: done.disabledAt } };
}

/** Lets a disabled user sign in again; what was revoked when they were disabled stays revoked. */
export async function enableUser(ctx: AdminContext, ref: string): Promise<{ user: UserSummary; changed: boolean }> {
  const user = await findUserByRef(ctx.db, ref);
  const changed = await inAdminTransaction(ctx, async (trx) => {
    const enabled = await enableUserRow(trx, user.id);
    if (enabled) await emitUserEvent(ctx, trx, 'user.updated', user, { changes: ['enabled'], via: 'admin' });
    if (enabled)
      await logAdminAction(ctx, trx, {
        event: 'admin.user.enabled',
        target: { type: 'user', id: user.id },
        changes: { disabled: false },
        log: { userId: user.id },
      });
    return enabled;
  });
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
  const ended = await inAdminTransaction(ctx, async (trx) => {
    const sessions = await endUserSessions(trx, user.id, ctx.clock());
    if (!(await deleteUserRow(trx, user.id))) throw new AdminError(`no user "${ref}"`, 'not_found');
    await emitSessionsEnded(ctx, trx, user.id, 'user_deleted', { sids: sessions.endedSids });
    await emitUserEvent(ctx, trx, 'user.deleted', user, { via: 'admin' });
    await logAdminAction(ctx, trx, {
      event: 'admin.user.deleted',
      target: { type: 'user', id: user.id },
      changes: { username: user.username },
      log: { userId: user.id, sessionsEnded: sessions.endedSids.length, logoutsQueued: sessions.queued },
    });
    return sessions;
  });
  return { user: summary(user), sessionsEnded: ended.endedSids.length, logoutsQueued: ended.queued };
}

export async function listSessions(ctx: AdminContext, ref: string): Promise<{ user: UserSummary; sessions: LiveSessionRow[] }> {
  const user = await findUserByRef(ctx.db, ref);
  return { user: summary(user), sessions: await listLiveUserSessions(ctx.db, user.id, ctx.clock(), consoleIdleSince(ctx.clock())) };
}

export interface RevokedSessions {
  user: UserSummary;
  endedSids: string[];
  logoutsQueued: number;
  consoleSessionsEnded: number;
}

/**
 * Ends every session of the user (browser and console) and every pending email change in `trx` (a recovery), with
 * its session.ended event.
 */
async function endSessionsIn(ctx: AdminContext, trx: Db, userId: string) {
  const sessions = await endUserSessions(trx, userId, ctx.clock());
  await endPendingEmailChanges(ctx, trx, userId);
  await emitSessionsEnded(ctx, trx, userId, 'revoked', { sids: sessions.endedSids });
  return sessions;
}

/**
 * Signs the user out everywhere: every live session ends and its clients are told by back-channel logout, as at a
 * logout, and every pending email change ends (a recovery: its link stops working). Tokens already issued are
 * left alone (disable the user, or revoke devices, to revoke them too).
 */
export async function revokeSessions(ctx: AdminContext, ref: string): Promise<RevokedSessions> {
  const user = await findUserByRef(ctx.db, ref);
  const ended = await inAdminTransaction(ctx, async (trx) => {
    const sessions = await endSessionsIn(ctx, trx, user.id);
    await logAdminAction(ctx, trx, {
      event: 'admin.sessions.revoked',
      target: { type: 'user', id: user.id },
      changes: { sessions_ended: sessions.endedSids.length, console_sessions_ended: sessions.consoleSessionsEnded },
      log: {
        userId: user.id,
        sessionsEnded: sessions.endedSids.length,
        logoutsQueued: sessions.queued,
        consoleSessionsEnded: sessions.consoleSessionsEnded,
      },
    });
    return sessions;
  });
  return { user: summary(user), endedSids: ended.endedSids, logoutsQueued: ended.queued, consoleSessionsEnded: ended.consoleSessionsEnded };
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
  const revoked = await inAdminTransaction(ctx, async (trx) => {
    const ids = deviceId === undefined ? (await listLiveDevices(trx, user.id)).map((d) => d.id) : [deviceId];
    const done: RevokedDevice[] = [];
    for (const id of ids) {
      const one = await revokeDeviceIn(ctx, trx, user.id, id);
      if (!one)
        throw new AdminError(`user "${user.username}" has no device "${id}" that is not revoked (devices list shows them)`, 'not_found');
      done.push(one);
      await logAdminAction(ctx, trx, {
        event: 'admin.device.revoked',
        target: { type: 'device', id: one.id },
        changes: { user_id: user.id, revoked: true },
        log: { userId: user.id, deviceId: one.id, sessionsEnded: one.endedSids.length, logoutsQueued: one.logoutsQueued },
      });
    }
    return done;
  });
  return { user: summary(user), revoked };
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
  await inAdminTransaction(ctx, async (trx) => {
    await replaceUserRole(trx, user.id, role === 'none' ? null : role, ctx.clock());
    await logAdminAction(ctx, trx, {
      event: 'admin.user.role_set',
      target: { type: 'user', id: user.id },
      changes: { role },
      log: { userId: user.id, role, previous },
    });
  });
  return { user: summary(user), role, previous, changed: true };
}
