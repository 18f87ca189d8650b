// A webhook subscription stored directly, for tests that check which events a change queues.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/storage/database.js';
import { insertWebhookSubscription } from '../../src/storage/webhooks.js';

/** Subscribes https://hooks.example/users to `eventTypes`; nothing is delivered in a test without the job. */
export async function subscribeToEvents(db: Db, eventTypes: string[]): Promise<void> {
  await insertWebhookSubscription(db, {
    id: randomUUID(),
    url: 'https://hooks.example/users',
    eventTypes,
    secretSealed: { v: 0, clear: 'dGVzdA' },
    description: null,
    enabled: true,
    now: new Date(),
  });
}
