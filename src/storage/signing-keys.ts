// Repository for the ID token signing keys, shared by every instance through the database.
import { sql } from 'kysely';
import type { Db } from './database.js';
import type { SigningKeyRow } from './schema.js';

export interface NewSigningKey {
  kid: string;
  alg: string;
  privateJwk: Record<string, unknown>;
  publicJwk: Record<string, unknown>;
  createdAt: Date;
}

export function listSigningKeys(db: Db): Promise<SigningKeyRow[]> {
  return db.selectFrom('signing_keys').selectAll().orderBy('created_at', 'desc').execute();
}

/**
 * Runs `create` for the algorithms that have no key yet, under a transaction-scoped advisory lock,
 * so that instances starting together on an empty database agree on one key per algorithm.
 */
export async function ensureSigningKeys(
  db: Db,
  algs: readonly string[],
  create: (alg: string) => Promise<NewSigningKey>,
): Promise<SigningKeyRow[]> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('sso.signing_keys'))`.execute(trx);
    const existing = await listSigningKeys(trx);
    for (const alg of algs) {
      if (existing.some((k) => k.alg === alg)) continue;
      const key = await create(alg);
      await trx
        .insertInto('signing_keys')
        .values({
          kid: key.kid,
          alg: key.alg,
          private_jwk: JSON.stringify(key.privateJwk),
          public_jwk: JSON.stringify(key.publicJwk),
          created_at: key.createdAt,
        })
        .execute();
    }
    return listSigningKeys(trx);
  });
}
