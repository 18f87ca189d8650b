// The JSON of what the admin manages, as both the command line (--json) and the management API answer it: the
// same fields, names and times (RFC 3339, whole seconds), never a secret.
import type { LiveSessionRow } from '../../storage/sessions.js';
import type { RegisteredClient } from '../clients/client-admin.js';
import type { AccountDevice } from '../risk/devices.js';
import type { DescribedKey } from '../keys/key-rotation.js';
import type { StoredRiskRule } from '../risk/rule-admin.js';
import type { UserSummary } from './user-admin.js';
import type { GroupMember, GroupSummary } from '../groups/group-admin.js';
import type { WebhookDelivery, WebhookSubscription } from '../webhooks/webhook-admin.js';

/** RFC 3339 in UTC to the second. */
export const isoTime = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The client: the seed file's fields (never the secret), whether it holds one, its revision and times. */
export function clientJson(c: RegisteredClient) {
  return { ...c.entry, has_secret: c.hasSecret, revision: c.revision, created_at: isoTime(c.createdAt), updated_at: isoTime(c.updatedAt) };
}

export const userJson = (u: UserSummary) => ({
  id: u.id,
  username: u.username,
  email: u.email,
  email_verified: u.emailVerified,
  disabled: u.disabledAt !== null,
  disabled_at: u.disabledAt && isoTime(u.disabledAt),
  created_at: isoTime(u.createdAt),
  updated_at: isoTime(u.updatedAt),
});

export const ruleJson = (r: StoredRiskRule) => ({
  id: r.id,
  kind: r.kind,
  value: r.value,
  effect: r.effect,
  note: r.note,
  created_at: isoTime(r.createdAt),
});

export const sessionJson = (s: LiveSessionRow) => ({
  kind: s.kind,
  sid: s.sid,
  created_at: isoTime(s.createdAt),
  auth_time: isoTime(s.authTime),
  expires_at: isoTime(s.expiresAt),
  last_seen_at: s.lastSeenAt && isoTime(s.lastSeenAt),
  amr: s.amr,
  device_id: s.deviceId,
  device: s.deviceLabel,
  clients: s.clientIds,
});

export const deviceJson = (d: AccountDevice) => ({
  id: d.id,
  label: d.label,
  first_seen_at: isoTime(d.firstSeenAt),
  last_seen_at: isoTime(d.lastSeenAt),
  sign_ins: d.signInCount,
  trusted: d.trusted,
});

export const keyJson = (k: DescribedKey) => ({
  kid: k.kid,
  alg: k.alg,
  state: k.state,
  created_at: isoTime(k.createdAt),
  activates_at: isoTime(k.activatesAt),
  retires_at: k.retiresAt && isoTime(k.retiresAt),
  leaves_jwks_at: k.unpublishesAt && isoTime(k.unpublishesAt),
  encrypted: k.encrypted,
});

export const groupJson = (g: GroupSummary) => ({
  id: g.id,
  name: g.name,
  description: g.description,
  members: g.members,
  created_at: isoTime(g.createdAt),
  updated_at: isoTime(g.updatedAt),
});

export const memberJson = (m: GroupMember) => ({ id: m.id, username: m.username, email: m.email, added_at: isoTime(m.addedAt) });

/** A webhook subscription, never its secret. */
export const webhookJson = (w: WebhookSubscription) => ({
  id: w.id,
  url: w.url,
  events: w.events,
  description: w.description,
  enabled: w.enabled,
  organization_id: w.organizationId,
  paused_at: w.pausedAt && isoTime(w.pausedAt),
  pause_reason: w.pauseReason,
  consecutive_failures: w.consecutiveFailures,
  last_success_at: w.lastSuccessAt && isoTime(w.lastSuccessAt),
  created_at: isoTime(w.createdAt),
  updated_at: isoTime(w.updatedAt),
});

export const deliveryJson = (d: WebhookDelivery) => ({
  id: d.id,
  event_id: d.eventId,
  type: d.eventType,
  status: d.status,
  attempts: d.attempts,
  next_attempt_at: d.nextAttemptAt && isoTime(d.nextAttemptAt),
  last_status: d.lastStatus,
  last_error: d.lastError,
  created_at: isoTime(d.createdAt),
  delivered_at: d.deliveredAt && isoTime(d.deliveredAt),
});
