// Repository for pending authorization requests that wait on the user (sign-in, consent).
// The request is stored as versioned JSON and read back through the shapes its owner passes in
// (src/domain/authorization/stored-interaction.ts, src/storage/json-shape.ts): during a rolling restart an instance
// may read what another version wrote.
import { sql } from 'kysely';
import type { Db } from './database.js';
import { readVersioned, writeVersioned, type VersionedShapes } from './json-shape.js';
import type { InteractionRow, OrganizationUsage } from './schema.js';

export interface NewInteraction<S extends object> {
  id: string;
  bindingHash: string;
  clientId: string;
  stored: S;
  createdAt: Date;
  expiresAt: Date;
  /** Issue 40: the organization the request named; null or absent: none (yet). */
  organizationId?: string | null;
}

export async function insertInteraction<S extends object>(db: Db, shapes: VersionedShapes<S>, i: NewInteraction<S>): Promise<void> {
  await db
    .insertInto('interactions')
    .values({
      id: i.id,
      binding_hash: i.bindingHash,
      client_id: i.clientId,
      request: writeVersioned(i.stored, shapes),
      created_at: i.createdAt,
      expires_at: i.expiresAt,
      organization_id: i.organizationId ?? null,
    })
    .execute();
}

export type FoundInteraction<S> = Omit<InteractionRow, 'request'> & {
  /** Its client is limited to groups now (src/domain/groups/allowed-groups.ts): read with the row, not after it. */
  client_group_restricted: boolean;
  /** Its client requires a second factor now (`require_mfa` metadata, src/domain/accounts/second-factor-policy.ts). */
  client_require_mfa: boolean;
  /** Its client's `organization_usage` now (none when the client is gone). */
  client_organization_usage: OrganizationUsage;
} & ({ readable: true; stored: S } | { readable: false; reason: string });

/** The row, with its stored request checked; `readable: false` (and why, never a value) when it does not fit. */
export async function findInteraction<S>(db: Db, shapes: VersionedShapes<S>, id: string): Promise<FoundInteraction<S> | undefined> {
  const row = await db
    .selectFrom('interactions as i')
    .leftJoin('clients as c', 'c.client_id', 'i.client_id')
    .selectAll('i')
    .select(sql<boolean>`coalesce(c.group_restricted, false)`.as('client_group_restricted'))
    .select(sql<boolean>`coalesce(c.metadata->'require_mfa' = 'true'::jsonb, false)`.as('client_require_mfa'))
    .select(sql<OrganizationUsage>`coalesce(c.organization_usage, 'none')`.as('client_organization_usage'))
    .where('i.id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  const { request, ...rest } = row;
  const read = readVersioned(request, shapes);
  return read.ok ? { ...rest, readable: true, stored: read.value } : { ...rest, readable: false, reason: read.reason };
}

/** Marks the interaction done; false when another request completed it first. */
export async function completeInteraction(db: Db, id: string, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('interactions')
    .set({ completed_at: now })
    .where('id', '=', id)
    .where('completed_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Issue 40: the organization the person picked for a pending interaction; false when it is complete or gone. */
export async function setInteractionOrganization(db: Db, id: string, organizationId: string): Promise<boolean> {
  const row = await db
    .updateTable('interactions')
    .set({ organization_id: organizationId })
    .where('id', '=', id)
    .where('completed_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
