// Repository for pushed authorization requests (RFC 9126): stored once, taken at most once, by request_uri digest.
import type { Db } from './database.js';

export interface NewPushedRequest {
  requestUriHash: string;
  clientId: string;
  /** The authorization request's parameters, as /authorize will read them. */
  params: Record<string, string | string[]>;
  expiresAt: Date;
}

export async function insertPushedRequest(db: Db, p: NewPushedRequest): Promise<void> {
  await db
    .insertInto('pushed_authorization_requests')
    .values({ request_uri_hash: p.requestUriHash, client_id: p.clientId, params: JSON.stringify(p.params), expires_at: p.expiresAt })
    .execute();
}

/**
 * Marks the request used and returns its parameters, in one conditional statement: only while it is unused,
 * unexpired and pushed by `clientId`. Undefined when none fits (pushedRequestState tells why).
 */
export async function consumePushedRequest(
  db: Db,
  requestUriHash: string,
  clientId: string,
  now: Date,
): Promise<Record<string, string | string[]> | undefined> {
  const row = await db
    .updateTable('pushed_authorization_requests')
    .set({ consumed_at: now })
    .where('request_uri_hash', '=', requestUriHash)
    .where('client_id', '=', clientId)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('params')
    .executeTakeFirst();
  return row?.params;
}

/** What is known of a request_uri that could not be taken (read only on that failure path), or undefined. */
export function pushedRequestState(db: Db, requestUriHash: string) {
  return db
    .selectFrom('pushed_authorization_requests')
    .select(['client_id', 'expires_at', 'consumed_at'])
    .where('request_uri_hash', '=', requestUriHash)
    .executeTakeFirst();
}
