// Repository for sign-ins waiting for their second factor. The sign-in's context is stored as versioned JSON and
// read back through the shapes its owner passes in (src/domain/accounts/challenge-context.ts, src/storage/json-shape.ts):
// during a rolling restart an instance may read what another version wrote.
import { sql } from 'kysely';
import { isLocale, type Locale } from '../i18n/catalog.js';
import type { Db } from './database.js';
import { readVersioned, writeVersioned, type Versioned, type VersionedShapes } from './json-shape.js';

export interface NewChallenge<C extends object> {
  idHash: string;
  userId: string;
  /** `otp`: the code we sent, as codeHash; `totp`: the user's authenticator app, no codeHash. */
  method?: 'otp' | 'totp';
  codeHash: string | null;
  context: C;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertChallenge<C extends object>(db: Db, shapes: VersionedShapes<C>, c: NewChallenge<C>): Promise<void> {
  await db
    .insertInto('second_factor_challenges')
    .values({
      id_hash: c.idHash,
      user_id: c.userId,
      method: c.method ?? 'otp',
      code_hash: c.codeHash,
      context: writeVersioned(c.context, shapes),
      created_at: c.createdAt,
      expires_at: c.expiresAt,
    })
    .execute();
}

/** `unreadable`: the right code, but the context was written in a shape this code does not read; the challenge is used up. */
export type CodeCheck<C> =
  | { kind: 'verified'; userId: string; context: C }
  | { kind: 'unreadable'; userId: string; reason: string }
  | { kind: 'wrong-code'; userId: string; attemptsLeft: number }
  | { kind: 'dead' };

/**
 * Checks a code in one statement: a right code consumes the challenge (single use), a wrong one counts an
 * attempt; an expired, used or exhausted challenge answers `dead` and changes nothing.
 */
export async function checkChallengeCode<C>(
  db: Db,
  shapes: VersionedShapes<C>,
  idHash: string,
  codeHash: string,
  now: Date,
  maxAttempts: number,
): Promise<CodeCheck<C>> {
  const { rows } = await sql<{ user_id: string; context: unknown; right: boolean; attempts: number }>`
    UPDATE second_factor_challenges
       SET consumed_at = CASE WHEN code_hash = ${codeHash} THEN ${now}::timestamptz ELSE consumed_at END,
           attempts = CASE WHEN code_hash = ${codeHash} THEN attempts ELSE attempts + 1 END
     WHERE id_hash = ${idHash} AND method = 'otp' AND consumed_at IS NULL AND expires_at > ${now} AND attempts < ${maxAttempts}
     RETURNING user_id, context, code_hash = ${codeHash} AS right, attempts`.execute(db);
  const row = rows[0];
  if (!row) return { kind: 'dead' };
  if (!row.right) return { kind: 'wrong-code', userId: row.user_id, attemptsLeft: Math.max(0, maxAttempts - row.attempts) };
  const context = readVersioned(row.context, shapes);
  if (!context.ok) return { kind: 'unreadable', userId: row.user_id, reason: context.reason };
  return { kind: 'verified', userId: row.user_id, context: context.value };
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

/** The user and method of a live challenge; undefined when it can no longer be answered. */
export async function liveChallenge(
  db: Db,
  idHash: string,
  now: Date,
  maxAttempts: number,
): Promise<{ userId: string; method: 'otp' | 'totp'; locale: Locale | undefined } | undefined> {
  const row = await db
    .selectFrom('second_factor_challenges')
    .select(['user_id', 'method', sql<string | null>`context->>'locale'`.as('locale')])
    .where('id_hash', '=', idHash)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', maxAttempts)
    .executeTakeFirst();
  return row && { userId: row.user_id, method: row.method, locale: isLocale(row.locale) ? row.locale : undefined };
}

/**
 * Uses up a live challenge of any method in one statement (a second factor other than its code answered it); undefined
 * when it was no longer live, so that two answers cannot both finish the sign-in.
 */
export async function consumeLiveChallenge<C>(
  db: Db,
  shapes: VersionedShapes<C>,
  idHash: string,
  now: Date,
  maxAttempts: number,
): Promise<{ userId: string; context: Versioned<C> } | undefined> {
  const row = await db
    .updateTable('second_factor_challenges')
    .set({ consumed_at: now })
    .where('id_hash', '=', idHash)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', maxAttempts)
    .returning(['user_id', 'context'])
    .executeTakeFirst();
  return row && { userId: row.user_id, context: readVersioned(row.context, shapes) };
}

/** `context` is undefined (and `unreadable` says why) when it was written in a shape this code does not read. */
export type LockedChallenge<C> = { userId: string; attempts: number } & ({ context: C } | { context: undefined; unreadable: string });

/** A live authenticator-app challenge, locked until the caller's transaction ends. */
export async function lockLiveTotpChallenge<C>(
  db: Db,
  shapes: VersionedShapes<C>,
  idHash: string,
  now: Date,
  maxAttempts: number,
): Promise<LockedChallenge<C> | undefined> {
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
  const context = readVersioned(row.context, shapes);
  if (!context.ok) return { userId: row.user_id, attempts: row.attempts, context: undefined, unreadable: context.reason };
  return { userId: row.user_id, attempts: row.attempts, context: context.value };
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
