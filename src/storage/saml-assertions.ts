// Repository for the assertion IDs SAML connections have accepted (issue 39): one row per (connection, ID), kept until
// the assertion's NotOnOrAfter and purged after (purge.ts), so that a replayed assertion finds its row.
import type { Db } from './database.js';

/** Records the assertion ID as used; false when it was used before (a replay). */
export async function useAssertionId(db: Db, a: { connectionId: string; assertionId: string; expiresAt: Date }): Promise<boolean> {
  const row = await db
    .insertInto('saml_assertions')
    .values({ connection_id: a.connectionId, assertion_id: a.assertionId, expires_at: a.expiresAt })
    .onConflict((oc) => oc.columns(['connection_id', 'assertion_id']).doNothing())
    .returning('assertion_id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function countAssertionIds(db: Db, connectionId: string): Promise<number> {
  const row = await db
    .selectFrom('saml_assertions')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('connection_id', '=', connectionId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
