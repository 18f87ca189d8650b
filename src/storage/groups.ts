// Repository for groups of users, their members, the groups a client is limited to, and users' console roles.
import { sql, type Expression, type RawBuilder } from 'kysely';
import type { Db } from './database.js';
import type { AdminRole, GroupRow } from './schema.js';

/** The most group names one user's `groups` claim carries (src/domain/accounts/users.ts MAX_GROUPS). */
const MAX_LOCAL_GROUPS = 100;

/** A group with how many members it has. */
export type GroupWithCount = GroupRow & { members: number };

/** A member as the admin lists them. */
export interface GroupMemberRow {
  id: string;
  username: string;
  email: string | null;
  added_at: Date;
}

export function listGroupRows(db: Db): Promise<GroupWithCount[]> {
  return db
    .selectFrom('groups as g')
    .selectAll('g')
    .select(sql<number>`(SELECT count(*)::int FROM group_members m WHERE m.group_id = g.id)`.as('members'))
    .orderBy(sql`lower(g.name)`)
    .execute();
}

/** The group of this name, in any case. */
export function findGroupByName(db: Db, name: string): Promise<GroupRow | undefined> {
  return db
    .selectFrom('groups')
    .selectAll()
    .where(sql`lower(name)`, '=', name.toLowerCase())
    .executeTakeFirst();
}

export function findGroupById(db: Db, id: string): Promise<GroupRow | undefined> {
  return db.selectFrom('groups').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The groups of these names (any case), whichever exist. */
export function findGroupsByNames(db: Db, names: readonly string[]): Promise<GroupRow[]> {
  if (names.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('groups')
    .selectAll()
    .where(
      sql`lower(name)`,
      'in',
      names.map((n) => n.toLowerCase()),
    )
    .execute();
}

/** Inserts the group unless its name is taken (in any case); false when it was. */
export async function insertGroupIfAbsent(db: Db, row: GroupRow): Promise<boolean> {
  const inserted = await db
    .insertInto('groups')
    .values(row)
    .onConflict((oc) => oc.expression(sql`lower(name)`).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Changes the name or description; undefined when there is no such group. A taken name throws a unique violation. */
export function updateGroupRow(
  db: Db,
  id: string,
  changes: { name?: string; description?: string | null; updated_at: Date },
): Promise<GroupRow | undefined> {
  return db.updateTable('groups').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Deletes the group; its memberships and client limits go with it (ON DELETE CASCADE). False when there was none. */
export async function deleteGroupRow(db: Db, id: string): Promise<boolean> {
  return (await db.deleteFrom('groups').where('id', '=', id).returning('id').executeTakeFirst()) !== undefined;
}

/** Adds the user to the group; false when they already were a member. */
export async function insertMember(db: Db, groupId: string, userId: string, now: Date): Promise<boolean> {
  const row = await db
    .insertInto('group_members')
    .values({ group_id: groupId, user_id: userId, added_at: now })
    .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
    .returning('user_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Removes the user from the group; false when they were not a member. */
export async function deleteMember(db: Db, groupId: string, userId: string): Promise<boolean> {
  const row = await db
    .deleteFrom('group_members')
    .where('group_id', '=', groupId)
    .where('user_id', '=', userId)
    .returning('user_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Makes the members exactly these users; counts who was added and removed. */
export async function replaceMembers(
  db: Db,
  groupId: string,
  userIds: readonly string[],
  now: Date,
): Promise<{ added: number; removed: number }> {
  const removed = await db
    .deleteFrom('group_members')
    .where('group_id', '=', groupId)
    .$if(userIds.length > 0, (qb) => qb.where('user_id', 'not in', userIds))
    .returning('user_id')
    .execute();
  let added = 0;
  for (const userId of userIds) if (await insertMember(db, groupId, userId, now)) added += 1;
  return { added, removed: removed.length };
}

export function listMemberRows(db: Db, groupId: string): Promise<GroupMemberRow[]> {
  return db
    .selectFrom('group_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.username', 'u.email', 'm.added_at'])
    .where('m.group_id', '=', groupId)
    .orderBy(sql`lower(u.username)`)
    .execute();
}

/** The names of the user's local groups, by name. */
export async function groupNamesOfUser(db: Db, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('group_members as m')
    .innerJoin('groups as g', 'g.id', 'm.group_id')
    .select('g.name')
    .where('m.user_id', '=', userId)
    .orderBy(sql`lower(g.name)`)
    .execute();
  return rows.map((r) => r.name);
}

/** The names of the groups a client is limited to, by name. */
export async function allowedGroupNames(db: Db, clientId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('client_allowed_groups as a')
    .innerJoin('groups as g', 'g.id', 'a.group_id')
    .select('g.name')
    .where('a.client_id', '=', clientId)
    .orderBy(sql`lower(g.name)`)
    .execute();
  return rows.map((r) => r.name);
}

/** The ids of the clients limited to the group (among others, perhaps), by id. */
export async function clientsLimitedToGroup(db: Db, groupId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('client_allowed_groups')
    .select('client_id')
    .where('group_id', '=', groupId)
    .orderBy('client_id')
    .execute();
  return rows.map((r) => r.client_id);
}

/**
 * Limits the client to exactly these groups (none: no limit), marking it restricted or not in the same statement
 * as its other columns are written by the caller; here only the rows naming the groups change.
 */
export async function replaceAllowedGroups(db: Db, clientId: string, groupIds: readonly string[]): Promise<void> {
  await db
    .deleteFrom('client_allowed_groups')
    .where('client_id', '=', clientId)
    .$if(groupIds.length > 0, (qb) => qb.where('group_id', 'not in', groupIds))
    .execute();
  if (groupIds.length === 0) return;
  await db
    .insertInto('client_allowed_groups')
    .values(groupIds.map((groupId) => ({ client_id: clientId, group_id: groupId })))
    .onConflict((oc) => oc.columns(['client_id', 'group_id']).doNothing())
    .execute();
}

/**
 * The names of a user's local groups as a text[] expression, in the statement that reads the user, evaluated only
 * when `scope` (a space-delimited scope column) holds `groups`: PostgreSQL evaluates a CASE branch only when it is
 * taken, and the branch is one call of user_local_group_names (migrations/20261129030100_user_group_names_function.sql),
 * not a subquery whose join every execution would set up. NULL without the scope.
 */
export function localGroupNames(scope: Expression<string>, userId: Expression<string | null>): RawBuilder<string[] | null> {
  return sql<string[] | null>`CASE WHEN 'groups' = ANY(string_to_array(${scope}, ' '))
    THEN user_local_group_names(${userId}, ${sql.lit(MAX_LOCAL_GROUPS)}) END`;
}

/**
 * Whether the client admits the user: one of the groups it is limited to has the user as a member, or bears the
 * name (any case) of a group their upstream provider or directory mapped (users.claims.groups).
 */
export function clientAdmitsUser(
  clientId: Expression<string>,
  userId: Expression<string>,
  claims: Expression<unknown>,
): RawBuilder<boolean> {
  return sql<boolean>`EXISTS (
    SELECT 1 FROM client_allowed_groups a JOIN groups g ON g.id = a.group_id
     WHERE a.client_id = ${clientId}
       AND (EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = a.group_id AND m.user_id = ${userId})
            OR lower(g.name) IN (SELECT lower(x) FROM jsonb_array_elements_text(
                 CASE WHEN jsonb_typeof(${claims} -> 'groups') = 'array' THEN ${claims} -> 'groups' ELSE '[]'::jsonb END) AS x)))`;
}

/** Whether the group-restricted client admits the user (see clientAdmitsUser); false when there is no such user. */
export async function isAdmitted(db: Db, clientId: string, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('users as u')
    .select(clientAdmitsUser(sql.val(clientId), sql.ref('u.id'), sql.ref('u.claims')).as('admitted'))
    .where('u.id', '=', userId)
    .executeTakeFirst();
  return row?.admitted === true;
}

export async function findUserRole(db: Db, userId: string): Promise<AdminRole | undefined> {
  return (await db.selectFrom('user_roles').select('role').where('user_id', '=', userId).executeTakeFirst())?.role;
}

/** Gives the user the role, or takes their role away (null); returns the role they had. */
export async function replaceUserRole(db: Db, userId: string, role: AdminRole | null, now: Date): Promise<AdminRole | undefined> {
  const before = await findUserRole(db, userId);
  if (role === null) await db.deleteFrom('user_roles').where('user_id', '=', userId).execute();
  else
    await db
      .insertInto('user_roles')
      .values({ user_id: userId, role, granted_at: now })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ role, granted_at: now }))
      .execute();
  return before;
}
