// The events a webhook subscription may ask for (issue 20), and "*" for all of them. A payload carries ids and
// non-secret fields only: never a password, a code, a token or a secret.
export const WEBHOOK_EVENT_TYPES = [
  'user.created',
  'user.updated',
  'user.deleted',
  // An address set or removed, by its owner or anyone else, and whether it is verified (issue 38).
  'user.email_changed',
  'sign_in.succeeded',
  'sign_in.failed',
  'risk.challenged',
  'risk.blocked',
  'device.added',
  'session.ended',
  'client.changed',
  // A membership of an organization made or ended (issue 40), with how it came.
  'organization.member_added',
  'organization.member_removed',
  // A domain proven by its TXT record, or no longer (issue 40: the periodic re-check found it gone).
  'organization.domain_verified',
  'organization.domain_unverified',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Every event type, now and as the list grows. */
export const ALL_EVENTS = '*';

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}
