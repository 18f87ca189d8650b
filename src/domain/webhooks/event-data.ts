// What a webhook delivery stores of its event (webhook_deliveries.payload): the event's data, sent as the body's
// `data`, and the shapes it is read back through (src/storage/webhooks.ts claims deliveries with them): during a
// rolling upgrade an instance may claim a delivery that another version queued.
import { object, type Shape, type VersionedShapes } from '../../storage/json-shape.js';
import type { ClaimedWebhookDelivery } from '../../storage/webhooks.js';

/** An event's data: its own fields (docs/webhooks.md lists them per type), ids and non-secret values only. */
export type EventData = Record<string, unknown>;

const ANY_OBJECT = object<Record<never, never>>({});

/**
 * Version 1: the data as emit.ts wrote it, a JSON object passed on as stored, whatever fields its event has (a newer
 * instance may add one; it is sent, not dropped). It is stored without `v`, as before versions were kept: an older
 * instance sends the bytes it always sent, and no event's data has a field named `v`. A version 2 would say `v: 2`,
 * and an instance that knows only version 1 leaves it to one that reads it (deliver.ts).
 */
const DATA_V1: Shape<EventData> = (value, path) => {
  ANY_OBJECT(value, path);
  const { v: _version, ...data } = value as EventData;
  return _version === undefined ? (value as EventData) : data;
};

export const EVENT_DATA: VersionedShapes<EventData> = { 1: DATA_V1 };

/** A delivery claimed for sending, its event's data read through EVENT_DATA. */
export type ClaimedDelivery = ClaimedWebhookDelivery<EventData>;
