// Repository for the SAML signing key pairs of the provider as an identity provider, shared by every instance.
import { sql } from 'kysely';
import type { Db } from './database.js';
import type { SamlKeyRow } from './schema.js';
import { writeSealedSecret, type SealedSecret } from './sealed-secret.js';

export interface NewSamlKey {
  id: string;
  /** The sealed private key, as it is to be stored. */
  privateKey: SealedSecret;
  certificatePem: string;
  createdAt: Date;
  activatesAt: Date;
}

/** Every key, oldest activation first. */
export function listSamlKeys(db: Db): Promise<SamlKeyRow[]> {
  return db.selectFrom('saml_keys').selectAll().orderBy('activates_at').orderBy('created_at').orderBy('id').execute();
}

/** Runs `fn` in a transaction under an advisory lock, so that instances starting together make one first key. */
export function withSamlKeysLock<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('sso.saml_keys'))`.execute(trx);
    return fn(trx);
  });
}

export async function insertSamlKey(db: Db, key: NewSamlKey): Promise<void> {
  await db
    .insertInto('saml_keys')
    .values({
      id: key.id,
      private_key: writeSealedSecret(key.privateKey),
      certificate_pem: key.certificatePem,
      created_at: key.createdAt,
      activates_at: key.activatesAt,
    })
    .execute();
}
