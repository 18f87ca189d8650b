// The jti values of DPoP proofs already accepted (RFC 9449 11.1), until they could no longer be accepted.
import type { Db } from './database.js';

/** Records the proof's jti; false (nothing written) when a proof with it was accepted before. One statement. */
export async function recordDpopJti(db: Db, jtiHash: string, expiresAt: Date): Promise<boolean> {
  const row = await db
    .insertInto('dpop_proof_jtis')
    .values({ jti_hash: jtiHash, expires_at: expiresAt })
    .onConflict((oc) => oc.column('jti_hash').doNothing())
    .returning('jti_hash')
    .executeTakeFirst();
  return row !== undefined;
}
