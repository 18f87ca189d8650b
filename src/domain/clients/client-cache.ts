// Registered clients kept in memory by each instance, and trusted only as far as the database confirms them.
//
// The hot paths (a code issued with a session, a code or refresh token redeemed) would otherwise spend one of
// their two database round trips reading the client. Instead they decide with the copy in memory and commit
// only if the client row still has that copy's revision: the check is part of the one statement that issues or
// redeems (see storage/authorization-codes.ts, storage/refresh-tokens.ts). A changed, disabled or deleted client
// makes that statement do nothing; withCurrentClient (domain/clients/current-client.ts) then redoes the request once
// with the client as registered now. So several instances never act on different versions of a client, and no
// decision outlives a change. This file holds only the memory, so that the context can name it without a circle.
import type { Client } from './clients.js';

/** How long an entry is used before it is read again; correctness does not depend on it, memory and error paths do. */
const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

export interface ClientLookup {
  client: Client;
  /** True when the copy came from memory: a decision made with it must be confirmed (see above). */
  cached: boolean;
}

export class ClientCache {
  private readonly entries = new Map<string, { client: Client; expires: number }>();

  get(clientId: string, nowMs: number): Client | undefined {
    const entry = this.entries.get(clientId);
    if (entry === undefined) return undefined;
    if (entry.expires > nowMs) return entry.client;
    this.entries.delete(clientId);
    return undefined;
  }

  set(client: Client, nowMs: number): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(client.clientId, { client, expires: nowMs + TTL_MS });
  }

  forget(clientId: string): void {
    this.entries.delete(clientId);
  }
}
