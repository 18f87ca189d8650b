// The seed file's `webhooks` section: each entry checked as `sso-admin webhooks add` checks it (its secret required,
// since the receiver must know it already), then stored by id with its secret sealed (purpose webhook-secret). An
// entry that changed replaces the stored one (its pause and failure count stay); a subscription missing from the file
// is left alone (remove it with the command line).
import type { Db } from '../../storage/database.js';
import type { WebhookSubscriptionRow } from '../../storage/schema.js';
import { findWebhookSubscription, insertWebhookSubscription, replaceWebhookSubscription } from '../../storage/webhooks.js';
import { KeyEncryptionError } from '../keys/key-encryption.js';
import { openSecret, sealSecret, type SealingContext } from '../keys/sealed-secrets.js';
import { AdminError } from '../admin-error.js';
import { SeedError } from '../admin/seed.js';
import { findOrganizationByRef } from '../organizations/organization-scope.js';
import { webhookEntryProblems, type WebhookEntry } from './webhook-entry.js';

interface Counts {
  created: number;
  updated: number;
  unchanged: number;
}

/** The checked entries, or undefined when the file has no such section; each problem is added to `problems`. */
export function checkWebhooks(raw: unknown, problems: string[]): WebhookEntry[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) {
    problems.push('"webhooks" must be an array');
    return undefined;
  }
  raw.forEach((entry, i) => {
    for (const problem of webhookEntryProblems(entry, { secretRequired: true })) problems.push(`webhooks[${i}]: ${problem}`);
  });
  const ids = raw.map((e: { id?: unknown }) => e?.id).filter((id): id is string => typeof id === 'string');
  for (const id of new Set(ids.filter((id, i) => ids.indexOf(id) !== i))) problems.push(`webhook "${id}" appears more than once`);
  return raw as WebhookEntry[];
}

async function sameSecret(sealing: SealingContext, row: WebhookSubscriptionRow, plain: string): Promise<boolean> {
  try {
    return (await openSecret(sealing, 'webhook-secret', row.id, row.secret_sealed)).toString('utf8') === plain;
  } catch (err) {
    if (err instanceof KeyEncryptionError) return false;
    throw err;
  }
}

export async function seedWebhooks(db: Db, sealing: SealingContext, entries: readonly WebhookEntry[], now: Date): Promise<Counts> {
  const counts: Counts = { created: 0, updated: 0, unchanged: 0 };
  for (const entry of entries) {
    const existing = await findWebhookSubscription(db, entry.id);
    const secret = entry.secret!;
    const enabled = entry.enabled ?? true;
    const description = entry.description ?? null;
    // Organizations are seeded before webhooks: a slug names one of them, or one already in the database.
    const organizationId = entry.organization === undefined ? null : await organizationIdOf(db, entry);
    if (
      existing &&
      existing.organization_id === organizationId &&
      existing.url === entry.url &&
      existing.event_types.join(',') === entry.events.join(',') &&
      existing.description === description &&
      existing.enabled === enabled &&
      (await sameSecret(sealing, existing, secret))
    ) {
      counts.unchanged += 1;
      continue;
    }
    const row = {
      id: entry.id,
      url: entry.url,
      eventTypes: entry.events,
      secretSealed: { ...(await sealSecret(sealing, 'webhook-secret', entry.id, Buffer.from(secret, 'utf8'))) },
      description,
      enabled,
      organizationId,
      now,
    };
    if (existing) {
      await replaceWebhookSubscription(db, row);
      counts.updated += 1;
    } else {
      await insertWebhookSubscription(db, row);
      counts.created += 1;
    }
  }
  return counts;
}

async function organizationIdOf(db: Db, entry: WebhookEntry): Promise<string> {
  try {
    return (await findOrganizationByRef(db, entry.organization!)).id;
  } catch (err) {
    if (err instanceof AdminError) throw new SeedError([`webhooks: "${entry.id}": no organization "${entry.organization}"`]);
    throw err;
  }
}
