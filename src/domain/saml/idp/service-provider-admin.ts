// Registering, changing, showing and removing SAML service providers by hand (sso-admin saml-sps, the seed file, the
// API): each change with its audit record in one transaction, and the view an admin sees.
import type { Db } from '../../../storage/database.js';
import {
  deleteSamlServiceProviderRow,
  findSamlServiceProviderRow,
  listSamlServiceProviderRows,
  replaceSpAllowedGroups,
  spAllowedGroupNames,
  upsertSamlServiceProviderRow,
} from '../../../storage/saml-service-providers.js';
import { findGroupsByNames } from '../../../storage/groups.js';
import { inAdminTransaction, logAdminAction, type AdminContext } from '../../admin/admin.js';
import { AdminError } from '../../admin-error.js';
import type { OutboundDeps } from '../../../outbound/guarded-fetch.js';
import { SamlError } from '../saml-error.js';
import { describeSamlKeys, rotateSamlKeys, type DescribedSamlKey, type RotatedSamlKey } from '../../keys/saml-keys.js';
import {
  readSpMetadata,
  rowToServiceProvider,
  spColumns,
  spEntryProblems,
  withSpMetadata,
  blockCipherFor,
  type ReleasedAttribute,
  type SamlSpEntry,
} from './service-providers.js';

/** What an admin sees of a service provider: its settings and what its metadata says. */
export interface SamlSpView {
  entity_id: string;
  metadata_url: string | null;
  name_id_format: string;
  attributes: ReleasedAttribute[];
  sign_assertion: boolean;
  sign_response: boolean;
  encrypt_assertion: boolean;
  /** The block cipher set for it; `encryption_method` is the one used (its metadata's choice when we support it). */
  encryption_algorithm: string;
  encryption_method: string;
  idp_initiated: boolean;
  allowed_groups?: string[];
  acs: Array<{ binding: string; location: string; index: number; is_default: boolean }>;
  authn_requests_signed: boolean;
  signing_certificates: number;
  encryption_certificates: number;
}

/** Refuses an entry the seed file would refuse. */
export function checkSpEntry(entry: Record<string, unknown>): SamlSpEntry {
  const problems = spEntryProblems(entry);
  if (problems.length > 0) throw new AdminError(`service provider refused: ${problems.join('; ')}`);
  return entry as unknown as SamlSpEntry;
}

async function view(ctx: Pick<AdminContext, 'db'>, entityId: string): Promise<{ view: SamlSpView; entry: SamlSpEntry }> {
  const row = await findSamlServiceProviderRow(ctx.db, entityId);
  if (!row) throw new AdminError(`no service provider "${entityId}"`, 'not_found');
  const read = rowToServiceProvider(row);
  if ('problem' in read) throw new AdminError(`service provider "${entityId}" is stored unreadably (${read.problem}): add it again`);
  const { sp } = read;
  const groups = sp.groupRestricted ? await spAllowedGroupNames(ctx.db, entityId) : undefined;
  const entry: SamlSpEntry = {
    metadata_xml: sp.metadataXml,
    ...(sp.metadataUrl === null ? {} : { metadata_url: sp.metadataUrl }),
    name_id_format: sp.nameIdFormat,
    attributes: sp.attributes,
    sign_assertion: sp.signAssertion,
    sign_response: sp.signResponse,
    encrypt_assertion: sp.encryptAssertion,
    encryption_algorithm: sp.encryptionAlgorithm,
    idp_initiated: sp.idpInitiated,
    ...(groups === undefined ? {} : { allowed_groups: groups }),
  };
  return {
    entry,
    view: {
      entity_id: sp.entityId,
      metadata_url: sp.metadataUrl,
      name_id_format: sp.nameIdFormat,
      attributes: sp.attributes,
      sign_assertion: sp.signAssertion,
      sign_response: sp.signResponse,
      encrypt_assertion: sp.encryptAssertion,
      encryption_algorithm: sp.encryptionAlgorithm,
      encryption_method: blockCipherFor(sp),
      idp_initiated: sp.idpInitiated,
      ...(groups === undefined ? {} : { allowed_groups: groups }),
      acs: sp.role.assertionConsumerServices.map((a) => ({
        binding: a.binding,
        location: a.location,
        index: a.index,
        is_default: a.isDefault,
      })),
      authn_requests_signed: sp.role.authnRequestsSigned,
      signing_certificates: sp.role.signingCertificates.length,
      encryption_certificates: sp.role.encryptionCertificates.length,
    },
  };
}

export async function showServiceProvider(ctx: Pick<AdminContext, 'db'>, entityId: string): Promise<SamlSpView> {
  return (await view(ctx, entityId)).view;
}

export async function listServiceProviders(ctx: Pick<AdminContext, 'db'>): Promise<SamlSpView[]> {
  const rows = await listSamlServiceProviderRows(ctx.db);
  return Promise.all(rows.map(async (r) => (await view(ctx, r.entity_id)).view));
}

/** An admin context that may carry the provider's outbound settings (the API's does; the command line's uses the system's). */
type FetchingAdminContext = AdminContext & { outbound?: OutboundDeps };

/** The entry with its metadata read from its metadata_url when none is given inline (withSpMetadata), refused in words. */
async function withMetadata(
  ctx: FetchingAdminContext,
  input: Record<string, unknown>,
): Promise<{ input: Record<string, unknown>; fetchedAt?: Date }> {
  try {
    const { entry, fetched } = await withSpMetadata({ config: ctx.config, outbound: ctx.outbound }, input);
    return fetched ? { input: entry, fetchedAt: ctx.clock() } : { input: entry };
  } catch (err) {
    if (err instanceof SamlError) throw new AdminError(`service provider refused: ${err.description}`);
    throw err;
  }
}

/** An entry read and checked, ready to store: its metadata (fetched when only its URL was given) and the entityID it names. */
export interface PreparedSp {
  entry: SamlSpEntry;
  entityId: string;
  /** When the metadata was read from its URL; null when it was given inline (the next refresh reads the URL). */
  fetchedAt: Date | null;
}

/**
 * The first phase of registering a service provider, writing nothing: the metadata read from metadata_url when the
 * entry has no metadata_xml (through the guarded fetch), then the entry checked as the seed file checks it. A URL
 * that cannot be read, or serves what is not SP metadata, is an AdminError naming why.
 */
export async function prepareServiceProvider(ctx: FetchingAdminContext, raw: Record<string, unknown>): Promise<PreparedSp> {
  if (raw.metadata_xml === undefined && raw.metadata_url === undefined)
    throw new AdminError('service provider refused: metadata_xml or metadata_url is required');
  const { input, fetchedAt } = await withMetadata(ctx, raw);
  const entry = checkSpEntry(input);
  return { entry, entityId: readSpMetadata(entry.metadata_xml).entityId, fetchedAt: fetchedAt ?? null };
}

async function write(
  ctx: AdminContext,
  trx: Db,
  entry: SamlSpEntry,
  fetchedAt?: Date | null,
): Promise<{ entityId: string; created: boolean }> {
  const columns = { ...spColumns(entry), ...(fetchedAt !== undefined ? { metadata_refreshed_at: fetchedAt } : {}) };
  const groups = await findGroupsByNames(trx, entry.allowed_groups ?? []);
  const found = new Set(groups.map((g) => g.name.toLowerCase()));
  const missing = (entry.allowed_groups ?? []).filter((n) => !found.has(n.toLowerCase()));
  if (missing.length > 0) throw new AdminError(`allowed_groups names no group "${missing.join('", "')}"`);
  const created = await upsertSamlServiceProviderRow(trx, columns, ctx.clock());
  await replaceSpAllowedGroups(
    trx,
    columns.entity_id,
    groups.map((g) => g.id),
  );
  const { metadata_xml: _xml, ...fields } = entry;
  await logAdminAction(ctx, trx, {
    event: created ? 'admin.saml_sp.created' : 'admin.saml_sp.replaced',
    target: { type: 'saml_sp', id: columns.entity_id },
    changes: { ...fields, metadata_xml: '(metadata)' },
    log: { entityId: columns.entity_id },
  });
  return { entityId: columns.entity_id, created };
}

/** The second phase: stores a prepared entry (a new SP, or every setting of the one registered) with its audit record. */
export async function storeServiceProvider(ctx: AdminContext, prepared: PreparedSp): Promise<{ sp: SamlSpView; created: boolean }> {
  return inAdminTransaction(ctx, async (trx, tctx) => {
    const { entityId, created } = await write(tctx, trx, prepared.entry, prepared.fetchedAt);
    return { sp: (await view(tctx, entityId)).view, created };
  });
}

/**
 * Registers the service provider its metadata names (inline, or read from metadata_url), or replaces every setting
 * of the one registered. With `expected.entityId` (the API's path, the key a replacement is for), metadata naming
 * another entity is refused: an SP's key is the entityID its metadata names, never changed by new metadata.
 */
export async function setServiceProvider(
  ctx: FetchingAdminContext,
  raw: Record<string, unknown>,
  expected: { entityId?: string } = {},
): Promise<{ sp: SamlSpView; created: boolean }> {
  const prepared = await prepareServiceProvider(ctx, raw);
  if (expected.entityId !== undefined && prepared.entityId !== expected.entityId)
    throw new AdminError(`the metadata names "${prepared.entityId}", not "${expected.entityId}": an SP is keyed by its entityID`);
  return storeServiceProvider(ctx, prepared);
}

/** Changes some settings of a registered service provider (new metadata must name the same entityID). */
export async function updateServiceProvider(
  ctx: FetchingAdminContext,
  entityId: string,
  raw: Record<string, unknown>,
): Promise<SamlSpView> {
  const { input: changes, fetchedAt } = await withMetadata(ctx, raw);
  return inAdminTransaction(ctx, async (trx, tctx) => {
    const { entry: current } = await view(tctx, entityId);
    const merged: Record<string, unknown> = { ...current, ...changes };
    // allowed_groups: null lifts the limit.
    if (changes.allowed_groups === null) delete merged.allowed_groups;
    const entry = checkSpEntry(merged);
    const named = readSpMetadata(entry.metadata_xml).entityId;
    if (named !== entityId)
      throw new AdminError(`the new metadata names "${named}", not "${entityId}": add it as a service provider of its own`);
    await write(tctx, trx, entry, fetchedAt ?? (changes.metadata_xml !== undefined ? null : undefined));
    return (await view(tctx, entityId)).view;
  });
}

export async function removeServiceProvider(ctx: AdminContext, entityId: string): Promise<void> {
  await inAdminTransaction(ctx, async (trx) => {
    if (!(await deleteSamlServiceProviderRow(trx, entityId))) throw new AdminError(`no service provider "${entityId}"`, 'not_found');
    await logAdminAction(ctx, trx, { event: 'admin.saml_sp.removed', target: { type: 'saml_sp', id: entityId }, log: { entityId } });
  });
}

/** Adds a new SAML signing key, published now in the metadata and signing after `delay` seconds, with its audit record. */
export async function rotateSamlKey(ctx: AdminContext, delay = ctx.config.keyActivationDelaySeconds): Promise<RotatedSamlKey> {
  return rotateSamlKeys(ctx, {
    activationDelaySeconds: delay,
    record: (trx, key) =>
      logAdminAction(ctx, trx, {
        event: 'admin.saml_key.rotated',
        target: { type: 'saml_key', id: key.id },
        changes: { activates_at: key.activatesAt.toISOString() },
        log: { samlKey: key.id },
      }),
  });
}

export { describeSamlKeys, type DescribedSamlKey };
