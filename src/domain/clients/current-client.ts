// Runs a request with the client as remembered in memory and, when that copy turns out stale, once more with the
// client as registered now: the one place that retries (why, in domain/clients/client-cache.ts).
import { ServerError, type OAuthError } from '../../errors/oauth-error.js';
import { findClientRevision, findReadableClient } from '../../storage/clients.js';
import type { ClientLookup } from './client-cache.js';
import { readableClient, type Client } from './clients.js';
import { CLIENT_METADATA } from './stored-client-metadata.js';
import type { ProviderContext } from '../context.js';

/**
 * The client from memory when there is a recent copy, else from the database (and remembered). A client whose
 * metadata this version does not read is unknown here (readableClient logs why), as one that is not registered.
 */
export async function lookupClient(ctx: ProviderContext, clientId: string, fresh = false): Promise<ClientLookup | undefined> {
  const nowMs = Date.now();
  if (!fresh) {
    const client = ctx.clients.get(clientId, nowMs);
    if (client) return { client, cached: true };
  }
  const read = await findReadableClient(ctx.db, CLIENT_METADATA, clientId);
  const client = read && readableClient(ctx.log, read);
  if (!client) {
    ctx.clients.forget(clientId);
    return undefined;
  }
  ctx.clients.set(client, nowMs);
  return { client, cached: false };
}

/** Is this copy still the registered client? A stale copy is forgotten. */
export async function isCurrent(ctx: ProviderContext, client: Client): Promise<boolean> {
  const current = (await findClientRevision(ctx.db, client.clientId)) === client.revision;
  if (!current) ctx.clients.forget(client.clientId);
  return current;
}

/**
 * Thrown by an operation whose committing statement did nothing because the client is no longer the copy the
 * operation decided with (storage `clientUnchanged`): the request is redone with the client as registered now.
 */
export class ClientChanged extends Error {
  /** The answer when no retry is left (the client changed once more during the retry). */
  readonly refusal: OAuthError;

  constructor(refusal: OAuthError) {
    super('the client changed while the request was decided');
    this.name = 'ClientChanged';
    this.refusal = refusal;
  }
}

/** One run of an operation: where it reads its client, and what it knows of the copy it decided with. */
export class ClientAttempt {
  /** The copy comes from the database (the retry), never from memory. */
  readonly fresh: boolean;
  private readonly ctx: ProviderContext;
  private used: ClientLookup | undefined;
  private confirmed = false;
  private staleness: Promise<boolean> | undefined;

  constructor(ctx: ProviderContext, fresh: boolean) {
    this.ctx = ctx;
    this.fresh = fresh;
  }

  /** The client: on the first run from memory when there is a recent copy, on the retry from the database. */
  async lookup(clientId: string): Promise<ClientLookup | undefined> {
    this.used = await lookupClient(this.ctx, clientId, this.fresh);
    this.confirmed = false;
    this.staleness = undefined;
    return this.used;
  }

  /** The statement that committed the outcome checked the client's revision: the outcome stands as it is. */
  confirm(): void {
    this.confirmed = true;
  }

  /** Was the outcome decided with a copy from memory that is no longer the registered client? Asked once. */
  stale(): Promise<boolean> {
    const used = this.used;
    if (this.confirmed || used === undefined || !used.cached) return Promise.resolve(false);
    this.staleness ??= isCurrent(this.ctx, used.client).then((current) => !current);
    return this.staleness;
  }

  /** Before an answer that no statement confirmed: hands the request to the retry when the copy used is stale. */
  async ensureCurrent(): Promise<void> {
    // The retry reads the database, so it never gets here with a stale copy: the refusal is never sent.
    if (await this.stale()) throw new ClientChanged(new ServerError());
  }
}

/**
 * Runs `operation` with the client as remembered, and once more with the client read from the database when the
 * first run threw ClientChanged, or failed after deciding with a remembered copy that is stale. Never a third
 * time: a ClientChanged from the retry becomes its refusal. What the operation returns it vouches for: either a
 * statement confirmed it (`confirm`) or it asked `ensureCurrent` first.
 */
export async function withCurrentClient<T>(ctx: ProviderContext, operation: (attempt: ClientAttempt) => Promise<T>): Promise<T> {
  const first = new ClientAttempt(ctx, false);
  try {
    return await operation(first);
  } catch (err) {
    if (!(err instanceof ClientChanged) && !(await first.stale())) throw err;
  }
  try {
    return await operation(new ClientAttempt(ctx, true));
  } catch (err) {
    throw err instanceof ClientChanged ? err.refusal : err;
  }
}
