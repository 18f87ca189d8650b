// Registering, changing and removing clients by hand: the same validation and columns as the seed file, secrets
// generated here (256 random bits, shown once, stored as a keyed digest: src/domain/clients/client-secret-digest.ts). Every
// change goes through an UPDATE, so the row's revision rises (trigger clients_revision) and every instance's cached
// copy is refused (client-cache.ts).
import {
  deleteClientRow,
  findClient,
  findClientForUpdate,
  insertClientIfAbsent,
  listClients as listClientRows,
  pageClientRows,
  type ClientListFilter,
  replaceClientSecretHash,
  updateClient as updateClientRow,
} from '../../storage/clients.js';
import type { Db } from '../../storage/database.js';
import type { ClientRow } from '../../storage/schema.js';
import { inAdminTransaction, logAdminAction, NOT_RECORDED, type AdminContext } from '../admin/admin.js';
import { AdminError } from '../admin-error.js';
import { ClientSecretDigests } from './client-secret-digest.js';
import { randomToken } from '../secrets.js';
import {
  CLIENT_FIELDS,
  clientColumns,
  clientEntryProblems,
  clientRowValues,
  NO_SECRET,
  secretRowValues,
  type ClientEntry,
  type SecretColumns,
} from '../client-entry.js';
import { holdsSecret } from './auth-methods.js';
import { jwksUriRuleProblem } from './client-jwks.js';
import { issueClientSecret } from './issued-secret.js';
import { emitClientChanged } from '../webhooks/emit.js';
import { allowedGroupNames } from '../../storage/groups.js';
import { writeAllowedGroups } from '../groups/allowed-groups.js';

export interface RegisteredClient {
  entry: ClientEntry;
  hasSecret: boolean;
  /** How the secret is stored: a generated one as a keyed digest, a seeded (operator-chosen) one as argon2id. */
  secretStorage: 'hmac-sha256' | 'argon2id' | null;
  revision: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Fields an update may remove (the defaults of the seed file then apply). */
export const REMOVABLE_CLIENT_FIELDS: readonly string[] = [...CLIENT_FIELDS].filter((f) => f !== 'client_id' && f !== 'client_secret');

/** The entry's client holds a secret generated here (public and private_key_jwt clients hold none). */
const withSecret = (entry: ClientEntry) => holdsSecret(entry.token_endpoint_auth_method ?? 'client_secret_basic');

/** `allowedGroups`: the names of the groups a group-restricted client is limited to (storage/groups.ts). */
function entryFromRow(row: ClientRow, allowedGroups: string[]): ClientEntry {
  return {
    client_id: row.client_id,
    ...(row.client_name === null ? {} : { client_name: row.client_name }),
    token_endpoint_auth_method: row.token_endpoint_auth_method as ClientEntry['token_endpoint_auth_method'],
    redirect_uris: row.redirect_uris,
    post_logout_redirect_uris: row.post_logout_redirect_uris,
    grant_types: row.grant_types,
    response_types: row.response_types,
    ...row.metadata,
    ...(row.group_restricted ? { allowed_groups: allowedGroups } : {}),
    ...(row.organization_usage === 'none' ? {} : { organization_usage: row.organization_usage }),
  };
}

/** The client as the seed file writes it, with the groups it is limited to (one query more, only when it is). */
async function readEntry(db: Db, row: ClientRow): Promise<ClientEntry> {
  return entryFromRow(row, row.group_restricted ? await allowedGroupNames(db, row.client_id) : []);
}

async function registered(db: Db, row: ClientRow): Promise<RegisteredClient> {
  return {
    entry: await readEntry(db, row),
    hasSecret: row.client_secret_hash !== null,
    secretStorage: row.client_secret_hash === null ? null : ClientSecretDigests.owns(row.client_secret_hash) ? 'hmac-sha256' : 'argon2id',
    revision: row.revision,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * The entry's problems, the secret aside: a confidential client is checked with a stand-in for the secret that this
 * module generates (or keeps), which always meets the seed file's rules.
 */
function problems(entry: ClientEntry): string[] {
  return clientEntryProblems(withSecret(entry) ? { ...entry, client_secret: randomToken() } : entry);
}

/** Refuses an entry that the seed file would refuse; for checking a command line before the database opens. */
export function checkClientEntry(entry: ClientEntry): void {
  const found = problems(entry);
  if (found.length > 0) throw new AdminError(`client "${entry.client_id}" was refused: ${found.join('; ')}`);
}

/**
 * The jwks_uri held to the rule it is fetched under (client-jwks.ts), now that the configuration is known: an address
 * literal of this machine or a private network is refused unless OUTBOUND_ALLOW_NETWORKS allows it (src/outbound/).
 */
function checkJwksUri(ctx: AdminContext, entry: ClientEntry): void {
  const why = typeof entry.jwks_uri === 'string' ? jwksUriRuleProblem(ctx.config, entry.jwks_uri) : undefined;
  if (why) throw new AdminError(`client "${entry.client_id}" was refused: jwks_uri ${why}`);
}

export async function listClients(ctx: AdminContext): Promise<RegisteredClient[]> {
  return Promise.all((await listClientRows(ctx.db)).map((row) => registered(ctx.db, row)));
}

/** A page of the clients the filter selects, by client_id, after `after` (the management API's list). */
export async function listClientPage(
  ctx: AdminContext,
  filter: ClientListFilter,
  after: string | undefined,
  limit: number,
): Promise<RegisteredClient[]> {
  return Promise.all((await pageClientRows(ctx.db, filter, after, limit)).map((row) => registered(ctx.db, row)));
}

async function existing(db: Db, clientId: string, read = findClient): Promise<ClientRow> {
  const row = await read(db, clientId);
  if (!row) throw new AdminError(`no client "${clientId}"`, 'not_found');
  return row;
}

export async function showClient(ctx: AdminContext, clientId: string): Promise<RegisteredClient> {
  return registered(ctx.db, await existing(ctx.db, clientId));
}

export interface CreatedClient {
  client: RegisteredClient;
  /** The new secret, to be shown once; undefined for a public client. */
  clientSecret: string | undefined;
}

export async function createClient(ctx: AdminContext, entry: ClientEntry): Promise<CreatedClient> {
  checkClientEntry(entry);
  checkJwksUri(ctx, entry);
  const issued = withSecret(entry)
    ? await issueClientSecret(ctx, entry.client_id, entry.token_endpoint_auth_method ?? 'client_secret_basic')
    : undefined;
  const clientSecret = issued?.secret;
  const columns = clientColumns(entry, issued?.columns ?? NO_SECRET);
  const now = ctx.clock();
  const client = await inAdminTransaction(ctx, async (trx) => {
    const inserted = await insertClientIfAbsent(trx, {
      client_id: entry.client_id,
      ...clientRowValues(columns),
      created_at: now,
      updated_at: now,
    });
    if (!inserted) throw new AdminError(`client "${entry.client_id}" already exists (clients update changes it)`, 'conflict');
    await limitToGroups(trx, entry);
    await emitClientChanged(ctx, trx, entry.client_id, 'created', { via: 'admin' });
    const created = await registered(trx, await existing(trx, entry.client_id));
    await logAdminAction(ctx, trx, {
      event: 'admin.client.created',
      target: { type: 'client', id: entry.client_id },
      changes: { ...withDefaults(created.entry), ...(clientSecret !== undefined ? { client_secret: NOT_RECORDED } : {}) },
      log: { clientId: entry.client_id, tokenEndpointAuthMethod: columns.token_endpoint_auth_method, revision: created.revision },
    });
    return created;
  });
  return { client, clientSecret };
}

export interface ClientChanges {
  /** Fields to set, in the seed file's format; a list replaces the whole list. */
  set: Partial<ClientEntry>;
  /** Fields to remove. */
  remove: readonly string[];
  /** Checked on the client as locked for the change (an HTTP If-Match): throws to refuse it, nothing written. */
  precondition?: (current: RegisteredClient) => void;
}

export interface UpdatedClient {
  client: RegisteredClient;
  /** The fields whose value changed; empty when nothing did (and nothing was written). */
  changed: string[];
  /** A secret generated because the client became confidential; shown once. */
  clientSecret: string | undefined;
}

/** Defaults filled in, so that removing a field that held its default is no change; group names compared in any case. */
function withDefaults(entry: ClientEntry): Record<string, unknown> {
  const {
    metadata,
    client_secret_hash: _hash,
    client_secret_sealed: _sealed,
    group_restricted: _limited,
    ...columns
  } = clientColumns(entry, NO_SECRET);
  const groups = entry.allowed_groups?.map((g) => g.toLowerCase()).sort();
  return { client_id: entry.client_id, ...columns, ...metadata, ...(groups === undefined ? {} : { allowed_groups: groups }) };
}

/** Writes the groups the entry limits its client to (or lifts the limit); refuses a name no group has. */
async function limitToGroups(db: Db, entry: ClientEntry): Promise<void> {
  const missing = await writeAllowedGroups(db, entry.client_id, entry.allowed_groups);
  if (missing.length > 0) throw new AdminError(`no group "${missing.join('", "')}" (sso-admin groups list shows them)`);
}

/**
 * Applies the changes to the registered client, validated as a whole. The secret is kept while the client stays
 * confidential, dropped when it becomes public, and generated when it becomes confidential.
 */
export async function updateClient(ctx: AdminContext, clientId: string, changes: ClientChanges): Promise<UpdatedClient> {
  for (const field of changes.remove) {
    if (!REMOVABLE_CLIENT_FIELDS.includes(field))
      throw new AdminError(`"${field}" is not a field that can be removed (${REMOVABLE_CLIENT_FIELDS.join(', ')})`);
  }
  if ('client_id' in changes.set && changes.set.client_id !== clientId) throw new AdminError('client_id cannot be changed');
  return inAdminTransaction(ctx, async (trx) => {
    const row = await existing(trx, clientId, findClientForUpdate);
    changes.precondition?.(await registered(trx, row));
    const current = await readEntry(trx, row);
    const next: Record<string, unknown> = { ...current, ...changes.set };
    for (const field of changes.remove) delete next[field];
    const entry = next as ClientEntry;
    checkClientEntry(entry);
    if (changes.set.jwks_uri !== undefined) checkJwksUri(ctx, entry);

    const before = withDefaults(current);
    const after = withDefaults(entry);
    const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])]
      .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
      .sort();
    if (changed.length === 0) return { client: await registered(trx, row), changed, clientSecret: undefined };

    // The secret is kept while the client holds one (sealed too for client_secret_jwt, where a secret held only as
    // a digest is replaced), dropped when it holds none any more (public, private_key_jwt), generated when it must.
    let clientSecret: string | undefined;
    const method = entry.token_endpoint_auth_method ?? 'client_secret_basic';
    let secret: SecretColumns = NO_SECRET;
    if (withSecret(entry)) {
      const keep = row.client_secret_hash !== null && (method !== 'client_secret_jwt' || row.client_secret_sealed !== null);
      if (keep)
        secret = {
          client_secret_hash: row.client_secret_hash,
          client_secret_sealed: method === 'client_secret_jwt' ? (row.client_secret_sealed as SecretColumns['client_secret_sealed']) : null,
        };
      else {
        const issued = await issueClientSecret({ ...ctx, db: trx }, clientId, method);
        clientSecret = issued.secret;
        secret = issued.columns;
      }
    }
    const columns = clientColumns(entry, secret);
    await updateClientRow(trx, clientId, { ...clientRowValues(columns), updated_at: ctx.clock() });
    await limitToGroups(trx, entry);
    await emitClientChanged(ctx, trx, clientId, 'updated', { fields: changed, via: 'admin' });
    const client = await registered(trx, await existing(trx, clientId));
    await logAdminAction(ctx, trx, {
      event: 'admin.client.updated',
      target: { type: 'client', id: clientId },
      changes: {
        ...Object.fromEntries(changed.map((k) => [k, after[k] ?? null])),
        ...(clientSecret !== undefined ? { client_secret: NOT_RECORDED } : {}),
      },
      log: { clientId, fields: changed, revision: client.revision, secretGenerated: clientSecret !== undefined },
    });
    return { client, changed, clientSecret };
  });
}

/** A new secret for a confidential client; the old one stops working at once, on every instance. */
export async function rotateClientSecret(ctx: AdminContext, clientId: string): Promise<{ clientSecret: string; revision: number }> {
  const row = await existing(ctx.db, clientId);
  if (!holdsSecret(row.token_endpoint_auth_method))
    throw new AdminError(`client "${clientId}" holds no secret (token_endpoint_auth_method ${row.token_endpoint_auth_method})`);
  const issued = await issueClientSecret(
    ctx,
    clientId,
    row.token_endpoint_auth_method as ClientEntry['token_endpoint_auth_method'] & string,
  );
  const clientSecret = issued.secret;
  const revision = await inAdminTransaction(ctx, async (trx) => {
    const done = await replaceClientSecretHash(trx, clientId, row.token_endpoint_auth_method, secretRowValues(issued.columns), ctx.clock());
    if (done === undefined) throw new AdminError(`client "${clientId}" changed meanwhile: nothing was written, try again`, 'conflict');
    await emitClientChanged(ctx, trx, clientId, 'secret_rotated', { via: 'admin' });
    await logAdminAction(ctx, trx, {
      event: 'admin.client.secret_rotated',
      target: { type: 'client', id: clientId },
      changes: { client_secret: NOT_RECORDED },
      log: { clientId, revision: done },
    });
    return done;
  });
  return { clientSecret, revision };
}

export interface DeletedClient {
  clientId: string;
  accessTokens: number;
  refreshTokens: number;
  codes: number;
}

/**
 * Removes the client and, with it, every code and token it holds (counted: those still usable). A precondition (an
 * HTTP If-Match) is checked on the client as locked for the deletion.
 */
export async function deleteClient(
  ctx: AdminContext,
  clientId: string,
  precondition?: (current: RegisteredClient) => void,
): Promise<DeletedClient> {
  return inAdminTransaction(ctx, async (trx) => {
    if (precondition) precondition(await registered(trx, await existing(trx, clientId, findClientForUpdate)));
    const deleted = await deleteClientRow(trx, clientId, ctx.clock());
    if (!deleted) throw new AdminError(`no client "${clientId}"`, 'not_found');
    await emitClientChanged(ctx, trx, clientId, 'deleted', { via: 'admin' });
    await logAdminAction(ctx, trx, {
      event: 'admin.client.deleted',
      target: { type: 'client', id: clientId },
      log: { clientId, ...deleted },
    });
    return { clientId, ...deleted };
  });
}
