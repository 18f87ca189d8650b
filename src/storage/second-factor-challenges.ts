// Repository for sign-ins waiting for their second factor. The sign-in's context is stored as versioned JSON and
// checked field by field when read back (src/storage/json-shape.ts): during a rolling restart an instance may read
// what another version wrote.
import { sql } from 'kysely';
import type { DeviceIdentity } from '../domain/risk/device-identity.js';
import { RISK_ACTIONS, type Verdict, type VerdictDevice } from '../domain/risk/verdict.js';
import type { AttemptClaim } from '../domain/accounts/sign-in-throttle.js';
import { RISK_REASONS } from '../risk-reasons.js';
import { isLocale, LOCALES, type Locale } from '../i18n/catalog.js';
import type { Db } from './database.js';
import {
  arrayOf,
  boolean,
  literal,
  nullable,
  number,
  object,
  oneOf,
  optional,
  readVersioned,
  string,
  type Shape,
  type Versioned,
} from './json-shape.js';

type Claimed = Extract<AttemptClaim, { kind: 'claimed' }>;

/** What a sign-in keeps while it waits for its second factor, to be finished with once the right code comes back. */
export interface ChallengeContext {
  device: DeviceIdentity;
  verdict: Verdict;
  attemptId: string;
  /** Settled (the account's counter cleared) only when the right code comes back. */
  throttleClaim: Claimed;
  /** Where the browser goes once signed in: an issuer-local path. */
  returnTo: string;
  clientId: string | null;
  /** The language of the sign-in page, which the code page and the code's message speak too. */
  locale?: Locale | undefined;
  /** The amr of the first step (`fed` for an upstream sign-in, issue 19); absent: a password (`pwd`). */
  firstFactor?: string[] | undefined;
  /** The first step's acr (an upstream's, passed on); absent: none. */
  acr?: string | undefined;
}

/** The current shape, written with `v: 1`; rows written before versions were kept have the same fields and no `v`. */
const CONTEXT_V1: Shape<ChallengeContext> = object<ChallengeContext>({
  device: object<DeviceIdentity>({
    cookieHash: nullable(string),
    fingerprint: string,
    networkKey: string,
    deviceKey: string,
    label: string,
    automation: boolean,
    hintsMismatch: boolean,
  }),
  verdict: object<Verdict>({
    action: oneOf(RISK_ACTIONS),
    score: number,
    reasons: arrayOf(oneOf(RISK_REASONS)),
    device: object<VerdictDevice>({ id: nullable(string), label: string, known: boolean, trusted: boolean }),
  }),
  attemptId: string,
  throttleClaim: object<Claimed>({
    kind: literal('claimed'),
    accountKey: string,
    accountCount: number,
    address: nullable(object<{ key: string; count: number }>({ key: string, count: number })),
  }),
  returnTo: string,
  clientId: nullable(string),
  // Added after version 1 was first written: a row without it was started before the pages had languages.
  locale: optional(oneOf(LOCALES)),
  // Added after version 1 was first written: absent in rows of password sign-ins.
  firstFactor: optional(arrayOf(string)),
  acr: optional(string),
});

/** A stored context, or why it cannot be read (a field path, never a value). */
function readContext(stored: unknown): Versioned<ChallengeContext> {
  return readVersioned(stored, { 1: CONTEXT_V1 });
}

export interface NewChallenge {
  idHash: string;
  userId: string;
  /** `otp`: the code we sent, as codeHash; `totp`: the user's authenticator app, no codeHash. */
  method?: 'otp' | 'totp';
  codeHash: string | null;
  context: ChallengeContext;
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
      context: JSON.stringify({ v: 1, ...c.context }),
      created_at: c.createdAt,
      expires_at: c.expiresAt,
    })
    .execute();
}

/** `unreadable`: the right code, but the context was written in a shape this code does not read; the challenge is used up. */
export type CodeCheck =
  | { kind: 'verified'; userId: string; context: ChallengeContext }
  | { kind: 'unreadable'; userId: string; reason: string }
  | { kind: 'wrong-code'; userId: string; attemptsLeft: number }
  | { kind: 'dead' };

/**
 * Checks a code in one statement: a right code consumes the challenge (single use), a wrong one counts an
 * attempt; an expired, used or exhausted challenge answers `dead` and changes nothing.
 */
export async function checkChallengeCode(db: Db, idHash: string, codeHash: string, now: Date, maxAttempts: number): Promise<CodeCheck> {
  const { rows } = await sql<{ user_id: string; context: unknown; right: boolean; attempts: number }>`
    UPDATE second_factor_challenges
       SET consumed_at = CASE WHEN code_hash = ${codeHash} THEN ${now}::timestamptz ELSE consumed_at END,
           attempts = CASE WHEN code_hash = ${codeHash} THEN attempts ELSE attempts + 1 END
     WHERE id_hash = ${idHash} AND method = 'otp' AND consumed_at IS NULL AND expires_at > ${now} AND attempts < ${maxAttempts}
     RETURNING user_id, context, code_hash = ${codeHash} AS right, attempts`.execute(db);
  const row = rows[0];
  if (!row) return { kind: 'dead' };
  if (!row.right) return { kind: 'wrong-code', userId: row.user_id, attemptsLeft: Math.max(0, maxAttempts - row.attempts) };
  const context = readContext(row.context);
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
export async function consumeLiveChallenge(
  db: Db,
  idHash: string,
  now: Date,
  maxAttempts: number,
): Promise<{ userId: string; context: Versioned<ChallengeContext> } | undefined> {
  const row = await db
    .updateTable('second_factor_challenges')
    .set({ consumed_at: now })
    .where('id_hash', '=', idHash)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', maxAttempts)
    .returning(['user_id', 'context'])
    .executeTakeFirst();
  return row && { userId: row.user_id, context: readContext(row.context) };
}

/** `context` is undefined (and `unreadable` says why) when it was written in a shape this code does not read. */
export type LockedChallenge = { userId: string; attempts: number } & (
  { context: ChallengeContext } | { context: undefined; unreadable: string }
);

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
  const context = readContext(row.context);
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
