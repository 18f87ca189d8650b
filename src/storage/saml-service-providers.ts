// Repository for the SAML service providers the provider signs people in to, and the groups each is limited to.
import { sql } from 'kysely';
import type { Db } from './database.js';
import type { SamlServiceProviderRow } from './schema.js';

export interface SamlServiceProviderColumns {
  entity_id: string;
  metadata_xml: string;
  metadata_url: string | null;
  name_id_format: string;
  /** Written as JSON: the attribute list, read back through its shape by the domain. */
  attributes: unknown;
  sign_assertion: boolean;
  sign_response: boolean;
  encrypt_assertion: boolean;
  idp_initiated: boolean;
  group_restricted: boolean;
  encryption_algorithm: string;
  /** When the metadata was read from metadata_url (absent: left as it is; null: given inline). */
  metadata_refreshed_at?: Date | null;
}

export function listSamlServiceProviderRows(db: Db): Promise<SamlServiceProviderRow[]> {
  return db.selectFrom('saml_service_providers').selectAll().orderBy('entity_id').execute();
}

export function findSamlServiceProviderRow(db: Db, entityId: string): Promise<SamlServiceProviderRow | undefined> {
  return db.selectFrom('saml_service_providers').selectAll().where('entity_id', '=', entityId).executeTakeFirst();
}

/** Inserts the service provider, or replaces every column of the one with its entityID; true when it was new. */
export async function upsertSamlServiceProviderRow(db: Db, columns: SamlServiceProviderColumns, now: Date): Promise<boolean> {
  const values = { ...columns, attributes: JSON.stringify(columns.attributes) };
  const row = await db
    .insertInto('saml_service_providers')
    .values({ ...values, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('entity_id').doUpdateSet({ ...values, updated_at: now }))
    .returning(sql<boolean>`(xmax = 0)`.as('inserted'))
    .executeTakeFirstOrThrow();
  return row.inserted;
}

export async function deleteSamlServiceProviderRow(db: Db, entityId: string): Promise<boolean> {
  const result = await db.deleteFrom('saml_service_providers').where('entity_id', '=', entityId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Limits the service provider to exactly these groups (none: only the rows go; the caller writes group_restricted). */
export async function replaceSpAllowedGroups(db: Db, entityId: string, groupIds: readonly string[]): Promise<void> {
  await db.deleteFrom('saml_sp_allowed_groups').where('entity_id', '=', entityId).execute();
  if (groupIds.length === 0) return;
  await db
    .insertInto('saml_sp_allowed_groups')
    .values(groupIds.map((groupId) => ({ entity_id: entityId, group_id: groupId })))
    .execute();
}

/** The names of the groups a service provider is limited to. */
export async function spAllowedGroupNames(db: Db, entityId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('saml_sp_allowed_groups as a')
    .innerJoin('groups as g', 'g.id', 'a.group_id')
    .select('g.name')
    .where('a.entity_id', '=', entityId)
    .orderBy(sql`lower(g.name)`)
    .execute();
  return rows.map((r) => r.name);
}

/**
 * Whether the group-restricted service provider admits the user: as clientAdmitsUser (storage/groups.ts) does for
 * clients, a member of one of its groups, or one whose upstream-mapped groups (users.claims.groups) name one.
 */
export async function spAdmitsUser(db: Db, entityId: string, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('users as u')
    .select(
      sql<boolean>`EXISTS (
        SELECT 1 FROM saml_sp_allowed_groups a JOIN groups g ON g.id = a.group_id
         WHERE a.entity_id = ${entityId}
           AND (EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = a.group_id AND m.user_id = u.id)
                OR lower(g.name) IN (SELECT lower(x) FROM jsonb_array_elements_text(
                     CASE WHEN jsonb_typeof(u.claims -> 'groups') = 'array' THEN u.claims -> 'groups' ELSE '[]'::jsonb END) AS x)))`.as(
        'admitted',
      ),
    )
    .where('u.id', '=', userId)
    .executeTakeFirst();
  return row?.admitted === true;
}

/** The metadata read again from its URL, and when; false when the SP is gone. */
export async function updateSamlSpMetadata(db: Db, entityId: string, metadataXml: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('saml_service_providers')
    .set({ metadata_xml: metadataXml, metadata_refreshed_at: now, updated_at: now })
    .where('entity_id', '=', entityId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
