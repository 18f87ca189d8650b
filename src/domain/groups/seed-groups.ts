// The seed file's `groups` section (issue 20) and its users' `role`: checked with the rest of the file, applied in
// its transaction. Groups missing from the file are left alone (sso-admin groups remove deletes one).
import { randomUUID } from 'node:crypto';
import type { Db } from '../../storage/database.js';
import {
  findGroupByName,
  findUserRole,
  insertGroupIfAbsent,
  replaceMembers,
  replaceUserRole,
  updateGroupRow,
} from '../../storage/groups.js';
import { findUserByUsername } from '../../storage/users.js';
import type { AdminRoleChoice } from '../user-entry.js';
import { groupDescriptionProblem, groupNameProblem } from './group-names.js';

/** One group: its name, a description, and (when given) exactly its members, by username. */
export interface SeedGroup {
  name: string;
  description?: string | null;
  /** Usernames (any case); absent leaves the members alone, a list makes them exactly these. */
  members?: string[];
}

interface SeedCounts {
  created: number;
  updated: number;
  unchanged: number;
}

const FIELDS = ['name', 'description', 'members'];

/** `groups`: entries checked like `sso-admin groups add`, names unique in any case. Their members are found when applied. */
export function checkGroups(raw: unknown, problems: string[]): SeedGroup[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) {
    problems.push('"groups" must be an array');
    return undefined;
  }
  const seen = new Set<string>();
  raw.forEach((entry: unknown, i) => {
    const where = `groups[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`${where} must be an object`);
      return;
    }
    const g = entry as Record<string, unknown>;
    for (const key of Object.keys(g)) if (!FIELDS.includes(key)) problems.push(`${where}: unknown field "${key}"`);
    for (const problem of [groupNameProblem(g.name), groupDescriptionProblem(g.description)])
      if (problem) problems.push(`${where}: ${problem}`);
    if (g.members !== undefined && !(Array.isArray(g.members) && g.members.every((m) => typeof m === 'string' && m.length > 0)))
      problems.push(`${where}: members must be a list of usernames`);
    if (typeof g.name === 'string') {
      if (seen.has(g.name.toLowerCase())) problems.push(`group "${g.name}" appears more than once`);
      seen.add(g.name.toLowerCase());
    }
  });
  return raw as SeedGroup[];
}

/**
 * Stores each group (a name matched in any case takes the file's spelling) and, when listed, exactly its members.
 * `problems` lists the members no user has: the caller then refuses the file (and rolls its transaction back).
 */
export async function seedGroups(db: Db, groups: readonly SeedGroup[], now: Date): Promise<{ counts: SeedCounts; problems: string[] }> {
  const counts: SeedCounts = { created: 0, updated: 0, unchanged: 0 };
  const problems: string[] = [];
  for (const entry of groups) {
    const description = entry.description ?? null;
    const existing = await findGroupByName(db, entry.name);
    let id: string;
    let changed = false;
    if (!existing) {
      id = randomUUID();
      await insertGroupIfAbsent(db, { id, name: entry.name, description, created_at: now, updated_at: now });
    } else {
      id = existing.id;
      changed = existing.name !== entry.name || existing.description !== description;
      if (changed) await updateGroupRow(db, id, { name: entry.name, description, updated_at: now });
    }
    if (entry.members !== undefined) {
      const userIds: string[] = [];
      for (const username of entry.members) {
        const user = await findUserByUsername(db, username);
        if (user) userIds.push(user.id);
        else problems.push(`group "${entry.name}": members names no user "${username}" (of the file or stored)`);
      }
      const { added, removed } = await replaceMembers(db, id, [...new Set(userIds)], now);
      changed ||= added + removed > 0;
    }
    if (!existing) counts.created += 1;
    else if (changed) counts.updated += 1;
    else counts.unchanged += 1;
  }
  return { counts, problems };
}

/** Gives the user the seed file's role (`none`: no role); true when that changed it. */
export async function seedUserRole(db: Db, userId: string, role: AdminRoleChoice, now: Date): Promise<boolean> {
  const before = (await findUserRole(db, userId)) ?? 'none';
  if (before === role) return false;
  await replaceUserRole(db, userId, role === 'none' ? null : role, now);
  return true;
}
