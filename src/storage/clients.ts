// Repository for registered clients.
import type { Db } from './database.js';
import type { ExpressionBuilder } from 'kysely';
import { sql } from 'kysely';
import type { ClientRow, Database, NewClientRow } from './schema.js';

export function findClient(db: Db, clientId: string): Promise<ClientRow | undefined> {
  return db.selectFrom('clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

/**
 * A condition for the statement that commits a decision made with a client read earlier (domain/client-cache.ts):
 * the client row still exists with that revision.
 */
export function clientUnchanged(eb: ExpressionBuilder<Database, never>, clientId: string, revision: number) {
  return eb.exists(
    eb.selectFrom('clients').select('clients.client_id').where('clients.client_id', '=', clientId).where('clients.revision', '=', revision),
  );
}

/** The client's current revision, or undefined when it is gone. */
export async function findClientRevision(db: Db, clientId: string): Promise<number | undefined> {
  const row = await db.selectFrom('clients').select('revision').where('client_id', '=', clientId).executeTakeFirst();
  return row?.revision;
}

export async function insertClient(db: Db, row: NewClientRow): Promise<void> {
  await db.insertInto('clients').values(row).execute();
}

export async function updateClient(db: Db, clientId: string, row: Omit<NewClientRow, 'client_id' | 'created_at'>): Promise<void> {
  await db.updateTable('clients').set(row).where('client_id', '=', clientId).execute();
}

/** Every registered client, by client_id. */
export function listClients(db: Db): Promise<ClientRow[]> {
  return db.selectFrom('clients').selectAll().orderBy('client_id').execute();
}

/** Inserts the client unless its client_id is taken; false when it was. */
export async function insertClientIfAbsent(db: Db, row: NewClientRow): Promise<boolean> {
  const inserted = await db
    .insertInto('clients')
    .values(row)
    .onConflict((oc) => oc.column('client_id').doNothing())
    .returning('client_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The client, its row locked until the end of the caller's transaction. */
export function findClientForUpdate(db: Db, clientId: string): Promise<ClientRow | undefined> {
  return db.selectFrom('clients').selectAll().where('client_id', '=', clientId).forUpdate().executeTakeFirst();
}

/** Replaces a confidential client's secret hash; the new revision, or undefined when there is no such client. */
export async function replaceClientSecretHash(db: Db, clientId: string, secretHash: string, now: Date): Promise<number | undefined> {
  const row = await db
    .updateTable('clients')
    .set({ client_secret_hash: secretHash, updated_at: now })
    .where('client_id', '=', clientId)
    .where('token_endpoint_auth_method', '<>', 'none')
    .returning('revision')
    .executeTakeFirst();
  return row?.revision;
}

export interface DeletedClientRow {
  /** Still usable when the client went, and gone with it (the foreign keys cascade). */
  accessTokens: number;
  refreshTokens: number;
  codes: number;
}

/**
 * Deletes the client in one statement; its codes, access and refresh tokens, consents, pending sign-ins, device
 * requests and queued logouts go with it (ON DELETE CASCADE). The counts say how many of those were still
 * usable (read in the same snapshot, before the delete). Undefined when there was no such client.
 */
export async function deleteClientRow(db: Db, clientId: string, now: Date): Promise<DeletedClientRow | undefined> {
  const { rows } = await sql<{ deleted: string; access: string; refresh: string; codes: string }>`
    WITH gone AS (DELETE FROM clients WHERE client_id = ${clientId} RETURNING client_id)
    SELECT (SELECT count(*) FROM gone) AS deleted,
           (SELECT count(*) FROM access_tokens
             WHERE client_id = ${clientId} AND revoked_at IS NULL AND expires_at > ${now}) AS access,
           (SELECT count(*) FROM refresh_tokens
             WHERE client_id = ${clientId} AND revoked_at IS NULL AND rotated_at IS NULL AND expires_at > ${now}) AS refresh,
           (SELECT count(*) FROM authorization_codes
             WHERE client_id = ${clientId} AND consumed_at IS NULL AND expires_at > ${now}) AS codes`.execute(db);
  const row = rows[0]!;
  if (Number(row.deleted) === 0) return undefined;
  return { accessTokens: Number(row.access), refreshTokens: Number(row.refresh), codes: Number(row.codes) };
}
