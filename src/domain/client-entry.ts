// The client entry: a client as the seed file, the command line, the management API and the console give one
// (RFC 7591 metadata names, plus allowed_groups and organization_usage): its fields, its checks, and the columns it
// and its secret are stored in.
import { allowedGroupsProblem } from './groups/group-names.js';
import { holdsSecret, type TokenEndpointAuthMethod } from './clients/auth-methods.js';
import { clientMetadataProblems, METADATA_FIELDS } from './clients/client-metadata.js';
import { writeSealedSecret } from '../storage/sealed-secret.js';
import type { StoredSecret } from './keys/sealed-secrets.js';
import type { OrganizationUsage } from '../storage/schema.js';

/** A client entry that may carry its secret: only the seed file gives one (an operator's chosen secret). */
export interface ClientEntryWithSecret {
  client_id: string;
  client_secret?: string;
  client_name?: string;
  /** Required for clients of the authorization code flow. */
  redirect_uris?: string[];
  post_logout_redirect_uris?: string[];
  grant_types?: string[];
  response_types?: string[];
  token_endpoint_auth_method?: TokenEndpointAuthMethod;
  /** Issue 20: only members of these groups may sign in to it (absent: anybody; empty: nobody). Not metadata. */
  allowed_groups?: string[];
  /** Issue 40: whether its sign-ins name an organization (none, the default; allow; require). A column, not metadata. */
  organization_usage?: OrganizationUsage;
  [metadata: string]: unknown;
}

/** A client as the command line, the management API and the console give it: they generate its secret, never take one. */
export type ClientEntry = ClientEntryWithSecret & { client_secret?: never };

export const CLIENT_FIELDS = new Set<string>(['client_id', 'client_secret', ...METADATA_FIELDS, 'allowed_groups', 'organization_usage']);

/** Issue 40: the values of organization_usage (src/domain/authorization/organization-request.ts). */
export const ORGANIZATION_USAGES: readonly OrganizationUsage[] = ['none', 'allow', 'require'];

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * The problems of one client entry, each labelled with `where` (as `clients[0]`) and the entry's client_id when it
 * has one; unlabelled when `where` is empty.
 */
export function clientEntryProblems(raw: unknown, where = ''): string[] {
  const problems: string[] = [];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push(`${where} must be an object`);
    return problems;
  }
  const c = raw as Record<string, unknown>;
  const label = isString(c.client_id) ? `${where} (client_id "${c.client_id}")` : where;
  const bad = (msg: string) => problems.push(where === '' ? msg : `${label}: ${msg}`);
  for (const key of Object.keys(c)) if (!CLIENT_FIELDS.has(key)) bad(`unknown field "${key}"`);
  if (!isString(c.client_id)) bad('client_id must be a non-empty string');
  const method = c.token_endpoint_auth_method ?? 'client_secret_basic';
  if (method === 'none' && c.client_secret !== undefined)
    bad('a public client (token_endpoint_auth_method "none") must not have a client_secret');
  if (method === 'private_key_jwt' && c.client_secret !== undefined)
    bad('a private_key_jwt client proves itself with its keys: it must not have a client_secret');
  if (typeof method === 'string' && holdsSecret(method) && !isString(c.client_secret)) bad('client_secret must be a non-empty string');
  if (isString(c.client_secret) && c.client_secret.length < 16) bad('client_secret must be at least 16 characters');
  // OIDC Core 16.19: an HS256 key needs 256 bits; 32 characters is the least that can carry them.
  if (method === 'client_secret_jwt' && isString(c.client_secret) && c.client_secret.length < 32)
    bad('a client_secret_jwt client_secret must be at least 32 characters (it is an HMAC key)');
  for (const problem of clientMetadataProblems(c, 'seed')) bad(problem.message);
  if (c.allowed_groups !== undefined) {
    const problem = allowedGroupsProblem(c.allowed_groups);
    if (problem) bad(problem);
  }
  if (c.organization_usage !== undefined && !(ORGANIZATION_USAGES as readonly unknown[]).includes(c.organization_usage))
    bad('organization_usage must be none, allow or require');
  return problems;
}

/** How a client's secret is stored: its digest, and for client_secret_jwt the secret sealed. */
export interface SecretColumns {
  client_secret_hash: string | null;
  client_secret_sealed: StoredSecret | null;
}

export const NO_SECRET: SecretColumns = { client_secret_hash: null, client_secret_sealed: null };

/** The columns of a validated client entry (defaults filled in); its secret goes in already hashed (and sealed), or null. */
export function clientColumns(entry: ClientEntryWithSecret, secret: SecretColumns) {
  const {
    client_id: _id,
    client_secret: _secret,
    client_name,
    redirect_uris,
    post_logout_redirect_uris,
    grant_types,
    response_types,
    token_endpoint_auth_method,
    allowed_groups,
    organization_usage,
    ...metadata
  } = entry;
  return {
    ...secret,
    organization_usage: organization_usage ?? 'none',
    // The groups themselves are rows of client_allowed_groups (src/domain/groups/allowed-groups.ts).
    group_restricted: allowed_groups !== undefined,
    client_name: client_name ?? null,
    redirect_uris: redirect_uris ?? [],
    post_logout_redirect_uris: post_logout_redirect_uris ?? [],
    grant_types: grant_types ?? ['authorization_code'],
    response_types: response_types ?? ['code'],
    token_endpoint_auth_method: token_endpoint_auth_method ?? 'client_secret_basic',
    metadata,
  };
}

/** The secret's columns as the database takes them (the sealed secret as JSON text). */
export function secretRowValues(secret: SecretColumns) {
  return {
    client_secret_hash: secret.client_secret_hash,
    client_secret_sealed: secret.client_secret_sealed && writeSealedSecret(secret.client_secret_sealed),
  };
}

/** The columns of clientColumns' result as the database takes them. */
export function clientRowValues<T extends SecretColumns & { metadata: Record<string, unknown> }>(columns: T) {
  return { ...columns, ...secretRowValues(columns), metadata: JSON.stringify(columns.metadata) };
}
