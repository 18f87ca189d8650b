// Repository for sign-ups waiting for their email to be verified, and for invitations (migration
// 20261125030000_signups.sql). Each step is one statement: a sign-up is stored with its message, a verification
// creates the user and spends every pending sign-up of that address, all or nothing.
import { sql } from 'kysely';
import type { Db } from './database.js';
import { FREE_FORM, readVersioned, writeFreeForm } from './json-shape.js';

export interface NewSignup {
  id: string;
  tokenDigest: string;
  codeDigest: string;
  email: string;
  username: string;
  passwordHash: string;
  /** The new user's claims: version 1 of FREE_FORM, stored without `v` and copied as is into users.claims. */
  claims: Record<string, unknown>;
  interactionId: string | null;
  now: Date;
  expiresAt: Date;
  /** The verification message (the link and the code), queued to the address. */
  verification: Record<string, unknown>;
}

/**
 * Stores the sign-up and queues its verification, unless a user already has the address: then that user is told
 * ("you already have an account") instead, and the sign-up is stored all the same, with a code and link nobody is
 * sent, so that the page that asks for the code behaves alike (wrong codes counted, then refused). One statement
 * either way; `created` is false when the address was an account's.
 */
export async function createSignup(db: Db, s: NewSignup): Promise<{ created: boolean }> {
  const { rows } = await sql<{ created: string }>`
    WITH existing AS (
      SELECT id FROM users WHERE lower(email) = lower(${s.email}) LIMIT 1
    ), created AS (
      INSERT INTO signups (id, token_digest, code_digest, email, username, password_hash, claims, interaction_id, created_at, expires_at)
      SELECT ${s.id}, ${s.tokenDigest}, ${s.codeDigest}, ${s.email}, ${s.username}, ${s.passwordHash}, ${writeFreeForm(s.claims)}::jsonb,
             ${s.interactionId}, ${s.now}, ${s.expiresAt}
      RETURNING email
    ), told AS (
      INSERT INTO outbox (user_id, kind, payload, created_at, next_attempt_at)
      SELECT id, 'account-exists', ${JSON.stringify(s.verification.locale ? { locale: s.verification.locale } : {})}::jsonb, ${s.now}, ${s.now} FROM existing
      RETURNING id
    ), verification AS (
      INSERT INTO outbox (address, kind, payload, created_at, next_attempt_at)
      SELECT email, 'signup-verification', ${JSON.stringify(s.verification)}::jsonb, ${s.now}, ${s.now} FROM created
       WHERE NOT EXISTS (SELECT 1 FROM existing)
      RETURNING id
    )
    SELECT (SELECT count(*) FROM verification) AS created`.execute(db);
  return { created: Number(rows[0]?.created ?? 0) > 0 };
}

/** A pending sign-up whose code may be tried once more, for checking the code typed in the browser that made it. */
export interface PendingSignup {
  id: string;
  tokenDigest: string;
  codeDigest: string;
  /** The tries counted so far, this one included. */
  codeTries: number;
  email: string;
}

/**
 * Counts a try of the sign-up's code and returns the sign-up, in one conditional statement: only while it can still
 * be verified (unused, unexpired) and fewer than `max` tries were counted. Concurrent tries queue on the row, and
 * each sees the count the one before it left, so no more than `max` are ever let through (the link still works).
 * Undefined: no such sign-up, or no try left. The column keeps its name, code_failures: a right code spends the
 * sign-up, so every try counted but the last was a failure.
 */
export async function claimSignupCodeTry(db: Db, id: string, now: Date, max: number): Promise<PendingSignup | undefined> {
  const row = await db
    .updateTable('signups')
    .set((eb) => ({ code_failures: eb('code_failures', '+', 1) }))
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .where('code_failures', '<', max)
    .returning(['id', 'token_digest', 'code_digest', 'code_failures', 'email'])
    .executeTakeFirst();
  return row && { id: row.id, tokenDigest: row.token_digest, codeDigest: row.code_digest, codeTries: row.code_failures, email: row.email };
}

export type SignupVerification =
  | { kind: 'created'; userId: string; signupId: string; interactionId: string | null }
  /** The address or the username became an account's meanwhile: the sign-up is spent, no user was made. */
  | { kind: 'taken'; interactionId: string | null }
  /** No usable sign-up has this token (used, expired, forged). */
  | { kind: 'unusable' }
  /** The sign-up's claims are of a shape this version does not read: left unspent, for an instance that reads them. */
  | { kind: 'unreadable'; reason: string };

/**
 * Verifies the sign-up whose link has this token digest: it is spent, the user created with the address verified
 * (unless the address or the username is an account's by now), and every other pending sign-up of the address spent.
 * Only a sign-up whose claims fit FREE_FORM's version 1 (an object, `v` absent or 1) is spent: the statement checks
 * what FREE_FORM_V1 checks, since the claims are copied in SQL; another is told apart as `unreadable`.
 */
export async function verifySignup(db: Db, tokenDigest: string, now: Date): Promise<SignupVerification> {
  const { rows } = await sql<{ id: string; interaction_id: string | null; user_id: string | null }>`
    WITH spent AS (
      UPDATE signups SET used_at = ${now}
       WHERE token_digest = ${tokenDigest} AND used_at IS NULL AND expires_at > ${now}
         AND jsonb_typeof(claims) = 'object' AND coalesce(claims->'v', '1'::jsonb) = '1'::jsonb
      RETURNING id, email, username, password_hash, claims - 'v' AS claims, interaction_id
    ), made AS (
      INSERT INTO users (id, username, password_hash, email, email_verified, claims, created_at, updated_at)
      SELECT gen_random_uuid(), username, password_hash, email, true, claims, ${now}, ${now} FROM spent
      ON CONFLICT DO NOTHING
      RETURNING id
    ), others AS (
      UPDATE signups SET used_at = ${now}
       WHERE lower(email) IN (SELECT lower(email) FROM spent) AND used_at IS NULL AND id NOT IN (SELECT id FROM spent)
      RETURNING id
    )
    SELECT spent.id, spent.interaction_id, (SELECT id FROM made) AS user_id FROM spent, (SELECT count(*) FROM others) o`.execute(db);
  const row = rows[0];
  if (!row) return unspent(db, tokenDigest, now);
  return row.user_id
    ? { kind: 'created', userId: row.user_id, signupId: row.id, interactionId: row.interaction_id }
    : { kind: 'taken', interactionId: row.interaction_id };
}

/** Why no sign-up was spent: none usable, or one whose claims this version does not read. */
async function unspent(db: Db, tokenDigest: string, now: Date): Promise<SignupVerification> {
  const pending = await db
    .selectFrom('signups')
    .select('claims')
    .where('token_digest', '=', tokenDigest)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  const read = pending && readVersioned(pending.claims, FREE_FORM, 'claims');
  return read && !read.ok ? { kind: 'unreadable', reason: read.reason } : { kind: 'unusable' };
}

/** Stores an invitation and queues its mail to the address, in one statement. */
export async function createInvitation(
  db: Db,
  i: { tokenDigest: string; email: string; now: Date; expiresAt: Date; payload: Record<string, unknown> },
): Promise<void> {
  await sql`
    WITH invited AS (
      INSERT INTO signup_invitations (token_digest, email, created_at, expires_at)
      VALUES (${i.tokenDigest}, ${i.email}, ${i.now}, ${i.expiresAt})
      RETURNING email
    )
    INSERT INTO outbox (address, kind, payload, created_at, next_attempt_at)
    SELECT email, 'invitation', ${JSON.stringify(i.payload)}::jsonb, ${i.now}, ${i.now} FROM invited`.execute(db);
}

/** The address of a usable invitation. */
export async function findInvitation(db: Db, tokenDigest: string, now: Date): Promise<string | undefined> {
  const row = await db
    .selectFrom('signup_invitations')
    .select('email')
    .where('token_digest', '=', tokenDigest)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.email;
}

/**
 * Spends the invitation and creates its user, verified (the invitation reached the address), in `db`: the caller's
 * transaction, which the event of the new user shares (src/domain/accounts/signup.ts).
 * `taken`: the address or username is an account's already (nothing is spent); `unusable`: no such invitation.
 */
export async function acceptInvitation(
  db: Db,
  a: { tokenDigest: string; username: string | null; passwordHash: string; claims: Record<string, unknown>; now: Date },
): Promise<{ kind: 'created'; userId: string } | { kind: 'taken' } | { kind: 'unusable' }> {
  const { rows } = await sql<{ email: string; user_id: string | null }>`
      WITH spent AS (
        UPDATE signup_invitations SET used_at = ${a.now}
         WHERE token_digest = ${a.tokenDigest} AND used_at IS NULL AND expires_at > ${a.now}
        RETURNING email
      ), made AS (
        INSERT INTO users (id, username, password_hash, email, email_verified, claims, created_at, updated_at)
        SELECT gen_random_uuid(), COALESCE(${a.username}, email), ${a.passwordHash}, email, true, ${JSON.stringify(a.claims)}::jsonb, ${a.now}, ${a.now}
          FROM spent
        ON CONFLICT DO NOTHING
        RETURNING id
      )
      SELECT spent.email, (SELECT id FROM made) AS user_id FROM spent`.execute(db);
  const row = rows[0];
  if (!row) return { kind: 'unusable' as const };
  if (!row.user_id) {
    // Nothing was created: give the invitation back, so that another username can be tried with it.
    await sql`UPDATE signup_invitations SET used_at = NULL WHERE token_digest = ${a.tokenDigest}`.execute(db);
    return { kind: 'taken' as const };
  }
  return { kind: 'created' as const, userId: row.user_id };
}
