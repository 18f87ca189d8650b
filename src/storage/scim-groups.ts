// Repository for what SCIM provisioning reads of groups beyond groups.ts: the filtered, paginated search of
// RFC 7644 3.4.2 and the members of a page of groups in one statement.
import { sql, type SqlBool } from 'kysely';
import type { Db } from './database.js';
import type { GroupRow } from './schema.js';

export type ScimGroupTerm = { field: 'displayName' | 'id' | 'externalId'; op: 'eq' | 'co' | 'sw'; value: string };

/** A group as SCIM shows it: the row and the provisioning client's own identifier of it (RFC 7643 3.1 externalId). */
export type ScimGroupRow = GroupRow & { external_id: string | null };

const likeEscaped = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

function termOf(term: ScimGroupTerm) {
  // RFC 7643 3.1: externalId is caseExact; displayName and id are compared in any case.
  if (term.field === 'externalId') {
    const v = term.value;
    if (term.op === 'eq') return sql<SqlBool>`sg.external_id = ${v}`;
    return sql<SqlBool>`sg.external_id LIKE ${term.op === 'co' ? `%${likeEscaped(v)}%` : `${likeEscaped(v)}%`}`;
  }
  const left = term.field === 'id' ? sql`g.id::text` : sql`lower(g.name)`;
  const v = term.value.toLowerCase();
  if (term.op === 'eq') return sql<SqlBool>`${left} = ${v}`;
  return sql<SqlBool>`${left} LIKE ${term.op === 'co' ? `%${likeEscaped(v)}%` : `${likeEscaped(v)}%`}`;
}

/** The groups for which every term holds, by creation, `limit` of them from `offset`, and how many in all. */
export async function searchScimGroups(
  db: Db,
  terms: readonly ScimGroupTerm[],
  offset: number,
  limit: number,
): Promise<{ total: number; rows: ScimGroupRow[] }> {
  const where = sql.join(terms.map(termOf).concat(sql<SqlBool>`true`), sql` AND `);
  const counted = await db
    .selectFrom('groups as g')
    .leftJoin('scim_groups as sg', 'sg.group_id', 'g.id')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where(sql<SqlBool>`${where}`)
    .executeTakeFirstOrThrow();
  const total = Number(counted.n);
  if (limit === 0 || offset >= total) return { total, rows: [] };
  const rows = await db
    .selectFrom('groups as g')
    .leftJoin('scim_groups as sg', 'sg.group_id', 'g.id')
    .selectAll('g')
    .select('sg.external_id')
    .where(sql<SqlBool>`${where}`)
    .orderBy('g.created_at')
    .orderBy('g.id')
    .offset(offset)
    .limit(limit)
    .execute();
  return { total, rows };
}

/** The members (id and username) of each of `groupIds`, by username. */
export async function membersOfGroups(db: Db, groupIds: readonly string[]): Promise<Map<string, { id: string; username: string }[]>> {
  const out = new Map<string, { id: string; username: string }[]>(groupIds.map((id) => [id, []]));
  if (groupIds.length === 0) return out;
  const rows = await db
    .selectFrom('group_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.group_id', 'u.id', 'u.username'])
    .where('m.group_id', 'in', groupIds)
    .orderBy(sql`lower(u.username)`)
    .execute();
  for (const row of rows) out.get(row.group_id)?.push({ id: row.id, username: row.username });
  return out;
}

/** The group with its externalId, if it exists. */
export function findScimGroup(db: Db, id: string): Promise<ScimGroupRow | undefined> {
  return db
    .selectFrom('groups as g')
    .leftJoin('scim_groups as sg', 'sg.group_id', 'g.id')
    .selectAll('g')
    .select('sg.external_id')
    .where('g.id', '=', id)
    .executeTakeFirst();
}

/** Sets (or with null, clears) the group's externalId. */
export async function setScimGroupExternalId(db: Db, groupId: string, externalId: string | null): Promise<void> {
  await db
    .insertInto('scim_groups')
    .values({ group_id: groupId, external_id: externalId })
    .onConflict((oc) => oc.column('group_id').doUpdateSet({ external_id: externalId }))
    .execute();
}
