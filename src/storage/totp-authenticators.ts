// Repository for users' authenticator apps: one row per user, pending until its first code is confirmed.
import { sql } from 'kysely';
import type { Db } from './database.js';
import type { TotpAuthenticatorRow } from './schema.js';
import { writeSealedSecret, type SealedSecret } from './sealed-secret.js';

export function findAuthenticator(db: Db, userId: string): Promise<TotpAuthenticatorRow | undefined> {
  return db.selectFrom('totp_authenticators').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** The row locked until the caller's transaction ends: one code check at a time per user. */
export function lockAuthenticator(db: Db, userId: string): Promise<TotpAuthenticatorRow | undefined> {
  return db.selectFrom('totp_authenticators').selectAll().where('user_id', '=', userId).forUpdate().executeTakeFirst();
}

/**
 * Stores a new pending secret, replacing a pending one; false (and nothing written) when the user already has a
 * confirmed authenticator, which must be removed first.
 */
export async function savePendingAuthenticator(db: Db, a: { userId: string; secret: SealedSecret; now: Date }): Promise<boolean> {
  const secret = writeSealedSecret(a.secret);
  const row = await db
    .insertInto('totp_authenticators')
    .values({ user_id: a.userId, secret, created_at: a.now })
    .onConflict((oc) =>
      oc
        .column('user_id')
        .doUpdateSet({ secret, created_at: a.now, last_used_step: null, failed_attempts: 0, locked_until: null })
        .where('totp_authenticators.confirmed_at', 'is', null),
    )
    .returning('user_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** A right code: its step becomes the last used, the failures are forgotten, a pending row is confirmed. */
export async function recordCodeAccepted(db: Db, userId: string, step: number, now: Date): Promise<void> {
  await db
    .updateTable('totp_authenticators')
    .set({
      last_used_step: String(step),
      failed_attempts: 0,
      locked_until: null,
      confirmed_at: sql<Date>`coalesce(confirmed_at, ${now}::timestamptz)`,
    })
    .where('user_id', '=', userId)
    .execute();
}

/** A wrong code is counted; with `lockUntil` (the caller decides when a lock is due) no code is tried until then. */
export async function recordCodeRefused(db: Db, userId: string, lockUntil: Date | null): Promise<number> {
  const row = await db
    .updateTable('totp_authenticators')
    .set((eb) => ({
      failed_attempts: eb('failed_attempts', '+', 1),
      locked_until: sql<Date | null>`coalesce(${lockUntil}::timestamptz, locked_until)`,
    }))
    .where('user_id', '=', userId)
    .returning('failed_attempts')
    .executeTakeFirst();
  return row?.failed_attempts ?? 0;
}

export async function deleteAuthenticator(db: Db, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('totp_authenticators').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
