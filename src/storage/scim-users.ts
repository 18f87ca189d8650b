// Repository for what SCIM provisioning reads and writes of users beyond users.ts: the externalId and last SCIM
// change of each (migration 20261128040000_scim.sql), and the filtered, paginated search of RFC 7644 3.4.2.
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Db } from './database.js';
import type { Database, UserRow } from './schema.js';

export type ScimUserRow = UserRow & { external_id: string | null; scim_updated_at: Date | null };

/** A comparison the domain has checked: strings compared in any case, but externalId exactly (caseExact). */
export type ScimUserTerm =
  | { field: 'userName' | 'email' | 'displayName' | 'externalId' | 'id'; op: 'eq' | 'co' | 'sw'; value: string }
  | { field: 'active'; op: 'eq'; value: boolean };

type Eb = ExpressionBuilder<Database & { s: Database['scim_users'] }, 'users' | 's'>;

/** LIKE's own characters in a value, escaped with the default escape character (backslash). */
const likeEscaped = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

function textTerm(column: Expression<string | null>, op: 'eq' | 'co' | 'sw', value: string, caseExact: boolean) {
  const left = caseExact ? sql`${column}` : sql`lower(${column})`;
  const v = caseExact ? value : value.toLowerCase();
  if (op === 'eq') return sql<SqlBool>`${left} = ${v}`;
  return sql<SqlBool>`${left} LIKE ${op === 'co' ? `%${likeEscaped(v)}%` : `${likeEscaped(v)}%`}`;
}

function termOf(eb: Eb, term: ScimUserTerm) {
  switch (term.field) {
    case 'active':
      return term.value ? eb('users.disabled_at', 'is', null) : eb('users.disabled_at', 'is not', null);
    case 'id':
      return textTerm(sql`users.id::text`, term.op, term.value, false);
    case 'userName':
      return textTerm(eb.ref('users.username'), term.op, term.value, false);
    case 'email':
      return textTerm(eb.ref('users.email'), term.op, term.value, false);
    case 'displayName':
      return textTerm(sql`users.claims->>'name'`, term.op, term.value, false);
    case 'externalId':
      return textTerm(eb.ref('s.external_id'), term.op, term.value, true);
  }
}

function selectUsers(db: Db) {
  return db
    .selectFrom('users')
    .leftJoin('scim_users as s', 's.user_id', 'users.id')
    .selectAll('users')
    .select(['s.external_id', 's.updated_at as scim_updated_at']);
}

export function findScimUser(db: Db, id: string): Promise<ScimUserRow | undefined> {
  return selectUsers(db).where('users.id', '=', id).executeTakeFirst();
}

/**
 * The users for which every term holds, ordered by creation (a stable order for startIndex), `limit` of them
 * from `offset`, and how many there are in all.
 */
export async function searchScimUsers(
  db: Db,
  terms: readonly ScimUserTerm[],
  offset: number,
  limit: number,
): Promise<{ total: number; rows: ScimUserRow[] }> {
  const where = (eb: Eb) => eb.and(terms.map((t) => termOf(eb, t)));
  const counted = await db
    .selectFrom('users')
    .leftJoin('scim_users as s', 's.user_id', 'users.id')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where(where)
    .executeTakeFirstOrThrow();
  const total = Number(counted.n);
  if (limit === 0 || offset >= total) return { total, rows: [] };
  const rows = await selectUsers(db).where(where).orderBy('users.created_at').orderBy('users.id').offset(offset).limit(limit).execute();
  return { total, rows };
}

/** Records a SCIM change of the user (and their externalId, null to remove it), in the change's transaction. */
export async function upsertScimUser(db: Db, userId: string, externalId: string | null, now: Date): Promise<void> {
  await db
    .insertInto('scim_users')
    .values({ user_id: userId, external_id: externalId, updated_at: now })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ external_id: externalId, updated_at: now }))
    .execute();
}
