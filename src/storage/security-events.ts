// Repository for stored security events (sign-in allowed, challenged, blocked, new device, device revoked, ...).
import type { Db } from './database.js';

export interface NewSecurityEvent {
  type: string;
  userId: string | null;
  deviceId: string | null;
  clientId: string | null;
  createdAt: Date;
  details: Record<string, unknown>;
}

export async function insertSecurityEvent(db: Db, e: NewSecurityEvent): Promise<void> {
  await db
    .insertInto('security_events')
    .values({
      type: e.type,
      user_id: e.userId,
      device_id: e.deviceId,
      client_id: e.clientId,
      created_at: e.createdAt,
      details: JSON.stringify(e.details),
    })
    .execute();
}
