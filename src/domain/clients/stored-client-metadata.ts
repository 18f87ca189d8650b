// The shape a client's metadata column is read back through (clients.metadata, by src/storage/clients.ts): the
// fields a request reads are checked once per read of the row, so an instance refuses what another version wrote
// rather than guess at it. The rest of the metadata (what an admin or a registration set) is kept as written.
import type { JSONWebKeySet } from 'jose';
import { arrayOf, boolean, nullable, oneOf, optional, record, string, type Shape, type VersionedShapes } from '../../storage/json-shape.js';
import { SIGNING_ALGS, type SigningAlg } from '../keys/signing-algs.js';
import { ID_TOKEN_CLAIMS_MODES, type IdTokenClaimsMode } from '../tokens/id-token-claims.js';
import { SUBJECT_TYPES, type SubjectType } from './pairwise.js';

/** The metadata as written, with the fields rowToClient reads typed (absent or null: not registered). */
export interface ClientMetadata extends Record<string, unknown> {
  scope?: string | null;
  backchannel_logout_uri?: string | null;
  backchannel_logout_session_required?: boolean | null;
  logo_uri?: string | null;
  client_uri?: string | null;
  policy_uri?: string | null;
  tos_uri?: string | null;
  jwks?: JSONWebKeySet | null;
  jwks_uri?: string | null;
  token_endpoint_auth_signing_alg?: string | null;
  dpop_bound_access_tokens?: boolean | null;
  profile?: string | null;
  allowed_resources?: string[] | null;
  default_resource?: string | null;
  request_object_signing_alg?: string | null;
  require_pushed_authorization_requests?: boolean | null;
  id_token_claims?: IdTokenClaimsMode | null;
  require_mfa?: boolean | null;
  id_token_signed_response_alg?: SigningAlg | null;
  subject_type?: SubjectType | null;
  sector_identifier_uri?: string | null;
}

const anything: Shape<unknown> = (value) => value;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 7517 5: an object with a `keys` array; the keys themselves are checked where they are imported. */
const keySet: Shape<JSONWebKeySet> = (value, path) => {
  const fields = record(anything)(value, path);
  if (!Array.isArray(fields.keys)) arrayOf(anything)(fields.keys, `${path}.keys`);
  return value as JSONWebKeySet;
};

const isString = (value: unknown) => typeof value === 'string';
const isBoolean = (value: unknown) => typeof value === 'boolean';
const isIn = (values: readonly string[]) => (value: unknown) => (values as readonly unknown[]).includes(value);

/**
 * Each field read: a cheap test, and the shape that says why (with its path) when the test fails. The path is only
 * built then: a read that fits costs a type test per field, no string and no copy.
 */
type Check = readonly [name: keyof ClientMetadata & string, fits: (value: unknown) => boolean, shape: Shape<unknown>];
const STRING = [isString, optional(nullable(string))] as const;
const BOOLEAN = [isBoolean, optional(nullable(boolean))] as const;
const CHECKS: readonly Check[] = [
  ['scope', ...STRING],
  ['backchannel_logout_uri', ...STRING],
  ['backchannel_logout_session_required', ...BOOLEAN],
  ['logo_uri', ...STRING],
  ['client_uri', ...STRING],
  ['policy_uri', ...STRING],
  ['tos_uri', ...STRING],
  ['jwks', (value) => isObject(value) && Array.isArray(value.keys), optional(nullable(keySet))],
  ['jwks_uri', ...STRING],
  ['token_endpoint_auth_signing_alg', ...STRING],
  ['dpop_bound_access_tokens', ...BOOLEAN],
  ['profile', ...STRING],
  ['allowed_resources', (value) => Array.isArray(value) && value.every(isString), optional(nullable(arrayOf(string)))],
  ['default_resource', ...STRING],
  ['request_object_signing_alg', ...STRING],
  ['require_pushed_authorization_requests', ...BOOLEAN],
  ['id_token_claims', isIn(ID_TOKEN_CLAIMS_MODES), optional(nullable(oneOf(ID_TOKEN_CLAIMS_MODES)))],
  ['require_mfa', ...BOOLEAN],
  ['id_token_signed_response_alg', isIn(SIGNING_ALGS), optional(nullable(oneOf(SIGNING_ALGS)))],
  ['subject_type', isIn(SUBJECT_TYPES), optional(nullable(oneOf(SUBJECT_TYPES)))],
  ['sector_identifier_uri', ...STRING],
];

/**
 * Version 1, stored without `v` as before versions were kept (what the management API returns is the metadata as
 * written, and an older instance reads the bytes it always read): only the fields above are checked, not walked
 * deeper, and the value is returned as it is (the figure of what a read costs is in the commit that made it).
 */
const CLIENT_METADATA_V1: Shape<ClientMetadata> = (value, path) => {
  if (!isObject(value)) return record(anything)(value, path) as never;
  for (const [name, fits, shape] of CHECKS) {
    const field = value[name];
    if (field !== undefined && field !== null && !fits(field)) shape(field, `${path}.${name}`);
  }
  return value as ClientMetadata;
};

export const CLIENT_METADATA: VersionedShapes<ClientMetadata> = { 1: CLIENT_METADATA_V1 };
