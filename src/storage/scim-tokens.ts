// Repository for long-lived SCIM tokens (migrations/20261129020000_scim_tokens.sql): kept by name, found by the
// digest of their value through its unique index, deleted when revoked.
import type { Db } from './database.js';
import type { ScimTokenRow } from './schema.js';

/** Inserts the token; false when its name is taken. */
export async function insertScimToken(db: Db, t: { name: string; tokenHash: string; now: Date; expiresAt: Date | null }): Promise<boolean> {
  const rows = await db
    .insertInto('scim_tokens')
    .values({ name: t.name, token_hash: t.tokenHash, created_at: t.now, expires_at: t.expiresAt, last_used_at: null })
    .onConflict((oc) => oc.column('name').doNothing())
    .returning('name')
    .execute();
  return rows.length === 1;
}

/** One read of the unique index on token_hash. */
export async function findScimTokenByHash(db: Db, tokenHash: string): Promise<ScimTokenRow | undefined> {
  return db.selectFrom('scim_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export async function findScimToken(db: Db, name: string): Promise<ScimTokenRow | undefined> {
  return db.selectFrom('scim_tokens').selectAll().where('name', '=', name).executeTakeFirst();
}

export async function listScimTokenRows(db: Db): Promise<ScimTokenRow[]> {
  return db.selectFrom('scim_tokens').selectAll().orderBy('name').execute();
}

/** Deletes the token; false when there was none by that name. */
export async function deleteScimToken(db: Db, name: string): Promise<boolean> {
  const result = await db.deleteFrom('scim_tokens').where('name', '=', name).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Sets last_used_at to `now` unless it is already at or after `notBefore` (two instances then write it once). */
export async function touchScimToken(db: Db, name: string, now: Date, notBefore: Date): Promise<void> {
  await db
    .updateTable('scim_tokens')
    .set({ last_used_at: now })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', notBefore)]))
    .execute();
}
