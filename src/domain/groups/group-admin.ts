// Managing groups of users by hand (issue 20): create, rename, describe, delete, and their members; for the command
// line and the management API alike. The `groups` scope releases a user's group names (src/domain/accounts/users.ts
// groupsOf); a client may be limited to the members of some groups (src/domain/groups/allowed-groups.ts).
import { randomUUID } from 'node:crypto';
import { isUniqueViolation } from '../../storage/database-errors.js';
import {
  deleteGroupRow,
  deleteMember,
  findGroupById,
  findGroupByName,
  groupNamesOfUser,
  insertGroupIfAbsent,
  insertMember,
  clientsLimitedToGroup,
  listGroupRows,
  listMemberRows,
  updateGroupRow,
  type GroupMemberRow,
} from '../../storage/groups.js';
import type { Db } from '../../storage/database.js';
import { findUserByEmail, findUserByUsername } from '../../storage/users.js';
import type { GroupRow } from '../../storage/schema.js';
import { findUserByRef, inAdminTransaction, logAdminAction, type AdminContext } from '../admin/admin.js';
import { AdminError } from '../admin-error.js';
import { groupDescriptionProblem, groupNameProblem } from './group-names.js';

export interface GroupSummary {
  id: string;
  name: string;
  description: string | null;
  members: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface GroupMember {
  id: string;
  username: string;
  email: string | null;
  addedAt: Date;
}

export interface GroupInput {
  name: string;
  description?: string | null | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Refuses a group the seed file would refuse; for checking a command line before the database opens. */
export function checkGroupInput(input: Partial<GroupInput>): void {
  const problems = [...(input.name === undefined ? [] : [groupNameProblem(input.name)]), groupDescriptionProblem(input.description)].filter(
    (p): p is string => p !== undefined,
  );
  if (problems.length > 0) throw new AdminError(`the group was refused: ${problems.join('; ')}`);
}

const summary = (row: GroupRow, members: number): GroupSummary => ({
  id: row.id,
  name: row.name,
  description: row.description,
  members,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The group named by `ref`: its id, or else its name (any case). */
export async function findGroupByRef(db: Db, ref: string): Promise<GroupRow> {
  const group = (UUID.test(ref) ? await findGroupById(db, ref) : undefined) ?? (await findGroupByName(db, ref));
  if (!group) throw new AdminError(`no group "${ref}" (give a group id or name)`, 'not_found');
  return group;
}

const taken = (name: string) => new AdminError(`a group named "${name}" exists already (names are unique, in any case)`, 'conflict');

/** Every group, by name, with its number of members. */
export async function listGroups(ctx: AdminContext): Promise<GroupSummary[]> {
  return (await listGroupRows(ctx.db)).map((row) => summary(row, row.members));
}

export async function showGroup(ctx: AdminContext, ref: string): Promise<GroupSummary> {
  const row = await findGroupByRef(ctx.db, ref);
  return summary(row, (await listMemberRows(ctx.db, row.id)).length);
}

export async function createGroup(ctx: AdminContext, input: GroupInput): Promise<GroupSummary> {
  checkGroupInput(input);
  const now = ctx.clock();
  const row: GroupRow = { id: randomUUID(), name: input.name, description: input.description ?? null, created_at: now, updated_at: now };
  await inAdminTransaction(ctx, async (trx) => {
    if (!(await insertGroupIfAbsent(trx, row))) throw taken(input.name);
    await logAdminAction(ctx, trx, {
      event: 'admin.group.created',
      target: { type: 'group', id: row.id },
      changes: { name: row.name, description: row.description },
      log: { groupId: row.id, name: row.name },
    });
  });
  return summary(row, 0);
}

/**
 * Renames the group or changes its description (null removes it). A new name is what the `groups` claim says from
 * the next token on; clients limited to the group stay limited to it (they name it by id).
 */
export async function updateGroup(
  ctx: AdminContext,
  ref: string,
  changes: { name?: string | undefined; description?: string | null | undefined },
): Promise<{ group: GroupSummary; changed: string[] }> {
  checkGroupInput(changes);
  const current = await findGroupByRef(ctx.db, ref);
  const set: { name?: string; description?: string | null } = {};
  if (changes.name !== undefined && changes.name !== current.name) set.name = changes.name;
  if (changes.description !== undefined && changes.description !== current.description) set.description = changes.description;
  const changed = Object.keys(set).sort();
  if (changed.length === 0) return { group: await showGroup(ctx, current.id), changed };
  let row: GroupRow | undefined;
  try {
    row = await inAdminTransaction(ctx, async (trx) => {
      const updated = await updateGroupRow(trx, current.id, { ...set, updated_at: ctx.clock() });
      if (!updated) throw new AdminError(`no group "${ref}"`, 'not_found');
      await logAdminAction(ctx, trx, {
        event: 'admin.group.updated',
        target: { type: 'group', id: updated.id },
        changes: set,
        log: { groupId: updated.id, fields: changed },
      });
      return updated;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw taken(set.name ?? current.name);
    throw err;
  }
  return { group: await showGroup(ctx, row.id), changed };
}

/**
 * Deletes the group with its memberships. A client limited to it stays limited to its other groups, or, with none
 * left, admits nobody until an admin changes its allowed groups (the limit fails closed).
 */
export async function deleteGroup(ctx: AdminContext, ref: string): Promise<GroupSummary> {
  const group = await showGroup(ctx, ref);
  await inAdminTransaction(ctx, async (trx) => {
    if (!(await deleteGroupRow(trx, group.id))) throw new AdminError(`no group "${ref}"`, 'not_found');
    await logAdminAction(ctx, trx, {
      event: 'admin.group.deleted',
      target: { type: 'group', id: group.id },
      changes: { name: group.name },
      log: { groupId: group.id, members: group.members },
    });
  });
  return group;
}

const member = (row: GroupMemberRow): GroupMember => ({ id: row.id, username: row.username, email: row.email, addedAt: row.added_at });

export async function listMembers(ctx: AdminContext, ref: string): Promise<{ group: GroupSummary; members: GroupMember[] }> {
  const row = await findGroupByRef(ctx.db, ref);
  const members = (await listMemberRows(ctx.db, row.id)).map(member);
  return { group: summary(row, members.length), members };
}

/** The ids of the clients limited to the group (and perhaps to others): only members of those groups sign in to them. */
export async function clientsLimitedTo(ctx: AdminContext, ref: string): Promise<string[]> {
  return clientsLimitedToGroup(ctx.db, (await findGroupByRef(ctx.db, ref)).id);
}

/** Adds the user to the group, or removes them; false when they already were (or were not) a member: nothing written. */
async function changeMembership(ctx: AdminContext, groupRef: string, userRef: string, change: 'add' | 'remove') {
  const group = await findGroupByRef(ctx.db, groupRef);
  const user = await findUserByRef(ctx.db, userRef);
  const done = await inAdminTransaction(ctx, async (trx) => {
    const written = change === 'add' ? await insertMember(trx, group.id, user.id, ctx.clock()) : await deleteMember(trx, group.id, user.id);
    if (written)
      await logAdminAction(ctx, trx, {
        event: change === 'add' ? 'admin.group.member_added' : 'admin.group.member_removed',
        target: { type: 'group', id: group.id },
        changes: { member: user.id },
        log: { groupId: group.id, userId: user.id },
      });
    return written;
  });
  return { group: group.name, username: user.username, done };
}

/**
 * The user a person means by what they typed into the console's member form: a username (any case), else an
 * email address. Returns their id, for addMember.
 */
export async function findMemberCandidate(ctx: Pick<AdminContext, 'db'>, usernameOrEmail: string): Promise<string> {
  const typed = usernameOrEmail.trim();
  if (typed === '') throw new AdminError('give the username or email address of the user to add');
  const user = (await findUserByUsername(ctx.db, typed)) ?? (typed.includes('@') ? await findUserByEmail(ctx.db, typed) : undefined);
  if (!user) throw new AdminError(`no user has the username or email "${typed}"`, 'not_found');
  return user.id;
}

/** Adds the user to the group; `added` is false when they already were a member (nothing written). */
export async function addMember(
  ctx: AdminContext,
  groupRef: string,
  userRef: string,
): Promise<{ group: string; username: string; added: boolean }> {
  const { done, ...names } = await changeMembership(ctx, groupRef, userRef, 'add');
  return { ...names, added: done };
}

/**
 * Removes the user from the group; `removed` is false when they were not a member. What was issued to them stays
 * valid: refresh tokens are not checked against groups again (docs/groups.md).
 */
export async function removeMember(
  ctx: AdminContext,
  groupRef: string,
  userRef: string,
): Promise<{ group: string; username: string; removed: boolean }> {
  const { done, ...names } = await changeMembership(ctx, groupRef, userRef, 'remove');
  return { ...names, removed: done };
}

/** The names of the user's groups here (not those an upstream provider maps: those are in their claims). */
export async function groupsOfUser(ctx: AdminContext, userRef: string): Promise<string[]> {
  const user = await findUserByRef(ctx.db, userRef);
  return groupNamesOfUser(ctx.db, user.id);
}
