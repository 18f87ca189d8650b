// The jti values of client assertions already accepted (RFC 7523 3), until the assertion would expire.
import type { Db } from './database.js';

/** Records the assertion's jti; false (nothing written) when the client presented it before. One statement. */
export async function recordAssertionJti(db: Db, a: { clientId: string; jtiHash: string; expiresAt: Date }): Promise<boolean> {
  const row = await db
    .insertInto('client_assertion_jtis')
    .values({ client_id: a.clientId, jti_hash: a.jtiHash, expires_at: a.expiresAt })
    .onConflict((oc) => oc.columns(['client_id', 'jti_hash']).doNothing())
    .returning('jti_hash')
    .executeTakeFirst();
  return row !== undefined;
}
