// Repository for directories (LDAP and Active Directory servers) and the links of the users provisioned from them.
import { sql } from 'kysely';
import type { Db } from './database.js';
import { writeFreeForm } from './json-shape.js';
import type { DirectoryLinkRow, DirectoryRow } from './schema.js';
import { writeSealedSecret, type SealedSecret } from './sealed-secret.js';

export interface DirectoryValues {
  display_name: string;
  position: number;
  enabled: boolean;
  /** Version 1 of its shapes (src/domain/directories/directories.ts): stored without `v`. */
  settings: Record<string, unknown>;
  bind_password_sealed: SealedSecret;
}

/** Every directory, in the order sign-ins search them. */
export function listDirectories(db: Db): Promise<DirectoryRow[]> {
  return db.selectFrom('directories').selectAll().orderBy('position').orderBy('id').execute();
}

export function findDirectory(db: Db, id: string): Promise<DirectoryRow | undefined> {
  return db.selectFrom('directories').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Inserts the directory, or replaces every column of the one of that id; true when it was new. */
export async function upsertDirectory(db: Db, id: string, v: DirectoryValues, now: Date): Promise<boolean> {
  const values = {
    ...v,
    settings: writeFreeForm(v.settings),
    bind_password_sealed: writeSealedSecret(v.bind_password_sealed),
    updated_at: now,
  };
  const row = await db
    .insertInto('directories')
    .values({ id, ...values, created_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet(values))
    // A row the statement inserted has no deleting transaction id yet; an updated one has.
    .returning(sql<boolean>`xmax = 0`.as('inserted'))
    .executeTakeFirstOrThrow();
  return row.inserted;
}

/** Deletes the directory and its links (the users stay, with no password they can sign in with). */
export async function deleteDirectory(db: Db, id: string): Promise<boolean> {
  const result = await db.deleteFrom('directories').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export function findLinkOfUser(db: Db, userId: string): Promise<DirectoryLinkRow | undefined> {
  return db.selectFrom('directory_links').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

export function findLink(db: Db, directoryId: string, externalId: string): Promise<DirectoryLinkRow | undefined> {
  return db
    .selectFrom('directory_links')
    .selectAll()
    .where('directory_id', '=', directoryId)
    .where('external_id', '=', externalId)
    .executeTakeFirst();
}

/** Links a user to an entry; false when the entry is linked already (a concurrent first sign-in). */
export async function insertLink(db: Db, row: DirectoryLinkRow): Promise<boolean> {
  const inserted = await db
    .insertInto('directory_links')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returning('user_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The entry's DN as last seen, and when. */
export async function touchLink(db: Db, directoryId: string, externalId: string, dn: string, now: Date): Promise<void> {
  await db
    .updateTable('directory_links')
    .set({ dn, last_synced_at: now })
    .where('directory_id', '=', directoryId)
    .where('external_id', '=', externalId)
    .execute();
}

/** How many users each directory has provisioned. */
export async function countLinks(db: Db): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('directory_links')
    .select(['directory_id', sql<string>`count(*)`.as('n')])
    .groupBy('directory_id')
    .execute();
  return new Map(rows.map((r) => [r.directory_id, Number(r.n)]));
}
