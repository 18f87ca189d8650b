// Locks one row of a resource an admin changes under If-Match (src/http/admin-api/etag.ts changeIfMatch): SELECT …
// FOR UPDATE inside the change's transaction, so the ETag is compared with the row as it stays until commit, and a
// second change of the same row waits for the first and then sees it.
import { sql } from 'kysely';
import type { Db } from './database.js';

/** Each lockable table and its key column. */
const KEYS = {
  users: 'id',
  groups: 'id',
  risk_rules: 'id',
  webhook_subscriptions: 'id',
  resource_servers: 'identifier',
  connections: 'id',
  saml_service_providers: 'entity_id',
  organizations: 'id',
} as const;

export type LockableTable = keyof typeof KEYS;

/** Locks the row of `table` keyed `key` until the transaction `trx` ends; false when there is none. */
export async function lockRowForUpdate(trx: Db, table: LockableTable, key: string): Promise<boolean> {
  const { rows } = await sql<{
    locked: number;
  }>`select 1 as locked from ${sql.table(table)} where ${sql.ref(KEYS[table])} = ${key} for update`.execute(trx);
  return rows.length > 0;
}
