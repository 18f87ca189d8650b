// Repository for the challenges of passkey ceremonies: one live challenge per browser binding and purpose, used once.
import type { Db } from './database.js';
import type { PasskeyChallengesTable } from './schema.js';

export type PasskeyPurpose = PasskeyChallengesTable['purpose'];

export interface NewPasskeyChallenge {
  bindingHash: string;
  purpose: PasskeyPurpose;
  challengeHash: string;
  userId: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** Stores a challenge for the binding, replacing the one it had for the same purpose (used or not). */
export async function savePasskeyChallenge(db: Db, c: NewPasskeyChallenge): Promise<void> {
  const values = {
    challenge_hash: c.challengeHash,
    user_id: c.userId,
    created_at: c.createdAt,
    expires_at: c.expiresAt,
    consumed_at: null,
  };
  await db
    .insertInto('passkey_challenges')
    .values({ binding_hash: c.bindingHash, purpose: c.purpose, ...values })
    .onConflict((oc) => oc.columns(['binding_hash', 'purpose']).doUpdateSet(values))
    .execute();
}

/**
 * Uses the challenge up, in one statement: true only for a live, unused challenge of this binding, purpose and
 * (for a registration) user. A second use, another browser's binding or an expired challenge finds nothing.
 */
export async function consumePasskeyChallenge(
  db: Db,
  c: { bindingHash: string; purpose: PasskeyPurpose; challengeHash: string; userId: string | null; now: Date },
): Promise<boolean> {
  let query = db
    .updateTable('passkey_challenges')
    .set({ consumed_at: c.now })
    .where('binding_hash', '=', c.bindingHash)
    .where('purpose', '=', c.purpose)
    .where('challenge_hash', '=', c.challengeHash)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', c.now);
  query = c.userId === null ? query.where('user_id', 'is', null) : query.where('user_id', '=', c.userId);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
