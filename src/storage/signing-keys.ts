// Repository for the ID token signing keys, shared by every instance through the database.
import { sql } from 'kysely';
import type { Db } from './database.js';
import type { SigningKeyRow } from './schema.js';

export interface NewSigningKey {
  kid: string;
  alg: string;
  /** A clear private JWK or its encrypted envelope, as it is to be stored. */
  privateJwk: Record<string, unknown>;
  publicJwk: Record<string, unknown>;
  createdAt: Date;
  activatesAt: Date;
}

/** Every key, oldest activation first within each algorithm. */
export function listSigningKeys(db: Db): Promise<SigningKeyRow[]> {
  return db.selectFrom('signing_keys').selectAll().orderBy('alg').orderBy('activates_at').orderBy('created_at').orderBy('kid').execute();
}

/**
 * Runs `fn` in a transaction under a transaction-scoped advisory lock, so that instances starting together
 * (or a rotation running meanwhile) agree on one key per algorithm and encrypt each clear key once.
 */
export function withSigningKeysLock<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('sso.signing_keys'))`.execute(trx);
    return fn(trx);
  });
}

export async function insertSigningKey(db: Db, key: NewSigningKey): Promise<void> {
  await db
    .insertInto('signing_keys')
    .values({
      kid: key.kid,
      alg: key.alg,
      private_jwk: JSON.stringify(key.privateJwk),
      public_jwk: JSON.stringify(key.publicJwk),
      created_at: key.createdAt,
      activates_at: key.activatesAt,
    })
    .execute();
}

export async function updatePrivateJwk(db: Db, kid: string, privateJwk: Record<string, unknown>): Promise<void> {
  await db
    .updateTable('signing_keys')
    .set({ private_jwk: JSON.stringify(privateJwk) })
    .where('kid', '=', kid)
    .execute();
}
