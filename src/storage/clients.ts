// Repository for registered clients.
import type { Db } from './database.js';
import type { ClientRow, NewClientRow } from './schema.js';

export function findClient(db: Db, clientId: string): Promise<ClientRow | undefined> {
  return db.selectFrom('clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

export async function insertClient(db: Db, row: NewClientRow): Promise<void> {
  await db.insertInto('clients').values(row).execute();
}

export async function updateClient(db: Db, clientId: string, row: Omit<NewClientRow, 'client_id' | 'created_at'>): Promise<void> {
  await db.updateTable('clients').set(row).where('client_id', '=', clientId).execute();
}
