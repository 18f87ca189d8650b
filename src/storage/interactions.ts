// Repository for pending authorization requests that wait on the user (sign-in, consent).
import type { Db } from './database.js';
import type { InteractionRow } from './schema.js';

export interface NewInteraction {
  id: string;
  bindingHash: string;
  clientId: string;
  request: Record<string, unknown>;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertInteraction(db: Db, i: NewInteraction): Promise<void> {
  await db
    .insertInto('interactions')
    .values({
      id: i.id,
      binding_hash: i.bindingHash,
      client_id: i.clientId,
      request: JSON.stringify(i.request),
      created_at: i.createdAt,
      expires_at: i.expiresAt,
    })
    .execute();
}

export function findInteraction(db: Db, id: string): Promise<InteractionRow | undefined> {
  return db.selectFrom('interactions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Marks the interaction done; false when another request completed it first. */
export async function completeInteraction(db: Db, id: string, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('interactions')
    .set({ completed_at: now })
    .where('id', '=', id)
    .where('completed_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
