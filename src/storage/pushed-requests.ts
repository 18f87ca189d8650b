// Repository for pushed authorization requests (RFC 9126): stored once, taken at most once, by request_uri digest.
import type { Db } from './database.js';
import { readVersioned, writeFreeForm, type Versioned, type VersionedShapes } from './json-shape.js';

export interface NewPushedRequest {
  requestUriHash: string;
  clientId: string;
  /** The authorization request's parameters, as /authorize will read them: version 1, stored without `v`. */
  params: Record<string, string | string[]>;
  expiresAt: Date;
}

export async function insertPushedRequest(db: Db, p: NewPushedRequest): Promise<void> {
  await db
    .insertInto('pushed_authorization_requests')
    .values({ request_uri_hash: p.requestUriHash, client_id: p.clientId, params: writeFreeForm(p.params), expires_at: p.expiresAt })
    .execute();
}

/**
 * Marks the request used and returns its parameters read through `shapes`, in one conditional statement: only while
 * it is unused, unexpired and pushed by `clientId`. Undefined when none fits (pushedRequestState tells why); a row
 * whose parameters do not fit `shapes` is used up all the same, and comes back as `ok: false` with the reason.
 */
export async function consumePushedRequest<P>(
  db: Db,
  shapes: VersionedShapes<P>,
  requestUriHash: string,
  clientId: string,
  now: Date,
): Promise<Versioned<P> | undefined> {
  const row = await db
    .updateTable('pushed_authorization_requests')
    .set({ consumed_at: now })
    .where('request_uri_hash', '=', requestUriHash)
    .where('client_id', '=', clientId)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('params')
    .executeTakeFirst();
  return row && readVersioned(row.params, shapes);
}

/** What is known of a request_uri that could not be taken (read only on that failure path), or undefined. */
export function pushedRequestState(db: Db, requestUriHash: string) {
  return db
    .selectFrom('pushed_authorization_requests')
    .select(['client_id', 'expires_at', 'consumed_at'])
    .where('request_uri_hash', '=', requestUriHash)
    .executeTakeFirst();
}
