// The audit trail read back, newest first, for the management API's /audit and the console's audit page alike;
// src/domain/admin/admin.ts logAdminAction is the one place that writes it.
import { listAuditRecords, type AuditFilter, type AuditRecordRow } from '../../storage/audit-records.js';
import type { ProviderContext } from '../context.js';

export type { AuditFilter };
export type AuditRecord = AuditRecordRow;

/** Up to `limit` records that match `filter`, newest first; the filter's cursor continues an earlier page. */
export function auditTrail(ctx: Pick<ProviderContext, 'db'>, filter: AuditFilter, limit: number): Promise<AuditRecord[]> {
  return listAuditRecords(ctx.db, filter, limit);
}
