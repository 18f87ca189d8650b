// Repository for the one row that holds the salt of the key-encryption key.
import type { Db } from './database.js';
import type { KeyEncryptionRow } from './schema.js';

/** The stored salt; `candidate` is stored first when there is none yet (the first writer wins). */
export async function ensureKeyEncryptionSalt(
  db: Db,
  candidate: { kdf: string; salt: string; createdAt: Date },
): Promise<KeyEncryptionRow> {
  await db
    .insertInto('key_encryption')
    .values({ kdf: candidate.kdf, salt: candidate.salt, created_at: candidate.createdAt })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  return db.selectFrom('key_encryption').selectAll().executeTakeFirstOrThrow();
}
