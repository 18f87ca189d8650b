// Repository for resource servers (RFC 8707): read by identifier, listed, written by the seed and the command line.
import { sql } from 'kysely';
import type { Db } from './database.js';
import { writeFreeForm } from './json-shape.js';
import type { ResourceServerRow } from './schema.js';

export function findResourceServers(db: Db, identifiers: readonly string[]): Promise<ResourceServerRow[]> {
  if (identifiers.length === 0) return Promise.resolve([]);
  return db.selectFrom('resource_servers').selectAll().where('identifier', 'in', identifiers).execute();
}

export function listResourceServers(db: Db): Promise<ResourceServerRow[]> {
  return db.selectFrom('resource_servers').selectAll().orderBy('identifier').execute();
}

export interface ResourceServerValues {
  name: string | null;
  scopes: string[];
  /** Version 1 of its shapes (src/domain/resources/resource-servers.ts): stored without `v`. */
  scope_descriptions: Record<string, string>;
  token_format: 'opaque' | 'jwt';
  access_token_ttl_seconds: number;
  signing_alg: string;
  introspecting_clients: string[];
}

/** Inserts the resource server, or replaces the one of that identifier; true when it was new. */
export async function upsertResourceServer(db: Db, identifier: string, v: ResourceServerValues, now: Date): Promise<boolean> {
  const values = { ...v, scope_descriptions: writeFreeForm(v.scope_descriptions), updated_at: now };
  const row = await db
    .insertInto('resource_servers')
    .values({ identifier, ...values, created_at: now })
    .onConflict((oc) => oc.column('identifier').doUpdateSet(values))
    // A row the statement inserted has no deleting transaction id yet; an updated one has.
    .returning(sql<boolean>`xmax = 0`.as('inserted'))
    .executeTakeFirstOrThrow();
  return row.inserted;
}

/** Deletes it; tokens already issued for it stay valid until they expire. */
export async function deleteResourceServer(db: Db, identifier: string): Promise<boolean> {
  const result = await db.deleteFrom('resource_servers').where('identifier', '=', identifier).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
