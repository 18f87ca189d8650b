// Repository for the outbox: messages to users (one-time codes, new-device notices) waiting for the notifier.
import type { Db } from './database.js';
import { FREE_FORM, readVersioned, writeFreeForm } from './json-shape.js';

/** What a message is; each kind has a template (src/domain/notifications/messages.ts). */
export type OutboxKind =
  | 'one-time-code'
  | 'new-device'
  | 'password-reset'
  | 'password-changed'
  | 'signup-verification'
  | 'account-exists'
  | 'invitation'
  | 'email-verification'
  | 'email-taken'
  | 'email-change-notice'
  | 'organization-invitation';

export interface NewOutboxMessage {
  /** The user it is for (sent to their email address unless `address` says otherwise); null with `address` alone. */
  userId: string | null;
  /** Where to send it instead: a sign-up's or an invitation's address, which no user has yet. */
  address?: string;
  kind: OutboxKind;
  payload: Record<string, unknown>;
  createdAt: Date;
}

/** Queues a message, due at once; written in the caller's transaction when `db` is one. */
export async function insertOutboxMessage(db: Db, m: NewOutboxMessage): Promise<void> {
  await db
    .insertInto('outbox')
    .values({
      user_id: m.userId,
      address: m.address ?? null,
      kind: m.kind,
      payload: writeFreeForm(m.payload),
      created_at: m.createdAt,
      next_attempt_at: m.createdAt,
    })
    .execute();
}

export interface ClaimedMessage {
  id: string;
  /** The user it is for; null for a message to `address` alone. */
  userId: string | null;
  /** The address of a message to an address alone (a sign-up, an invitation). */
  address: string | null;
  kind: string;
  payload: Record<string, unknown>;
  /** Attempts so far, this one included. */
  attempts: number;
  /** When it was queued: a message is tried until its content is of no more use (src/domain/notifications/notifier.ts). */
  createdAt: Date;
}

/**
 * Claims up to `limit` due messages in one statement: each has its attempt counted and its next attempt moved to
 * `leaseUntil`, so no other instance sends it meanwhile (SKIP LOCKED), and a process that dies mid-send leaves it
 * to be tried again.
 */
export async function claimDueMessages(db: Db, now: Date, leaseUntil: Date, limit: number): Promise<ClaimedMessage[]> {
  const rows = await db
    .with('due', (qb) =>
      qb
        .selectFrom('outbox')
        .select('id')
        .where('sent_at', 'is', null)
        .where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .updateTable('outbox')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), next_attempt_at: leaseUntil }))
    .where('id', 'in', (eb) => eb.selectFrom('due').select('id'))
    .returning(['id', 'user_id', 'address', 'kind', 'payload', 'attempts', 'created_at'])
    .execute();
  // A payload of a version this one does not read (a newer instance queued it) is not sent from here: its lease runs
  // out and an instance that reads it claims it again.
  return rows.flatMap((r) => {
    const payload = readVersioned(r.payload, FREE_FORM);
    if (!payload.ok) return [];
    const { id, user_id: userId, address, kind, attempts, created_at: createdAt } = r;
    return [{ id, userId, address, kind, payload: payload.value, attempts, createdAt }];
  });
}

/** Sent: the payload (a one-time code, say) is wiped so that nothing secret stays at rest. */
export async function markMessageSent(db: Db, id: string, now: Date): Promise<void> {
  await db.updateTable('outbox').set({ sent_at: now, payload: '{}' }).where('id', '=', id).execute();
}

/** Failed: tried again at `nextAttemptAt`, or never again (payload wiped) when null. */
export async function markMessageFailed(db: Db, id: string, nextAttemptAt: Date | null): Promise<void> {
  const update = nextAttemptAt ? { next_attempt_at: nextAttemptAt } : { next_attempt_at: new Date('9999-12-31T00:00:00Z'), payload: '{}' };
  await db.updateTable('outbox').set(update).where('id', '=', id).execute();
}
