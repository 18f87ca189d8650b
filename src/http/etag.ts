// The ETag both administering surfaces give a resource (RFC 9110 8.8.3): its digest, what of each resource it covers,
// and how a change under If-Match reads and locks it.
import type { AdminContext, LockTarget } from '../domain/admin/admin.js';
import { userJson } from '../domain/admin/representations.js';
import type { UserDetails } from '../domain/admin/user-admin.js';
import type { GroupSummary } from '../domain/groups/group-admin.js';
import { sha256 } from '../domain/secrets.js';
import type { WebhookDetails } from '../domain/webhooks/webhook-admin.js';

/** A strong ETag of the representation (its JSON as sent). */
export function etagOf(representation: unknown): string {
  return `"${sha256(JSON.stringify(representation))}"`;
}

/** How a change under If-Match finds the resource, which row it locks, and what of it the ETag covers. */
export interface IfMatchGuard<R> {
  /** The resource as it is now (the domain's not_found refusal when there is none). */
  read(ctx: AdminContext): Promise<R>;
  lock(current: R): LockTarget;
  tagged(current: R): unknown;
}

/** What a user's ETag covers: what an admin changes (profile, status), not the counts that move with every sign-in. */
export const editableUser = (u: UserDetails) => ({ ...userJson(u), claims: u.claims });

/** What a group's ETag covers: what an admin sets (name, description), not the count of members, which moves on its own. */
export const editableGroup = (g: GroupSummary) => ({ id: g.id, name: g.name, description: g.description });

/** What a webhook subscription's ETag covers: what an admin sets, not the delivery counts. */
export const editableWebhook = (w: WebhookDetails) => ({
  id: w.id,
  url: w.url,
  events: w.events,
  description: w.description,
  enabled: w.enabled,
});
