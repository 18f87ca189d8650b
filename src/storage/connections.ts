// Repository for upstream connections and the links of upstream accounts to local users (issue 19).
import { sql } from 'kysely';
import type { Db } from './database.js';
import { writeFreeForm } from './json-shape.js';
import type { ConnectionLinkRow, ConnectionRow } from './schema.js';
import { writeSealedSecret, type SealedSecret } from './sealed-secret.js';

export function findConnectionRow(db: Db, id: string): Promise<ConnectionRow | undefined> {
  return db.selectFrom('connections').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listConnectionRows(db: Db): Promise<ConnectionRow[]> {
  return db.selectFrom('connections').selectAll().orderBy('id').execute();
}

export interface ConnectionColumns {
  id: string;
  display_name: string;
  icon: string | null;
  kind: string;
  preset: string | null;
  issuer: string | null;
  authorization_endpoint: string | null;
  token_endpoint: string | null;
  userinfo_endpoint: string | null;
  client_id: string;
  client_secret_sealed: SealedSecret | null;
  scopes: string[];
  /** Version 1 of its shapes (src/domain/connections/connection.ts): stored without `v`. */
  claim_mapping: Record<string, string>;
  provisioning: string;
  email_domains: string[];
  trust_amr: boolean;
  store_tokens: boolean;
  enabled: boolean;
  /** Kind saml: its settings as written by their shapes (src/domain/saml/sp/saml-settings.ts); null otherwise. */
  saml?: string | null;
  /** The organization it belongs to (issue 40); null: provider-wide. */
  organization_id?: string | null;
}

/** Inserts the connection, or replaces every column of the one with its id; true when it was new. */
export async function upsertConnectionRow(db: Db, c: ConnectionColumns, now: Date): Promise<boolean> {
  const values = {
    ...c,
    client_secret_sealed: c.client_secret_sealed === null ? null : writeSealedSecret(c.client_secret_sealed),
    claim_mapping: writeFreeForm(c.claim_mapping),
  };
  const { id: _id, ...changes } = values;
  // Turning store_tokens off forgets what was kept, in the same statement (a data-modifying WITH runs either way).
  const row = await db
    .with('forgotten', (qb) =>
      qb
        .updateTable('connection_links')
        .set({ tokens_sealed: null, tokens_stored_at: null })
        .where('connection_id', '=', c.id)
        .where('tokens_sealed', 'is not', null)
        .where(sql<boolean>`${!c.store_tokens}`)
        .returning('subject'),
    )
    .insertInto('connections')
    .values({ ...values, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet({ ...changes, updated_at: now }))
    .returning('created_at')
    .executeTakeFirstOrThrow();
  return row.created_at.getTime() === now.getTime();
}

export async function deleteConnectionRow(db: Db, id: string): Promise<boolean> {
  const result = await db.deleteFrom('connections').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export function findLink(db: Db, connectionId: string, subject: string): Promise<ConnectionLinkRow | undefined> {
  return db
    .selectFrom('connection_links')
    .selectAll()
    .where('connection_id', '=', connectionId)
    .where('subject', '=', subject)
    .executeTakeFirst();
}

/** Links the upstream account to the user; false when it is linked already (to anyone). */
export async function insertLink(
  db: Db,
  link: { connectionId: string; subject: string; userId: string; now: Date; provisioned?: boolean },
): Promise<boolean> {
  const inserted = await db
    .insertInto('connection_links')
    .values({
      connection_id: link.connectionId,
      subject: link.subject,
      user_id: link.userId,
      created_at: link.now,
      last_used_at: link.now,
      provisioned: link.provisioned ?? false,
    })
    .onConflict((oc) => oc.columns(['connection_id', 'subject']).doNothing())
    .returning('user_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function touchLink(db: Db, connectionId: string, subject: string, now: Date): Promise<void> {
  await db
    .updateTable('connection_links')
    .set({ last_used_at: now })
    .where('connection_id', '=', connectionId)
    .where('subject', '=', subject)
    .execute();
}

/** The link's kept upstream tokens replaced (sealed), or forgotten with null. */
export async function storeLinkTokens(
  db: Db,
  link: { connectionId: string; subject: string },
  sealed: SealedSecret | null,
  now: Date,
): Promise<void> {
  await db
    .updateTable('connection_links')
    .set({ tokens_sealed: sealed === null ? null : writeSealedSecret(sealed), tokens_stored_at: sealed === null ? null : now })
    .where('connection_id', '=', link.connectionId)
    .where('subject', '=', link.subject)
    .execute();
}

export function listLinksOfUser(db: Db, userId: string): Promise<ConnectionLinkRow[]> {
  return db
    .selectFrom('connection_links')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('connection_id')
    .orderBy('created_at')
    .execute();
}

export function listLinksOfConnection(db: Db, connectionId: string): Promise<ConnectionLinkRow[]> {
  return db.selectFrom('connection_links').selectAll().where('connection_id', '=', connectionId).orderBy('created_at').execute();
}

/** Removes one link of the user's; false when there was none. */
export async function deleteLink(db: Db, userId: string, connectionId: string, subject: string): Promise<boolean> {
  const result = await db
    .deleteFrom('connection_links')
    .where('user_id', '=', userId)
    .where('connection_id', '=', connectionId)
    .where('subject', '=', subject)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The saml settings of a saml connection replaced (a metadata refresh); false when it is gone or no longer saml. */
export async function updateConnectionSaml(db: Db, id: string, saml: string, issuer: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('connections')
    .set({ saml, issuer, updated_at: now })
    .where('id', '=', id)
    .where('kind', '=', 'saml')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
