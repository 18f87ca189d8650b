// Repository for failed sign-in counters: every change is one atomic statement, so instances never race.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from './database.js';

/** How a counted attempt sets the lock: none for the first `freeAttempts`, then `ladder[0]`, `ladder[1]`, ... seconds. */
export interface LockRule {
  freeAttempts: number;
  /** Lock lengths in seconds after the free attempts; the last one repeats. Never empty. */
  ladder: readonly number[];
}

export interface ClaimInput {
  key: string;
  now: Date;
  /** When the counter is forgotten if no further attempt is counted. */
  expiresAt: Date;
  rule: LockRule;
}

/** "Not locked": a time before any clock, so that instances whose clocks differ slightly never see a lock that is not there. */
const UNLOCKED = sql<Date>`to_timestamp(0)`;

/** When the lock earned by `count` attempts ends, as SQL: the rule's ladder indexed by the count. */
function lockedUntil(count: RawBuilder<number>, now: Date, rule: LockRule): RawBuilder<Date> {
  const ladder = `{${rule.ladder.map((s) => Math.trunc(s)).join(',')}}`;
  return sql<Date>`CASE WHEN ${count} < ${rule.freeAttempts} THEN ${UNLOCKED}
    ELSE ${now}::timestamptz + (${ladder}::integer[])[least(${count} - ${rule.freeAttempts} + 1, ${rule.ladder.length})] * interval '1 second' END`;
}

/**
 * Counts one attempt and sets the lock it would earn, unless the key is locked now: one upsert that
 * both decides and counts, so concurrent attempts (on any instance) are serialised by the row lock.
 * Returns the new count, or undefined when the key is locked (nothing is written then).
 */
export async function claimAttempt(db: Db, input: ClaimInput): Promise<number | undefined> {
  const { key, now, expiresAt, rule } = input;
  const restart = sql<boolean>`sign_in_throttle.expires_at <= ${now}`;
  const count = sql<number>`(CASE WHEN ${restart} THEN 1 ELSE sign_in_throttle.failures + 1 END)`;
  const row = await db
    .insertInto('sign_in_throttle')
    .values({
      key,
      failures: 1,
      locked_until: lockedUntil(sql<number>`1`, now, rule),
      expires_at: expiresAt,
    })
    .onConflict((oc) =>
      oc
        .column('key')
        .doUpdateSet({
          failures: count,
          locked_until: lockedUntil(count, now, rule),
          expires_at: expiresAt,
        })
        .where(sql<boolean>`sign_in_throttle.locked_until <= ${now} OR ${restart}`),
    )
    .returning('failures')
    .executeTakeFirst();
  return row?.failures;
}

/** When the key's lock ends, if it has a counter. */
export async function findLockedUntil(db: Db, key: string): Promise<Date | undefined> {
  const row = await db.selectFrom('sign_in_throttle').select('locked_until').where('key', '=', key).executeTakeFirst();
  return row?.locked_until;
}

/** Forgets the key's counter and lock. */
export async function deleteCounter(db: Db, key: string): Promise<void> {
  await db.deleteFrom('sign_in_throttle').where('key', '=', key).execute();
}

/**
 * Gives back the attempt claimed as number `count`. When no attempt was claimed since, the lock that claim set
 * is lifted too (the key was unlocked when it was claimed); otherwise only the count goes down.
 */
export async function refundAttempt(db: Db, key: string, count: number): Promise<void> {
  await db
    .updateTable('sign_in_throttle')
    .set({
      failures: sql<number>`greatest(failures - 1, 0)`,
      locked_until: sql<Date>`CASE WHEN failures = ${count} THEN ${UNLOCKED} ELSE locked_until END`,
    })
    .where('key', '=', key)
    .execute();
}
