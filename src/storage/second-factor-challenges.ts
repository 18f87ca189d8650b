// Repository for sign-ins waiting for their second factor.
import { sql } from 'kysely';
import type { Db } from './database.js';

export interface NewChallenge {
  idHash: string;
  userId: string;
  /** `otp`: the code we sent, as codeHash; `totp`: the user's authenticator app, no codeHash. */
  method?: 'otp' | 'totp';
  codeHash: string | null;
  context: Record<string, unknown>;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertChallenge(db: Db, c: NewChallenge): Promise<void> {
  await db
    .insertInto('second_factor_challenges')
    .values({
      id_hash: c.idHash,
      user_id: c.userId,
      method: c.method ?? 'otp',
      code_hash: c.codeHash,
      context: JSON.stringify(c.context),
      created_at: c.createdAt,
      expires_at: c.expiresAt,
    })
    .execute();
}

export type CodeCheck =
  | { kind: 'verified'; userId: string; context: Record<string, unknown> }
  | { kind: 'wrong-code'; userId: string; attemptsLeft: number }
  | { kind: 'dead' };

/**
 * Checks a code in one statement: a right code consumes the challenge (single use), a wrong one counts an
 * attempt; an expired, used or exhausted challenge answers `dead` and changes nothing.
 */
export async function checkChallengeCode(db: Db, idHash: string, codeHash: string, now: Date, maxAttempts: number): Promise<CodeCheck> {
  const { rows } = await sql<{ user_id: string; context: Record<string, unknown> | string; right: boolean; attempts: number }>`
    UPDATE second_factor_challenges
       SET consumed_at = CASE WHEN code_hash = ${codeHash} THEN ${now}::timestamptz ELSE consumed_at END,
           attempts = CASE WHEN code_hash = ${codeHash} THEN attempts ELSE attempts + 1 END
     WHERE id_hash = ${idHash} AND method = 'otp' AND consumed_at IS NULL AND expires_at > ${now} AND attempts < ${maxAttempts}
     RETURNING user_id, context, code_hash = ${codeHash} AS right, attempts`.execute(db);
  const row = rows[0];
  if (!row) return { kind: 'dead' };
  if (!row.right) return { kind: 'wrong-code', userId: row.user_id, attemptsLeft: Math.max(0, maxAttempts - row.attempts) };
  const context = typeof row.context === 'string' ? (JSON.parse(row.context) as Record<string, unknown>) : row.context;
  return { kind: 'verified', userId: row.user_id, context };
}

/** Whether the challenge can still be answered (for the page that asks for the code). */
export async function challengeIsLive(db: Db, idHash: string, now: Date, maxAttempts: number): Promise<boolean> {
  const row = await db
    .selectFrom('second_factor_challenges')
    .select('id_hash')
    .where('id_hash', '=', idHash)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', maxAttempts)
    .executeTakeFirst();
  return row !== undefined;
}

/** How a live challenge is to be answered; undefined when it can no longer be. */
export async function liveChallengeMethod(db: Db, idHash: string, now: Date, maxAttempts: number): Promise<'otp' | 'totp' | undefined> {
  const row = await db
    .selectFrom('second_factor_challenges')
    .select('method')
    .where('id_hash', '=', idHash)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', maxAttempts)
    .executeTakeFirst();
  return row?.method;
}

export interface LockedChallenge {
  userId: string;
  context: Record<string, unknown>;
  attempts: number;
}

/** A live authenticator-app challenge, locked until the caller's transaction ends. */
export async function lockLiveTotpChallenge(db: Db, idHash: string, now: Date, maxAttempts: number): Promise<LockedChallenge | undefined> {
  const row = await db
    .selectFrom('second_factor_challenges')
    .select(['user_id', 'context', 'attempts'])
    .where('id_hash', '=', idHash)
    .where('method', '=', 'totp')
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', maxAttempts)
    .forUpdate()
    .executeTakeFirst();
  if (!row) return undefined;
  const context = typeof row.context === 'string' ? (JSON.parse(row.context) as Record<string, unknown>) : row.context;
  return { userId: row.user_id, context, attempts: row.attempts };
}

export async function consumeChallenge(db: Db, idHash: string, now: Date): Promise<void> {
  await db.updateTable('second_factor_challenges').set({ consumed_at: now }).where('id_hash', '=', idHash).execute();
}

/** One more wrong answer; returns the attempts made so far. */
export async function countChallengeAttempt(db: Db, idHash: string): Promise<number> {
  const row = await db
    .updateTable('second_factor_challenges')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id_hash', '=', idHash)
    .returning('attempts')
    .executeTakeFirstOrThrow();
  return row.attempts;
}
