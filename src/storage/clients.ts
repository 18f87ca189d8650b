// Repository for registered clients.
import type { Db } from './database.js';
import { readVersioned, type VersionedShapes } from './json-shape.js';
import { containsText } from './text-search.js';
import type { ExpressionBuilder, Updateable } from 'kysely';
import { sql } from 'kysely';
import type { ClientRow, ClientsTable, Database, NewClientRow } from './schema.js';

export function findClient(db: Db, clientId: string): Promise<ClientRow | undefined> {
  return db.selectFrom('clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

/** A client row with its metadata read through the shapes it was handed, or why it was not (a path, never a value). */
export type ReadClientRow<M> =
  { readable: true; row: Omit<ClientRow, 'metadata'> & { metadata: M } } | { readable: false; clientId: string; reason: string };

export function readClientRow<M>(row: ClientRow, shapes: VersionedShapes<M>): ReadClientRow<M> {
  const metadata = readVersioned(row.metadata, shapes, '$.metadata');
  if (!metadata.ok) return { readable: false, clientId: row.client_id, reason: metadata.reason };
  // The row is the caller's, just read: its metadata is replaced in place rather than the row copied (a hot path).
  const read = row as Omit<ClientRow, 'metadata'> & { metadata: unknown };
  read.metadata = metadata.value;
  return { readable: true, row: read as Omit<ClientRow, 'metadata'> & { metadata: M } };
}

/** The client, read as a request uses it: one statement, its metadata read through `shapes`. */
export async function findReadableClient<M>(db: Db, shapes: VersionedShapes<M>, clientId: string): Promise<ReadClientRow<M> | undefined> {
  const row = await findClient(db, clientId);
  return row && readClientRow(row, shapes);
}

/**
 * A condition for the statement that commits a decision made with a client read earlier (domain/clients/client-cache.ts):
 * the client row still exists with that revision.
 */
export function clientUnchanged(eb: ExpressionBuilder<Database, never>, clientId: string, revision: number) {
  return eb.exists(
    eb.selectFrom('clients').select('clients.client_id').where('clients.client_id', '=', clientId).where('clients.revision', '=', revision),
  );
}

/** The client's current revision, or undefined when it is gone. */
export async function findClientRevision(db: Db, clientId: string): Promise<number | undefined> {
  const row = await db.selectFrom('clients').select('revision').where('client_id', '=', clientId).executeTakeFirst();
  return row?.revision;
}

export async function insertClient(db: Db, row: NewClientRow): Promise<void> {
  await db.insertInto('clients').values(row).execute();
}

export async function updateClient(db: Db, clientId: string, row: Omit<NewClientRow, 'client_id' | 'created_at'>): Promise<void> {
  await db.updateTable('clients').set(row).where('client_id', '=', clientId).execute();
}

/** RFC 7592: the client a registration access token (its SHA-256) was issued to. */
export function findClientByRegistrationToken(db: Db, tokenHash: string): Promise<ClientRow | undefined> {
  return db.selectFrom('clients').selectAll().where('registration_access_token_hash', '=', tokenHash).executeTakeFirst();
}

/**
 * Updates a self-registered client only while `tokenHash` is still its registration access token (a client
 * deleted or a token revoked meanwhile changes nothing); `unlessSecretExpiresAfter` also requires the secret
 * to have expired by then (so that two readers do not both renew it). The row as written, or undefined.
 */
export function updateRegisteredClient(
  db: Db,
  clientId: string,
  tokenHash: string,
  row: Updateable<ClientsTable>,
  unlessSecretExpiresAfter?: Date,
): Promise<ClientRow | undefined> {
  let query = db.updateTable('clients').set(row).where('client_id', '=', clientId).where('registration_access_token_hash', '=', tokenHash);
  if (unlessSecretExpiresAfter) query = query.where('client_secret_expires_at', '<=', unlessSecretExpiresAfter);
  return query.returningAll().executeTakeFirst();
}

/** Deletes a self-registered client with everything issued to it (codes, tokens, consents: ON DELETE CASCADE). */
export async function deleteRegisteredClient(db: Db, clientId: string, tokenHash: string): Promise<boolean> {
  const result = await db
    .deleteFrom('clients')
    .where('client_id', '=', clientId)
    .where('registration_access_token_hash', '=', tokenHash)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Revokes a registration access token: its client can no longer be read, updated or deleted over RFC 7592. */
export async function revokeRegistrationToken(db: Db, tokenHash: string, now: Date): Promise<void> {
  await db
    .updateTable('clients')
    .set({ registration_access_token_hash: null, updated_at: now })
    .where('registration_access_token_hash', '=', tokenHash)
    .execute();
}

/** Every registered client, by client_id. */
export function listClients(db: Db): Promise<ClientRow[]> {
  return db.selectFrom('clients').selectAll().orderBy('client_id').execute();
}

/** What the management API's client list filters by: a part of client_id or client_name (any case), the auth method. */
export interface ClientListFilter {
  text?: string | undefined;
  tokenEndpointAuthMethod?: string | undefined;
}

/**
 * A page of the clients matching the filter, by client_id compared byte by byte (COLLATE "C", whatever the
 * database's collation): at most `limit` after the client_id `after` (keyset pagination).
 */
export function pageClientRows(db: Db, filter: ClientListFilter, after: string | undefined, limit: number): Promise<ClientRow[]> {
  let query = db.selectFrom('clients').selectAll();
  const { text, tokenEndpointAuthMethod } = filter;
  if (text !== undefined) query = query.where(containsText(text, ['client_id', 'client_name']));
  if (tokenEndpointAuthMethod !== undefined) query = query.where('token_endpoint_auth_method', '=', tokenEndpointAuthMethod);
  if (after !== undefined) query = query.where(sql<boolean>`client_id collate "C" > ${after}`);
  return query
    .orderBy(sql`client_id collate "C"`)
    .limit(limit)
    .execute();
}

/** Inserts the client unless its client_id is taken; false when it was. */
export async function insertClientIfAbsent(db: Db, row: NewClientRow): Promise<boolean> {
  const inserted = await db
    .insertInto('clients')
    .values(row)
    .onConflict((oc) => oc.column('client_id').doNothing())
    .returning('client_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The client, its row locked until the end of the caller's transaction. */
export function findClientForUpdate(db: Db, clientId: string): Promise<ClientRow | undefined> {
  return db.selectFrom('clients').selectAll().where('client_id', '=', clientId).forUpdate().executeTakeFirst();
}

/**
 * Replaces a confidential client's secret hash; the new revision, or undefined when there is no such client. A
 * secret an admin sets does not expire, like a seeded one, whatever the lifetime a registration gave the old one.
 */
export async function replaceClientSecretHash(
  db: Db,
  clientId: string,
  method: string,
  secret: { client_secret_hash: string | null; client_secret_sealed: string | null },
  now: Date,
): Promise<number | undefined> {
  const row = await db
    .updateTable('clients')
    .set({
      client_secret_hash: secret.client_secret_hash,
      client_secret_sealed: secret.client_secret_sealed,
      client_secret_expires_at: null,
      updated_at: now,
    })
    .where('client_id', '=', clientId)
    // The secret fits the method it was made for: a client whose method changed meanwhile is left alone.
    .where('token_endpoint_auth_method', '=', method)
    .returning('revision')
    .executeTakeFirst();
  return row?.revision;
}

export interface DeletedClientRow {
  /** Still usable when the client went, and gone with it (the foreign keys cascade). */
  accessTokens: number;
  refreshTokens: number;
  codes: number;
}

/**
 * Deletes the client in one statement; its codes, access and refresh tokens, consents, pending sign-ins, device
 * requests and queued logouts go with it (ON DELETE CASCADE). The counts say how many of those were still
 * usable (read in the same snapshot, before the delete). Undefined when there was no such client.
 */
export async function deleteClientRow(db: Db, clientId: string, now: Date): Promise<DeletedClientRow | undefined> {
  const { rows } = await sql<{ deleted: string; access: string; refresh: string; codes: string }>`
    WITH gone AS (DELETE FROM clients WHERE client_id = ${clientId} RETURNING client_id)
    SELECT (SELECT count(*) FROM gone) AS deleted,
           (SELECT count(*) FROM access_tokens
             WHERE client_id = ${clientId} AND revoked_at IS NULL AND expires_at > ${now}) AS access,
           (SELECT count(*) FROM refresh_tokens
             WHERE client_id = ${clientId} AND revoked_at IS NULL AND rotated_at IS NULL AND expires_at > ${now}) AS refresh,
           (SELECT count(*) FROM authorization_codes
             WHERE client_id = ${clientId} AND consumed_at IS NULL AND expires_at > ${now}) AS codes`.execute(db);
  const row = rows[0]!;
  if (Number(row.deleted) === 0) return undefined;
  return { accessTokens: Number(row.access), refreshTokens: Number(row.refresh), codes: Number(row.codes) };
}

/** The organization a management-API client is limited to (issue 40 delegated administration); null: none. */
export async function findClientAdminOrganization(db: Db, clientId: string): Promise<string | null | undefined> {
  const row = await db.selectFrom('clients').select('admin_organization_id').where('client_id', '=', clientId).executeTakeFirst();
  return row?.admin_organization_id;
}

/** Limits the client's admin:* tokens to the organization (null lifts the limit); false when there is no such client. */
export async function setClientAdminOrganization(db: Db, clientId: string, organizationId: string | null, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('clients')
    .set({ admin_organization_id: organizationId, updated_at: now })
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
