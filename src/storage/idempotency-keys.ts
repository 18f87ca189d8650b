// Repository for the management API's Idempotency-Key records (migrations/20261128010000_admin_audit.sql): a key is
// claimed before its create runs, completed with the answer, or released when the create is refused.
import type { Db } from './database.js';
import { FREE_FORM, readVersioned, writeFreeForm, type Versioned } from './json-shape.js';

export interface IdempotencyRecord {
  request_hash: string;
  status: number | null;
  /** The answer's body, read through FREE_FORM; null while the first request runs. */
  response: Versioned<Record<string, unknown>> | null;
}

/** Claims the key for this request; false when the principal holds it already (the caller then reads it). */
export async function claimIdempotencyKey(
  db: Db,
  k: { principal: string; key: string; requestHash: string; now: Date; expiresAt: Date },
): Promise<boolean> {
  // The principal's expired keys go first, so that what one caller stores stays bounded by a day's creates; an
  // expired claim of the same key is taken over below: its answer no longer replays.
  await db.deleteFrom('admin_idempotency_keys').where('principal', '=', k.principal).where('expires_at', '<=', k.now).execute();
  const row = await db
    .insertInto('admin_idempotency_keys')
    .values({ principal: k.principal, key: k.key, request_hash: k.requestHash, created_at: k.now, expires_at: k.expiresAt })
    .onConflict((oc) =>
      oc
        .columns(['principal', 'key'])
        .doUpdateSet({ request_hash: k.requestHash, status: null, response: null, created_at: k.now, expires_at: k.expiresAt })
        .where('admin_idempotency_keys.expires_at', '<=', k.now),
    )
    .returning('key')
    .executeTakeFirst();
  return row !== undefined;
}

export async function findIdempotencyKey(db: Db, principal: string, key: string): Promise<IdempotencyRecord | undefined> {
  const row = await db
    .selectFrom('admin_idempotency_keys')
    .select(['request_hash', 'status', 'response'])
    .where('principal', '=', principal)
    .where('key', '=', key)
    .executeTakeFirst();
  return row && { ...row, response: row.response === null ? null : readVersioned(row.response, FREE_FORM) };
}

/** Stores the answer at version 1 of FREE_FORM (without `v`, as before versions were kept). */
export async function completeIdempotencyKey(
  db: Db,
  principal: string,
  key: string,
  status: number,
  response: Record<string, unknown>,
): Promise<void> {
  await db
    .updateTable('admin_idempotency_keys')
    .set({ status, response: writeFreeForm(response) })
    .where('principal', '=', principal)
    .where('key', '=', key)
    .execute();
}

export async function releaseIdempotencyKey(db: Db, principal: string, key: string): Promise<void> {
  await db
    .deleteFrom('admin_idempotency_keys')
    .where('principal', '=', principal)
    .where('key', '=', key)
    .where('status', 'is', null)
    .execute();
}
