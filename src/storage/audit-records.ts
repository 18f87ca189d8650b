// Repository for the admin audit trail (migrations/20261128010000_admin_audit.sql): one row per change, written in
// the change's own transaction, read newest first in pages that continue after a row's id.
import { sql } from 'kysely';
import type { Db } from './database.js';
import { readFreeFormForListing, writeFreeForm } from './json-shape.js';

export interface NewAuditRecord {
  occurredAt: Date;
  actorKind: string;
  actorId: string;
  origin: string | null;
  event: string;
  targetType: string;
  targetId: string;
  changes: Record<string, unknown>;
  /** The organization the change was in (issue 40); null for the provider's own. */
  organizationId?: string | null;
}

export interface AuditRecordRow {
  id: string;
  occurred_at: Date;
  actor_kind: string;
  actor_id: string;
  origin: string | null;
  event: string;
  target_type: string;
  target_id: string;
  changes: Record<string, unknown>;
  organization_id: string | null;
}

export async function insertAuditRecord(db: Db, r: NewAuditRecord): Promise<void> {
  await db
    .insertInto('admin_audit_records')
    .values({
      occurred_at: r.occurredAt,
      actor_kind: r.actorKind,
      actor_id: r.actorId,
      origin: r.origin,
      event: r.event,
      target_type: r.targetType,
      target_id: r.targetId,
      changes: writeFreeForm(r.changes),
      organization_id: r.organizationId ?? null,
    })
    .execute();
}

export interface AuditFilter {
  actorKind?: string;
  actorId?: string;
  targetType?: string;
  targetId?: string;
  event?: string;
  /** Inclusive. */
  since?: Date;
  /** Exclusive. */
  until?: Date;
  /** Only rows older than this id (the last row of the previous page). */
  beforeId?: string;
  /** Only changes in this organization (an organization's admin sees no other). */
  organizationId?: string;
}

/** Up to `limit` records matching the filter, newest first. */
export async function listAuditRecords(db: Db, filter: AuditFilter, limit: number): Promise<AuditRecordRow[]> {
  let query = db
    .selectFrom('admin_audit_records')
    .select(['occurred_at', 'actor_kind', 'actor_id', 'origin', 'event', 'target_type', 'target_id', 'changes', 'organization_id'])
    .select(sql<string>`id::text`.as('id'));
  if (filter.actorKind !== undefined) query = query.where('actor_kind', '=', filter.actorKind);
  if (filter.actorId !== undefined) query = query.where('actor_id', '=', filter.actorId);
  if (filter.targetType !== undefined) query = query.where('target_type', '=', filter.targetType);
  if (filter.targetId !== undefined) query = query.where('target_id', '=', filter.targetId);
  if (filter.event !== undefined) query = query.where('event', '=', filter.event);
  if (filter.organizationId !== undefined) query = query.where('organization_id', '=', filter.organizationId);
  if (filter.since !== undefined) query = query.where('occurred_at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('occurred_at', '<', filter.until);
  if (filter.beforeId !== undefined) query = query.where(sql<boolean>`id < ${filter.beforeId}::bigint`);
  const rows = await query.orderBy('id', 'desc').limit(limit).execute();
  return rows.map((row) => ({ ...row, changes: readFreeFormForListing(row.changes) }));
}
