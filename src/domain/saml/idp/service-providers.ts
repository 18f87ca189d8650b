// A SAML service provider as the identity provider knows it: registered from its metadata (entityID, assertion
// consumer services, certificates are read from it, never typed in), and what it gets: the NameID format, the
// attributes released, what is signed, whether it may be signed in to unasked (IdP-initiated), the groups it admits.
import { arrayOf, object, oneOf, readVersioned, string, writeVersioned, type VersionedShapes } from '../../../storage/json-shape.js';
import type { SamlServiceProviderColumns } from '../../../storage/saml-service-providers.js';
import type { SamlServiceProviderRow } from '../../../storage/schema.js';
import { allowedGroupsProblem } from '../../groups/group-names.js';
import { fetchSamlMetadata, type SamlMetadataFetching } from '../metadata-fetch.js';
import { readEntityMetadata, type ServiceProviderRole } from '../metadata-reader.js';
import { NAME_ID_FORMATS, type NameIdFormatName } from '../namespaces.js';
import { SamlError } from '../saml-error.js';
import { BLOCK_CIPHER_NAMES, BLOCK_CIPHERS, type BlockCipherName } from './saml-response.js';

/** The user fields an attribute may carry: the account's, its OIDC profile claims, and its groups. */
export const ATTRIBUTE_SOURCES = ['email', 'username', 'user_id', 'name', 'given_name', 'family_name', 'groups'] as const;
export type AttributeSource = (typeof ATTRIBUTE_SOURCES)[number];

/** One attribute released: its SAML Name (a URI such as https://aws.amazon.com/SAML/Attributes/RoleSessionName, or a short name) and its source. */
export interface ReleasedAttribute {
  name: string;
  from: AttributeSource;
}

/** What an SP gets unless told otherwise: the names most SPs read (eduPerson/inetOrgPerson short names). */
export const DEFAULT_ATTRIBUTES: readonly ReleasedAttribute[] = Object.freeze([
  { name: 'email', from: 'email' },
  { name: 'givenName', from: 'given_name' },
  { name: 'sn', from: 'family_name' },
  { name: 'displayName', from: 'name' },
  { name: 'groups', from: 'groups' },
]);

const ATTRIBUTES_V1 = object<{ list: ReleasedAttribute[] }>({
  list: arrayOf(object<ReleasedAttribute>({ name: string, from: oneOf(ATTRIBUTE_SOURCES) })),
});
/** saml_service_providers.attributes: version 1 is {v: 1, list: [{name, from}]}. */
export const STORED_SP_ATTRIBUTES: VersionedShapes<{ list: ReleasedAttribute[] }> = { 1: ATTRIBUTES_V1 };

export const NAME_ID_FORMAT_NAMES = Object.keys(NAME_ID_FORMATS) as NameIdFormatName[];

/** The seed file's, the command line's and the API's entry for a service provider. */
export interface SamlSpEntry {
  metadata_xml: string;
  metadata_url?: string;
  name_id_format?: NameIdFormatName;
  attributes?: ReleasedAttribute[];
  sign_assertion?: boolean;
  sign_response?: boolean;
  encrypt_assertion?: boolean;
  /** The block cipher when the metadata's EncryptionMethod names none we support (default aes256-gcm). */
  encryption_algorithm?: BlockCipherName;
  idp_initiated?: boolean;
  allowed_groups?: string[];
}

/**
 * An entry as the seed file, the API, the console and the command line take it: the metadata inline, or only its URL
 * (read from there by withSpMetadata before the entry is checked and stored).
 */
export type SamlSpInput = Omit<SamlSpEntry, 'metadata_xml'> & { metadata_xml?: string };

export const SP_ENTRY_FIELDS = new Set<string>([
  'metadata_xml',
  'metadata_url',
  'name_id_format',
  'attributes',
  'sign_assertion',
  'sign_response',
  'encrypt_assertion',
  'encryption_algorithm',
  'idp_initiated',
  'allowed_groups',
]);

export interface SamlServiceProvider {
  entityId: string;
  metadataXml: string;
  metadataUrl: string | null;
  /** What its metadata says: ACS and SLO endpoints, AuthnRequestsSigned, certificates. */
  role: ServiceProviderRole;
  nameIdFormat: NameIdFormatName;
  attributes: ReleasedAttribute[];
  signAssertion: boolean;
  signResponse: boolean;
  encryptAssertion: boolean;
  encryptionAlgorithm: BlockCipherName;
  idpInitiated: boolean;
  groupRestricted: boolean;
}

/** The service provider described by `xml`; SamlError when it is not SAML metadata of an SP. */
export function readSpMetadata(xml: string): { entityId: string; role: ServiceProviderRole } {
  const entity = readEntityMetadata(xml);
  const role = entity.serviceProvider;
  if (!role) throw new SamlError('bad_metadata', 'the metadata has no SPSSODescriptor');
  if (role.assertionConsumerServices.length === 0) {
    throw new SamlError('bad_metadata', 'the metadata has no AssertionConsumerService over HTTP-POST or HTTP-Redirect');
  }
  return { entityId: entity.entityId, role };
}

const isBool = (v: unknown) => v === undefined || typeof v === 'boolean';

/**
 * What is wrong with an entry, each in words safe to show; empty when nothing is. With `metadata: 'inline-or-url'` an
 * entry with a metadata_url may leave metadata_xml out: its document is checked, as this checks inline metadata, once
 * withSpMetadata has read it.
 */
export function spEntryProblems(entry: Record<string, unknown>, metadata: 'inline' | 'inline-or-url' = 'inline'): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(entry)) if (!SP_ENTRY_FIELDS.has(key)) problems.push(`unknown field "${key}"`);
  const fromUrl = metadata === 'inline-or-url' && entry.metadata_xml === undefined && typeof entry.metadata_url === 'string';
  if (typeof entry.metadata_xml === 'string' && entry.metadata_xml !== '') {
    try {
      const { role } = readSpMetadata(entry.metadata_xml);
      if (entry.encrypt_assertion === true && role.encryptionCertificates.length === 0)
        problems.push('encrypt_assertion needs an encryption certificate in the metadata');
    } catch (err) {
      if (!(err instanceof SamlError)) throw err;
      problems.push(`metadata_xml: ${err.description}`);
    }
  } else if (!fromUrl) problems.push(metadata === 'inline' ? 'metadata_xml is required' : 'metadata_xml or metadata_url is required');
  if (entry.metadata_url !== undefined && (typeof entry.metadata_url !== 'string' || !URL.canParse(entry.metadata_url)))
    problems.push('metadata_url must be a URL');
  if (entry.name_id_format !== undefined && !(NAME_ID_FORMAT_NAMES as unknown[]).includes(entry.name_id_format))
    problems.push(`name_id_format must be one of ${NAME_ID_FORMAT_NAMES.join(', ')}`);
  if (entry.attributes !== undefined) {
    const list = entry.attributes;
    if (!Array.isArray(list)) problems.push('attributes must be a list of {name, from}');
    else
      for (const a of list as unknown[]) {
        const item = a as Partial<ReleasedAttribute> | null;
        if (typeof item?.name !== 'string' || item.name === '' || item.name.length > 1024)
          problems.push('each attribute needs a name of 1 to 1024 characters');
        else if (!(ATTRIBUTE_SOURCES as readonly unknown[]).includes(item.from))
          problems.push(`attribute "${item.name}": from must be one of ${ATTRIBUTE_SOURCES.join(', ')}`);
      }
    if (Array.isArray(list) && new Set(list.map((a: { name?: unknown }) => a?.name)).size !== list.length)
      problems.push('each attribute name once');
  }
  if (entry.encryption_algorithm !== undefined && !(BLOCK_CIPHER_NAMES as unknown[]).includes(entry.encryption_algorithm))
    problems.push(`encryption_algorithm must be one of ${BLOCK_CIPHER_NAMES.join(', ')}`);
  for (const flag of ['sign_assertion', 'sign_response', 'encrypt_assertion', 'idp_initiated'])
    if (!isBool(entry[flag])) problems.push(`${flag} must be true or false`);
  if (entry.allowed_groups !== undefined) {
    const problem = allowedGroupsProblem(entry.allowed_groups);
    if (problem) problems.push(problem);
  }
  return problems;
}

/**
 * The entry with its metadata document: one with a metadata_url and no metadata_xml gets the document read from the
 * URL through the guarded fetch (src/domain/saml/metadata-fetch.ts, as a SAML connection's), and `fetched` says so;
 * SamlError('bad_metadata') when the URL is none or cannot be read. The document is then checked as inline metadata
 * is (spEntryProblems), by whoever stores the entry: the seed file, the API, the console and the command line alike.
 */
export async function withSpMetadata<E extends Record<string, unknown>>(
  fetching: SamlMetadataFetching,
  entry: E,
): Promise<{ entry: E; fetched: boolean }> {
  if (typeof entry.metadata_url !== 'string' || entry.metadata_xml !== undefined) return { entry, fetched: false };
  if (!URL.canParse(entry.metadata_url)) throw new SamlError('bad_metadata', 'metadata_url must be a URL');
  const xml = await fetchSamlMetadata(fetching, entry.metadata_url);
  return { entry: { ...entry, metadata_xml: xml }, fetched: true };
}

/**
 * The columns an entry is stored in. Unless told, both the assertion and the response are signed: Profiles §4.1.3.5
 * requires a signed assertion over HTTP-POST, and some SPs check only the response's signature.
 */
export function spColumns(entry: SamlSpEntry): SamlServiceProviderColumns {
  const { entityId } = readSpMetadata(entry.metadata_xml);
  return {
    entity_id: entityId,
    metadata_xml: entry.metadata_xml,
    metadata_url: entry.metadata_url ?? null,
    name_id_format: entry.name_id_format ?? 'unspecified',
    attributes: writeVersioned({ list: entry.attributes ?? [...DEFAULT_ATTRIBUTES] }, STORED_SP_ATTRIBUTES),
    sign_assertion: entry.sign_assertion ?? true,
    sign_response: entry.sign_response ?? true,
    encrypt_assertion: entry.encrypt_assertion ?? false,
    encryption_algorithm: entry.encryption_algorithm ?? 'aes256-gcm',
    idp_initiated: entry.idp_initiated ?? false,
    group_restricted: entry.allowed_groups !== undefined,
  };
}

/** The service provider a row holds, or why it cannot be read (a newer version's row, metadata no longer read). */
export function rowToServiceProvider(row: SamlServiceProviderRow): { sp: SamlServiceProvider } | { problem: string } {
  const attributes = readVersioned(row.attributes, STORED_SP_ATTRIBUTES, 'attributes');
  if (!attributes.ok) return { problem: attributes.reason };
  if (!(NAME_ID_FORMAT_NAMES as string[]).includes(row.name_id_format)) return { problem: 'name_id_format' };
  if (!(BLOCK_CIPHER_NAMES as string[]).includes(row.encryption_algorithm)) return { problem: 'encryption_algorithm' };
  let role: ServiceProviderRole;
  try {
    role = readSpMetadata(row.metadata_xml).role;
  } catch (err) {
    if (err instanceof SamlError) return { problem: `metadata_xml: ${err.description}` };
    throw err;
  }
  return {
    sp: {
      entityId: row.entity_id,
      metadataXml: row.metadata_xml,
      metadataUrl: row.metadata_url,
      role,
      nameIdFormat: row.name_id_format as NameIdFormatName,
      attributes: attributes.value.list,
      signAssertion: row.sign_assertion,
      signResponse: row.sign_response,
      encryptAssertion: row.encrypt_assertion,
      encryptionAlgorithm: row.encryption_algorithm as BlockCipherName,
      idpInitiated: row.idp_initiated,
      groupRestricted: row.group_restricted,
    },
  };
}

/**
 * The block cipher of an SP's encrypted assertions: the first its metadata's EncryptionMethod names that we support
 * (Metadata §2.4.1.1: the SP's preference), else its setting.
 */
export function blockCipherFor(sp: Pick<SamlServiceProvider, 'role' | 'encryptionAlgorithm'>): BlockCipherName {
  const named = sp.role.encryptionMethods.flatMap((uri) => BLOCK_CIPHER_NAMES.filter((name) => BLOCK_CIPHERS[name] === uri));
  return named[0] ?? sp.encryptionAlgorithm;
}
