// The seed file's `connections` section and `npm run admin -- connections add`: each entry checked (every problem
// named), then stored with its client secret sealed (sealed-secrets.ts, purpose connection-secret). A preset's
// endpoints are not copied into the row: they stay the preset's unless the entry overrides them.
import { findConnectionRow, upsertConnectionRow, type ConnectionColumns } from '../../storage/connections.js';
import type { Db } from '../../storage/database.js';
import { findOrganizationById, findOrganizationBySlug } from '../../storage/organizations.js';
import { isOrganizationId } from '../organizations/organization-names.js';
import { AdminError } from '../admin-error.js';
import { sealSecret, type SealingContext } from '../keys/sealed-secrets.js';
import { isLoopbackUrl } from '../../net/loopback.js';
import type { Config } from '../../config.js';
import { storedUrlProblem, WITHOUT_CONFIGURATION } from '../../outbound/stored-url.js';
import { jwksUriRuleProblem } from '../clients/client-jwks.js';
import {
  CONNECTION_ID_PATTERN,
  CONNECTION_KINDS,
  MAPPING_FIELDS,
  PROVISIONING_MODES,
  type ClaimMapping,
  type ConnectionKind,
  type Provisioning,
} from './connection.js';
import { isPreset, PRESET_DEFAULTS, PRESETS, type Preset } from './presets.js';
import { writeVersioned } from '../../storage/json-shape.js';
import { ATTRIBUTE_FIELDS, STORED_SAML_SETTINGS, type AttributeField, type SamlSettings } from '../saml/sp/saml-settings.js';
import { fetchSamlMetadata, type SamlMetadataFetching } from '../saml/metadata-fetch.js';
import { METADATA_MAX_BYTES } from '../saml/sp/idp-metadata.js';
import { samlSettingsFrom } from '../saml/sp/idp-metadata-source.js';
import { SamlError } from '../saml/saml-error.js';

export interface SeedConnection {
  id: string;
  display_name?: string;
  icon?: string;
  kind?: ConnectionKind;
  preset?: Preset;
  /** Microsoft only: a tenant id, or common, organizations or consumers (the default: common). */
  tenant?: string;
  issuer?: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  userinfo_endpoint?: string;
  /** oidc and oauth2: our client id upstream (a saml connection has none: our SP entityID names us). */
  client_id?: string;
  client_secret?: string;
  scopes?: string[];
  claims?: Partial<ClaimMapping>;
  /** Default: create. */
  provisioning?: Provisioning;
  email_domains?: string[];
  trust_amr?: boolean;
  /** Keep each sign-in's upstream tokens, sealed (needs KEYS_ENCRYPTION_SECRET). Default: false. */
  store_tokens?: boolean;
  enabled?: boolean;
  /** saml: the IdP's metadata document (XML), or the https URL it is read (and refreshed) from. */
  saml_metadata?: string;
  saml_metadata_url?: string;
  /** saml: take IdP-initiated (unsolicited) responses. Default: false. */
  saml_allow_unsolicited?: boolean;
  /** saml: attribute names per claim, tried before the defaults (src/domain/saml/sp/saml-settings.ts). */
  saml_attributes?: Partial<Record<AttributeField, string[]>>;
  /** The organization it belongs to, by slug or id (issue 40); null or absent: provider-wide. */
  organization?: string | null;
}

const FIELDS = new Set([
  'id',
  'display_name',
  'icon',
  'kind',
  'preset',
  'tenant',
  'issuer',
  'authorization_endpoint',
  'token_endpoint',
  'userinfo_endpoint',
  'client_id',
  'client_secret',
  'scopes',
  'claims',
  'provisioning',
  'email_domains',
  'trust_amr',
  'store_tokens',
  'enabled',
  'saml_metadata',
  'saml_metadata_url',
  'saml_allow_unsolicited',
  'saml_attributes',
  'organization',
]);
/** The URLs an entry may give (a preset's own stay the preset's): the provider requests each of them. */
export const CONNECTION_URL_FIELDS = ['issuer', 'authorization_endpoint', 'token_endpoint', 'userinfo_endpoint'] as const;
const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;
const TENANT = /^(common|organizations|consumers|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/**
 * https, or http on a loopback host (a development upstream). Its address: without the configuration (the seed file),
 * no literal address of this machine or a private network but loopback; with it (the management API, sso-admin), the
 * rule it is fetched under (upstream-directory.ts), OUTBOUND_ALLOW_NETWORKS included. The guarded fetch checks again.
 */
function urlProblem(value: unknown, config: Pick<Config, 'issuer' | 'outbound'> | undefined): string | undefined {
  if (typeof value !== 'string') return 'must be a URL';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackUrl(url))) return 'must use https (http only on loopback)';
  if (url.hash || url.username || url.password) return 'must have no fragment and no credentials';
  return config ? jwksUriRuleProblem(config, value) : storedUrlProblem(value, WITHOUT_CONFIGURATION.policy, WITHOUT_CONFIGURATION.options);
}

/** Every problem of one entry, each naming its field; `config` where the configuration is known. */
export function connectionEntryProblems(raw: unknown, config?: Pick<Config, 'issuer' | 'outbound'>): string[] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return ['must be an object'];
  const e = raw as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(e)) if (!FIELDS.has(key)) problems.push(`unknown field "${key}"`);
  if (typeof e.id !== 'string' || !CONNECTION_ID_PATTERN.test(e.id))
    problems.push('id must be 1 to 63 lowercase letters, digits, "-" or "_"');
  if (e.preset !== undefined && !isPreset(e.preset)) problems.push(`preset must be one of ${PRESETS.join(', ')}`);
  const preset = isPreset(e.preset) ? PRESET_DEFAULTS[e.preset] : undefined;
  if (e.kind !== undefined && !(CONNECTION_KINDS as readonly unknown[]).includes(e.kind))
    problems.push('kind must be oidc, oauth2 or saml');
  const kind = (e.kind as ConnectionKind | undefined) ?? preset?.kind;
  if (kind === undefined) problems.push('kind is required without a preset');
  if (e.tenant !== undefined && (e.preset !== 'microsoft' || typeof e.tenant !== 'string' || !TENANT.test(e.tenant))) {
    problems.push('tenant is for the microsoft preset: a tenant id, common, organizations or consumers');
  }
  for (const field of CONNECTION_URL_FIELDS) {
    if (e[field] === undefined) continue;
    const problem = urlProblem(e[field], config);
    if (problem) problems.push(`${field} ${problem}`);
  }
  if (kind === 'oidc' && e.issuer === undefined && !preset?.issuer) problems.push('issuer is required for an oidc connection');
  if (kind === 'oauth2') {
    for (const [field, fallback] of [
      ['authorization_endpoint', preset?.authorizationEndpoint],
      ['token_endpoint', preset?.tokenEndpoint],
      ['userinfo_endpoint', preset?.userinfoEndpoint],
    ] as const) {
      if (e[field] === undefined && fallback === undefined) problems.push(`${field} is required for an oauth2 connection`);
    }
  }
  if (kind === 'saml') problems.push(...samlEntryProblems(e, config));
  else if (typeof e.client_id !== 'string' || e.client_id.length === 0 || e.client_id.length > 255)
    problems.push('client_id must be a non-empty string');
  if (
    e.client_secret !== undefined &&
    (typeof e.client_secret !== 'string' || e.client_secret.length === 0 || e.client_secret.length > 1024)
  ) {
    problems.push('client_secret must be a non-empty string');
  }
  if (e.display_name !== undefined && (typeof e.display_name !== 'string' || e.display_name.length === 0 || e.display_name.length > 80)) {
    problems.push('display_name must be 1 to 80 characters');
  }
  if (e.display_name === undefined && !preset) problems.push('display_name is required without a preset');
  if (
    e.icon !== undefined &&
    (typeof e.icon !== 'string' || !(e.icon.startsWith('https://') || e.icon.startsWith('data:image/')) || e.icon.length > 8192)
  ) {
    problems.push('icon must be an https URL or a data:image URL');
  }
  if (e.scopes !== undefined) {
    if (!Array.isArray(e.scopes) || e.scopes.some((s) => typeof s !== 'string' || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))) {
      problems.push('scopes must be an array of scope tokens (RFC 6749 3.3)');
    } else if (kind === 'oidc' && !e.scopes.includes('openid')) problems.push('scopes of an oidc connection must include openid');
  }
  if (e.claims !== undefined) {
    if (typeof e.claims !== 'object' || e.claims === null || Array.isArray(e.claims)) problems.push('claims must be an object');
    else
      for (const [key, value] of Object.entries(e.claims)) {
        if (!(MAPPING_FIELDS as readonly string[]).includes(key))
          problems.push(`claims: unknown field "${key}" (one of ${MAPPING_FIELDS.join(', ')})`);
        else if (typeof value !== 'string' || value.length === 0) problems.push(`claims.${key} must name a claim`);
      }
  }
  if (e.provisioning !== undefined && !(PROVISIONING_MODES as readonly unknown[]).includes(e.provisioning))
    problems.push('provisioning must be create, link or refuse');
  if (
    e.email_domains !== undefined &&
    (!Array.isArray(e.email_domains) || e.email_domains.some((d) => typeof d !== 'string' || !DOMAIN.test(d)))
  ) {
    problems.push('email_domains must be an array of domain names');
  }
  for (const flag of ['trust_amr', 'store_tokens', 'enabled'] as const)
    if (e[flag] !== undefined && typeof e[flag] !== 'boolean') problems.push(`${flag} must be true or false`);
  if (kind !== 'saml') problems.push(...noSamlFields(e));
  if (
    e.organization !== undefined &&
    e.organization !== null &&
    (typeof e.organization !== 'string' || e.organization.length === 0 || e.organization.length > 100)
  )
    problems.push("organization must be an organization's slug or id, or null");
  return problems;
}

/** The saml fields of an entry of kind saml (and none of the OAuth ones); the metadata itself is read when stored. */
function samlEntryProblems(e: Record<string, unknown>, config: Pick<Config, 'issuer' | 'outbound'> | undefined): string[] {
  const problems: string[] = [];
  for (const field of ['preset', 'client_id', 'client_secret', 'scopes', 'claims', 'store_tokens', 'tenant', ...CONNECTION_URL_FIELDS])
    if (e[field] !== undefined) problems.push(`${field} is not for a saml connection`);
  const hasXml = e.saml_metadata !== undefined;
  const hasUrl = e.saml_metadata_url !== undefined;
  if (!hasXml && !hasUrl) problems.push('saml_metadata or saml_metadata_url is required for a saml connection');
  if (hasXml && (typeof e.saml_metadata !== 'string' || e.saml_metadata.length === 0)) problems.push('saml_metadata must be the XML');
  if (hasUrl) {
    const problem = urlProblem(e.saml_metadata_url, config);
    if (problem) problems.push(`saml_metadata_url ${problem}`);
  }
  if (e.saml_allow_unsolicited !== undefined && typeof e.saml_allow_unsolicited !== 'boolean')
    problems.push('saml_allow_unsolicited must be true or false');
  const attributes = e.saml_attributes;
  if (attributes !== undefined) {
    if (typeof attributes !== 'object' || attributes === null || Array.isArray(attributes))
      problems.push('saml_attributes must be an object');
    else
      for (const [key, value] of Object.entries(attributes)) {
        if (!(ATTRIBUTE_FIELDS as readonly string[]).includes(key))
          problems.push(`saml_attributes: unknown field "${key}" (one of ${ATTRIBUTE_FIELDS.join(', ')})`);
        else if (!Array.isArray(value) || value.some((n) => typeof n !== 'string' || n.length === 0 || n.length > 512))
          problems.push(`saml_attributes.${key} must be an array of attribute names`);
      }
  }
  return problems;
}

function noSamlFields(e: Record<string, unknown>): string[] {
  return ['saml_metadata', 'saml_metadata_url', 'saml_allow_unsolicited', 'saml_attributes']
    .filter((f) => e[f] !== undefined)
    .map((f) => `${f} is for a saml connection`);
}

/** The `connections` section: undefined when absent; problems pushed with each entry's index. */
export function checkConnections(raw: unknown, problems: string[]): SeedConnection[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) {
    problems.push('"connections" must be an array');
    return undefined;
  }
  raw.forEach((entry, i) => {
    for (const problem of connectionEntryProblems(entry)) problems.push(`connections[${i}]: ${problem}`);
  });
  const ids = raw.map((e) => (e as { id?: unknown }).id);
  for (const id of new Set(ids.filter((id, i) => ids.indexOf(id) !== i)))
    problems.push(`connection "${String(id)}" appears more than once`);
  return raw as SeedConnection[];
}

/** The id of the organization the entry names (slug or id), null for none; refused when there is no such one. */
export async function organizationIdOf(db: Db, entry: Pick<SeedConnection, 'id' | 'organization'>): Promise<string | null> {
  if (entry.organization === undefined || entry.organization === null) return null;
  const row = isOrganizationId(entry.organization)
    ? await findOrganizationById(db, entry.organization)
    : await findOrganizationBySlug(db, entry.organization);
  if (!row) throw new AdminError(`connection "${entry.id}": no organization "${entry.organization}"`);
  return row.id;
}

/** The row of a checked entry, its secret sealed. */
export async function connectionColumns(
  sealing: SealingContext,
  entry: SeedConnection,
  fetching?: SamlMetadataFetching,
): Promise<ConnectionColumns> {
  // Issue 19: upstream tokens are kept only encrypted; without the key they would sit in the clear.
  if (entry.store_tokens === true && sealing.config.keysEncryptionSecret === undefined)
    throw new AdminError(`connection "${entry.id}": store_tokens needs KEYS_ENCRYPTION_SECRET (upstream tokens are kept only encrypted)`);
  const preset = entry.preset ? PRESET_DEFAULTS[entry.preset] : undefined;
  const issuer =
    entry.issuer ?? (entry.preset === 'microsoft' && entry.tenant ? `https://login.microsoftonline.com/${entry.tenant}/v2.0` : null);
  const kind = entry.kind ?? preset!.kind;
  const organization_id = await organizationIdOf(sealing.db, entry);
  if (kind === 'saml') return { ...(await samlConnectionColumns(sealing, entry, fetching)), organization_id };
  return {
    organization_id,
    id: entry.id,
    display_name: entry.display_name ?? preset!.displayName,
    icon: entry.icon ?? null,
    kind,
    preset: entry.preset ?? null,
    issuer,
    authorization_endpoint: entry.authorization_endpoint ?? null,
    token_endpoint: entry.token_endpoint ?? null,
    userinfo_endpoint: entry.userinfo_endpoint ?? null,
    client_id: entry.client_id!,
    client_secret_sealed:
      entry.client_secret === undefined ? null : await sealSecret(sealing, 'connection-secret', entry.id, Buffer.from(entry.client_secret)),
    scopes: entry.scopes ?? preset?.scopes ?? (kind === 'oidc' ? ['openid', 'email', 'profile'] : []),
    claim_mapping: Object.fromEntries(Object.entries(entry.claims ?? {}).filter((kv): kv is [string, string] => typeof kv[1] === 'string')),
    provisioning: entry.provisioning ?? 'create',
    email_domains: (entry.email_domains ?? []).map((d) => d.toLowerCase()),
    trust_amr: entry.trust_amr ?? false,
    store_tokens: entry.store_tokens ?? false,
    enabled: entry.enabled ?? true,
    saml: null,
  };
}

/**
 * The row of a saml entry: its metadata read (fetched through the guarded fetch when only its URL is given), the
 * IdP's entityID, endpoints and signing certificates taken from it. Refused, naming why, when it does not serve.
 */
async function samlConnectionColumns(
  sealing: SealingContext,
  entry: SeedConnection,
  fetching: SamlMetadataFetching | undefined,
): Promise<ConnectionColumns> {
  let settings: SamlSettings;
  try {
    const fetched =
      entry.saml_metadata === undefined
        ? await fetchSamlMetadata(fetching ?? { config: undefined, outbound: undefined }, entry.saml_metadata_url!, METADATA_MAX_BYTES)
        : undefined;
    settings = samlSettingsFrom(entry.saml_metadata ?? fetched!, {
      metadataUrl: entry.saml_metadata_url ?? null,
      refreshedAt: fetched === undefined ? null : sealing.clock(),
      allowUnsolicited: entry.saml_allow_unsolicited ?? false,
      attributes: entry.saml_attributes ?? {},
    });
  } catch (err) {
    if (err instanceof SamlError) throw new AdminError(`connection "${entry.id}": the SAML metadata was refused: ${err.description}`);
    throw err;
  }
  return {
    id: entry.id,
    display_name: entry.display_name!,
    icon: entry.icon ?? null,
    kind: 'saml',
    preset: null,
    issuer: settings.idpEntityId,
    authorization_endpoint: null,
    token_endpoint: null,
    userinfo_endpoint: null,
    client_id: '',
    client_secret_sealed: null,
    scopes: [],
    claim_mapping: {},
    provisioning: entry.provisioning ?? 'create',
    email_domains: (entry.email_domains ?? []).map((d) => d.toLowerCase()),
    trust_amr: entry.trust_amr ?? false,
    store_tokens: false,
    enabled: entry.enabled ?? true,
    saml: writeVersioned(settings, STORED_SAML_SETTINGS),
  };
}

/** Stores each entry (insert, or replace the connection with its id); returns how many were new and how many replaced. */
export async function seedConnections(
  db: Db,
  sealing: SealingContext,
  entries: readonly SeedConnection[],
  now: Date,
): Promise<{ created: number; updated: number; unchanged: number }> {
  const counts = { created: 0, updated: 0, unchanged: 0 };
  for (const entry of entries) {
    const existed = (await findConnectionRow(db, entry.id)) !== undefined;
    await upsertConnectionRow(db, await connectionColumns(sealing, entry), now);
    if (existed) counts.updated += 1;
    else counts.created += 1;
  }
  return counts;
}
