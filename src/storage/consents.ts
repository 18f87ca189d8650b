// Repository for the scopes each user has granted each client.
import { sql } from 'kysely';
import type { Db } from './database.js';

export async function findConsentedScopes(db: Db, userId: string, clientId: string): Promise<string[]> {
  const row = await db
    .selectFrom('consents')
    .select('scopes')
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return row?.scopes ?? [];
}

/** Adds `scopes` to what the user has granted the client (a union, never a narrowing). */
export async function grantScopes(db: Db, userId: string, clientId: string, scopes: string[], now: Date): Promise<void> {
  await db
    .insertInto('consents')
    .values({ user_id: userId, client_id: clientId, scopes, created_at: now, updated_at: now })
    .onConflict((oc) =>
      oc.columns(['user_id', 'client_id']).doUpdateSet({
        scopes: sql<string[]>`array(select distinct s from unnest(consents.scopes || excluded.scopes) as s order by s)`,
        updated_at: now,
      }),
    )
    .execute();
}
