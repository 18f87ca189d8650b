// Repository for registered clients.
import type { Db } from './database.js';
import type { ExpressionBuilder } from 'kysely';
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
