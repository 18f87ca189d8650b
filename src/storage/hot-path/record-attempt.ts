// The early statement of a password sign-in: it records the attempt and reads every counter, rule and fact about
// the account the risk evaluation needs, in one round trip (src/domain/accounts/password-sign-in.ts). Hand-written SQL
// because no query builder expresses it more clearly; see ./README.md for why it lives here.
import { sql } from 'kysely';
import type { Db } from '../database.js';
import type { UserRow } from '../schema.js';

export interface AttemptKeys {
  /** HMAC of the normalised login under the device secret (src/domain/risk/attempt-keys.ts). */
  loginKey: string;
  deviceKey: string;
  fingerprintKey: string;
  networkKey: string;
  /** The login as typed, trimmed and lower-cased: matched against username rules (also as the email of the username), never stored. */
  login: string;
  /** The client address, matched against network rules, never stored; null when it is not an IP address. */
  ip: string | null;
  /** The device cookie's digest, for device rules and the copied-cookie check. */
  cookieHash: string | null;
}

export interface CounterWindows {
  now: Date;
  velocitySince: Date;
  stuffingSince: Date;
  /**
   * Where each count stops: the rules only ask whether a threshold is reached, and a capped count costs a flood
   * no more reading than a trickle.
   */
  caps: {
    deviceAttempts: number;
    networkAttempts: number;
    deviceLogins: number;
    networkLogins: number;
    fingerprintLogins: number;
    loginFailures: number;
  };
}

/** Distinct failing logins are looked for among this many times the threshold of a key's latest failed attempts. */
export const FAILURES_SCANNED_PER_THRESHOLD = 4;

/** What the attempt log and the rules say before the password is checked. Counts exclude this attempt and stop at their caps. */
export interface EarlyFacts {
  attemptId: string;
  /** The device cookie is a recorded device's (it signed in before, for some user). */
  establishedCookie: boolean;
  deviceAttempts: number;
  networkAttempts: number;
  /**
   * Distinct logins failing from this device (its established cookie, else its machine: fingerprint and network),
   * this network, this fingerprint (any network), among the latest failures of each: a failure excused by a later
   * sign-in of its login (a typo) does not count.
   */
  deviceLogins: number;
  networkLogins: number;
  fingerprintLogins: number;
  /** Failed attempts on this login since it last signed in (within the window): a sign-in excuses the earlier ones. */
  loginFailures: number;
  /** Fingerprints recorded for devices with this cookie (any user). */
  cookieFingerprints: string[];
  ruleEffects: Array<'allow' | 'block'>;
  /**
   * The user the login names (by username, else by email, both case-insensitive) and their facts, read in the same
   * statement: the sign-in needs the user anyway, so that the evaluation adds no round trip of its own; null when
   * the login names nobody.
   */
  account: { user: UserRow; facts: UserFacts } | null;
}

/**
 * Records the attempt and reads every counter and matching rule in one statement, so that the early evaluation
 * costs one round trip. The insert is not visible to the sibling subqueries (one snapshot): counts are of earlier
 * attempts. An attempt counts as failed until it succeeds or a later sign-in of its login excuses it. Rules match as
 * an admin means them whatever the case of a username or device id (a username also by its user's email), and a
 * network with host bits set ("192.0.2.7/24") covers its /24; CASE keeps the inet cast to network rules.
 *
 * The distinct failing logins of a device are those of its cookie once the cookie is established (a device recorded
 * for some user). Until then they are those of its machine, fingerprint and network together: the sign-in page
 * hands every new browser a fresh cookie, so a tool that starts a new session per attempt would otherwise be a new
 * device every time.
 */
export async function recordAttempt(db: Db, k: AttemptKeys, w: CounterWindows): Promise<EarlyFacts> {
  // Failed (neither succeeded nor excused) attempts matching `where`, newest first, a few times the cap of them: how
  // many distinct logins they name, up to the cap. The partial indexes of failures serve these reads.
  const distinctFailing = (where: ReturnType<typeof sql>, cap: number) => sql`(
    SELECT count(*) FROM (
      SELECT DISTINCT recent.login_key FROM (
        SELECT login_key FROM sign_in_attempts
        WHERE ${where} AND at > ${w.stuffingSince} AND NOT succeeded AND NOT excused
        ORDER BY at DESC LIMIT ${cap * FAILURES_SCANNED_PER_THRESHOLD}
      ) recent
      LIMIT ${cap}
    ) capped)`;
  const { rows } = await sql<
    {
      attempt_id: string;
      established: boolean;
      device_attempts: string;
      network_attempts: string;
      cookie_logins: string;
      machine_logins: string;
      network_logins: string;
      fingerprint_logins: string;
      login_failures: string;
      cookie_fingerprints: string[] | null;
      rule_effects: Array<'allow' | 'block'> | null;
      account_facts: UserFactsJson | string | null;
    } & NullableRow<UserRow>
  >`
    WITH known AS (
      SELECT array_agg(DISTINCT fingerprint) AS fingerprints FROM devices WHERE cookie_hash = ${k.cookieHash} AND revoked_at IS NULL
    ), account AS (
      SELECT * FROM users WHERE lower(username) = ${k.login} OR lower(email) = ${k.login}
      ORDER BY lower(username) = ${k.login} DESC LIMIT 1
    ), attempt AS (
      INSERT INTO sign_in_attempts (at, login_key, device_key, fingerprint_key, network_key)
      VALUES (${w.now}, ${k.loginKey}, ${k.deviceKey}, ${k.fingerprintKey}, ${k.networkKey})
      RETURNING id
    )
    SELECT
      account.*,
      (SELECT id FROM attempt) AS attempt_id,
      (SELECT fingerprints IS NOT NULL FROM known) AS established,
      (SELECT count(*) FROM (SELECT 1 FROM sign_in_attempts WHERE device_key = ${k.deviceKey} AND at > ${w.velocitySince}
        LIMIT ${w.caps.deviceAttempts}) capped) AS device_attempts,
      (SELECT count(*) FROM (SELECT 1 FROM sign_in_attempts WHERE network_key = ${k.networkKey} AND at > ${w.velocitySince}
        LIMIT ${w.caps.networkAttempts}) capped) AS network_attempts,
      ${distinctFailing(sql`(SELECT fingerprints IS NOT NULL FROM known) AND device_key = ${k.deviceKey}`, w.caps.deviceLogins)} AS cookie_logins,
      ${distinctFailing(sql`(SELECT fingerprints IS NULL FROM known) AND network_key = ${k.networkKey} AND fingerprint_key = ${k.fingerprintKey}`, w.caps.deviceLogins)} AS machine_logins,
      ${distinctFailing(sql`network_key = ${k.networkKey}`, w.caps.networkLogins)} AS network_logins,
      ${distinctFailing(sql`fingerprint_key = ${k.fingerprintKey}`, w.caps.fingerprintLogins)} AS fingerprint_logins,
      (SELECT count(*) FROM (
        SELECT 1 FROM sign_in_attempts WHERE login_key = ${k.loginKey} AND at > ${w.stuffingSince} AND NOT succeeded AND NOT excused
        LIMIT ${w.caps.loginFailures}) capped) AS login_failures,
      (SELECT fingerprints FROM known) AS cookie_fingerprints,
      (SELECT array_agg(effect) FROM risk_rules
        WHERE CASE kind
          WHEN 'username' THEN lower(value) = ${k.login}
            OR EXISTS (SELECT 1 FROM users WHERE lower(email) = ${k.login} AND lower(username) = lower(risk_rules.value))
          WHEN 'network' THEN ${k.ip}::inet <<= value::inet
          WHEN 'device' THEN lower(value) IN (SELECT id::text FROM devices WHERE cookie_hash = ${k.cookieHash})
        END) AS rule_effects,
      (SELECT json_build_object(
        'deviceCount', (SELECT count(*) FROM (SELECT 1 FROM devices WHERE user_id = a.id LIMIT 1) any_device),
        'device', (SELECT json_build_object('id', id, 'trusted', trusted, 'fingerprint', fingerprint) FROM devices
          WHERE user_id = a.id AND cookie_hash = ${k.cookieHash} AND revoked_at IS NULL),
        'networkKnown', EXISTS (SELECT 1 FROM user_networks WHERE user_id = a.id AND network_key = ${k.networkKey}),
        'ruleEffects', (SELECT coalesce(json_agg(effect), '[]') FROM risk_rules
          WHERE kind = 'username' AND lower(value) IN (lower(a.username), lower(a.email))))
        FROM account a) AS account_facts
    FROM (VALUES (1)) AS one LEFT JOIN account ON true`.execute(db);
  const r = rows[0]!;
  return {
    attemptId: String(r.attempt_id),
    establishedCookie: r.established,
    deviceAttempts: Number(r.device_attempts),
    networkAttempts: Number(r.network_attempts),
    deviceLogins: Number(r.established ? r.cookie_logins : r.machine_logins),
    networkLogins: Number(r.network_logins),
    fingerprintLogins: Number(r.fingerprint_logins),
    loginFailures: Number(r.login_failures),
    cookieFingerprints: r.cookie_fingerprints ?? [],
    ruleEffects: r.rule_effects ?? [],
    account: r.id === null || r.account_facts === null ? null : { user: userRowOf(r as UserRow), facts: userFactsFrom(r.account_facts) },
  };
}

type NullableRow<T> = { [K in keyof T]: T[K] | null };

/** The users columns of the early statement's row (`account.*`). */
function userRowOf(r: UserRow): UserRow {
  const { id, username, password_hash, email, email_verified, claims, disabled_at, created_at, updated_at, locale } = r;
  return { id, username, password_hash, email, email_verified, claims, disabled_at, created_at, updated_at, locale };
}

/** What the user's own history says, once the password is known to be theirs. */
export interface UserFacts {
  /**
   * Devices the user has ever signed in from, revoked ones included (their history, which a revocation does not undo),
   * counted up to 1: only whether there is any is used, and a full count grew with every device of a user who signs
   * in from many (issue 21: cost that stays flat as the data grows).
   */
  deviceCount: number;
  /** The user's live device with this cookie, if any. */
  device: { id: string; trusted: boolean; fingerprint: string } | null;
  networkKnown: boolean;
  /** Username rules naming the user by username or email, whichever login was typed. */
  ruleEffects: Array<'allow' | 'block'>;
}

/** The user's facts as the early statement builds them (json_build_object). */
interface UserFactsJson {
  deviceCount: number;
  device: UserFacts['device'];
  networkKnown: boolean;
  ruleEffects: Array<'allow' | 'block'>;
}

/** The driver hands json over parsed (pg) or as text (some PGlite versions). */
function userFactsFrom(json: UserFactsJson | string): UserFacts {
  const f = typeof json === 'string' ? (JSON.parse(json) as UserFactsJson) : json;
  return { deviceCount: Number(f.deviceCount), device: f.device, networkKnown: f.networkKnown, ruleEffects: f.ruleEffects };
}
