// Repository for risk evaluation: the attempt log and its counters, the networks each user has used, admin rules,
// and the shared device secret.
import { sql } from 'kysely';
import type { Db } from './database.js';
import type { RiskRuleRow } from './schema.js';

// The early statement of a sign-in attempt lives with the other hot-path machinery (./hot-path/README.md).
export {
  FAILURES_SCANNED_PER_THRESHOLD,
  recordAttempt,
  type AttemptKeys,
  type CounterWindows,
  type EarlyFacts,
  type UserFacts,
} from './hot-path/record-attempt.js';

/** The attempt's password was never checked (a directory did not answer): it counts as no failure. */
export async function excuseAttempt(db: Db, attemptId: string): Promise<void> {
  await db.updateTable('sign_in_attempts').set({ excused: true }).where('id', '=', attemptId).execute();
}

export interface DeviceSighting {
  userId: string;
  cookieHash: string;
  fingerprint: string;
  networkKey: string;
  label: string;
  /** The user passed a second factor on this sign-in: the device becomes trusted (and stays so until revoked). */
  trusted: boolean;
  now: Date;
  /** The attempt (sign_in_attempts) that signed in from it. */
  attemptId: string;
}

/**
 * Records a sign-in from a device: a new row for a new cookie, else last seen, count, fingerprint and label
 * updated; a revoked device signing in again starts afresh. Also remembers the network, and marks the attempt as
 * succeeded: the failures of the same login before it were typos, and are excused. The attempt is found by its key
 * and those failures through the login's index of failures, never through all the login's attempts (an account that
 * signs in often has thousands). One statement. Returns the device id and whether it is new to the user.
 */
export async function recordDeviceSighting(db: Db, s: DeviceSighting): Promise<{ id: string; isNew: boolean }> {
  const { rows } = await sql<{ id: string; is_new: boolean }>`
    WITH device AS (
      INSERT INTO devices (user_id, cookie_hash, fingerprint, network_key, label, first_seen_at, last_seen_at, sign_in_count, trusted)
      VALUES (${s.userId}, ${s.cookieHash}, ${s.fingerprint}, ${s.networkKey}, ${s.label}, ${s.now}, ${s.now}, 1, ${s.trusted})
      ON CONFLICT (user_id, cookie_hash) DO UPDATE SET
        fingerprint = EXCLUDED.fingerprint,
        network_key = EXCLUDED.network_key,
        label = EXCLUDED.label,
        last_seen_at = EXCLUDED.last_seen_at,
        first_seen_at = CASE WHEN devices.revoked_at IS NULL THEN devices.first_seen_at ELSE EXCLUDED.first_seen_at END,
        sign_in_count = CASE WHEN devices.revoked_at IS NULL THEN devices.sign_in_count + 1 ELSE 1 END,
        trusted = CASE WHEN devices.revoked_at IS NULL THEN devices.trusted OR EXCLUDED.trusted ELSE EXCLUDED.trusted END,
        revoked_at = NULL
      RETURNING id, sign_in_count = 1 AS is_new
    ), network AS (
      INSERT INTO user_networks (user_id, network_key, first_seen_at, last_seen_at)
      VALUES (${s.userId}, ${s.networkKey}, ${s.now}, ${s.now})
      ON CONFLICT (user_id, network_key) DO UPDATE SET last_seen_at = EXCLUDED.last_seen_at
    ), attempt AS (
      UPDATE sign_in_attempts a SET succeeded = (a.id = t.id), excused = (a.id <> t.id)
        FROM sign_in_attempts t
       WHERE t.id = ${s.attemptId}
         AND ((a.id = t.id AND NOT a.succeeded)
           OR (a.login_key = t.login_key AND a.at <= t.at AND NOT a.succeeded AND NOT a.excused))
    )
    SELECT id, is_new FROM device`.execute(db);
  return { id: rows[0]!.id, isNew: rows[0]!.is_new };
}

/** The named shared secret, made by `generate` and stored if no instance has made it yet. */
export async function sharedSecret(db: Db, name: string, generate: () => string, now: Date): Promise<string> {
  await db
    .insertInto('server_secrets')
    .values({ name, value: generate(), created_at: now })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('server_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}

export interface NewRiskRule {
  kind: RiskRuleRow['kind'];
  value: string;
  effect: RiskRuleRow['effect'];
  note: string | null;
  createdAt: Date;
}

export async function insertRiskRule(db: Db, r: NewRiskRule): Promise<RiskRuleRow> {
  return db
    .insertInto('risk_rules')
    .values({ kind: r.kind, value: r.value, effect: r.effect, note: r.note, created_at: r.createdAt })
    .onConflict((oc) => oc.columns(['kind', 'value']).doUpdateSet({ effect: r.effect, note: r.note }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listRiskRules(db: Db): Promise<RiskRuleRow[]> {
  return db.selectFrom('risk_rules').selectAll().orderBy('created_at').execute();
}

/** A page of the rules of this kind and effect (each when given), by id: at most `limit` after `after` (keyset). */
export function pageRiskRuleRows(
  db: Db,
  filter: { kind?: string | undefined; effect?: string | undefined },
  after: string | undefined,
  limit: number,
): Promise<RiskRuleRow[]> {
  let query = db.selectFrom('risk_rules').selectAll();
  if (filter.kind !== undefined) query = query.where(sql<boolean>`kind = ${filter.kind}`);
  if (filter.effect !== undefined) query = query.where(sql<boolean>`effect = ${filter.effect}`);
  if (after !== undefined) query = query.where('id', '>', after);
  return query.orderBy('id').limit(limit).execute();
}

export async function findRiskRule(db: Db, id: string): Promise<RiskRuleRow | undefined> {
  return db.selectFrom('risk_rules').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function deleteRiskRule(db: Db, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('risk_rules')
    .where('id', '=', id as never)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
