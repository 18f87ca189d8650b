// Repository for users' passkeys: one row per WebAuthn credential, found by its credential ID at sign-in.
import { sql } from 'kysely';
import type { Db } from './database.js';
import type { PasskeyRow } from './schema.js';

export interface NewPasskey {
  userId: string;
  credentialId: string;
  publicKey: Uint8Array;
  signCount: number;
  transports: readonly string[];
  name: string;
  aaguid: string;
  deviceType: 'singleDevice' | 'multiDevice';
  backedUp: boolean;
  createdAt: Date;
}

/** Stores a new credential; undefined (nothing written) when its credential ID is registered already, to anyone. */
export async function insertPasskey(db: Db, p: NewPasskey): Promise<PasskeyRow | undefined> {
  return db
    .insertInto('passkeys')
    .values({
      user_id: p.userId,
      credential_id: p.credentialId,
      public_key: p.publicKey,
      sign_count: p.signCount,
      transports: [...p.transports],
      name: p.name,
      aaguid: p.aaguid,
      device_type: p.deviceType,
      backed_up: p.backedUp,
      created_at: p.createdAt,
    })
    .onConflict((oc) => oc.column('credential_id').doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function findPasskeyByCredentialId(db: Db, credentialId: string): Promise<PasskeyRow | undefined> {
  return db.selectFrom('passkeys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
}

/** The user's passkeys, oldest first. */
export function listPasskeys(db: Db, userId: string): Promise<PasskeyRow[]> {
  return db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
}

export async function countPasskeys(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('passkeys')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The user's passkey `id`, locked until the caller's transaction ends; another user's is not found. */
export function lockPasskey(db: Db, userId: string, id: string): Promise<PasskeyRow | undefined> {
  return db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function renamePasskey(db: Db, userId: string, id: string, name: string): Promise<boolean> {
  const result = await db.updateTable('passkeys').set({ name }).where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deletePasskey(db: Db, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('passkeys').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * An accepted assertion: the new counter, the backup state and the time of use, only if the counter is still the one
 * the assertion was checked against. False when another assertion of the same credential got in first (a replay
 * racing the original): the caller refuses this one.
 */
export async function recordPasskeyUse(
  db: Db,
  u: { credentialId: string; checkedCount: number; newCount: number; backedUp: boolean; now: Date },
): Promise<boolean> {
  const result = await db
    .updateTable('passkeys')
    .set({ sign_count: u.newCount, backed_up: u.backedUp, last_used_at: u.now })
    .where('credential_id', '=', u.credentialId)
    .where(sql<boolean>`sign_count = ${u.checkedCount}`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
