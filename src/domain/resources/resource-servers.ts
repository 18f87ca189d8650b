// Resource servers: the APIs this provider issues access tokens for (RFC 8707 resource indicators), each with the
// scopes it defines, the token format it wants (opaque, or an RFC 9068 JWT) and the tokens' lifetime. Configured by
// an operator (seed file `resource_servers`, `sso-admin resources`), never by a client.
import { isSigningAlg, SIGNING_ALGS, type SigningAlg } from '../keys/signing-algs.js';
import { SUPPORTED_SCOPES } from '../scope.js';
import { FREE_FORM_V1, readVersioned, record, string, type Shape, type VersionedShapes } from '../../storage/json-shape.js';
import type { ResourceServerRow } from '../../storage/schema.js';

export const TOKEN_FORMATS = ['opaque', 'jwt'] as const;
export type TokenFormat = (typeof TOKEN_FORMATS)[number];

export const DEFAULT_RESOURCE_TOKEN_TTL_SECONDS = 3600;

export interface ResourceServer {
  identifier: string;
  name: string | null;
  /** The scopes it defines, each with what the consent page says it allows. */
  scopes: ReadonlyArray<{ name: string; description: string }>;
  tokenFormat: TokenFormat;
  accessTokenTtlSeconds: number;
  /** RFC 9068 2.1: the alg of its JWT access tokens (RS256 unless configured). */
  signingAlg: SigningAlg;
  /** RFC 7662 2.1: the clients (the resource server itself) that may introspect tokens issued for it. */
  introspectingClients: readonly string[];
}

/** A resource server as the seed file and the command line write it. */
export interface ResourceServerEntry {
  identifier: string;
  name?: string;
  /** Scope name → what the consent page says it allows. */
  scopes?: Record<string, string>;
  access_token_format?: TokenFormat;
  access_token_ttl_seconds?: number;
  access_token_signing_alg?: SigningAlg;
  introspecting_clients?: string[];
  /** Only read back: why the stored descriptions were not read (each scope is then described by its name). */
  scope_descriptions_unreadable?: string;
}

/**
 * Version 1 of resource_servers.scope_descriptions: scope name to description, stored without `v` as before versions
 * were kept (so no scope may be named `v`). A row that does not fit has its scopes described by their names on the
 * consent page, and `resources show` says why.
 */
const DESCRIPTIONS_V1: Shape<Record<string, string>> = (value, path) => record(string)(FREE_FORM_V1(value, path), path);

export const SCOPE_DESCRIPTIONS: VersionedShapes<Record<string, string>> = { 1: DESCRIPTIONS_V1 };

/** The row's descriptions, or none (with why) when they do not fit. */
function readDescriptions(row: ResourceServerRow): { descriptions: Record<string, string>; unreadable?: string } {
  const read = readVersioned(row.scope_descriptions, SCOPE_DESCRIPTIONS, 'scope_descriptions');
  return read.ok ? { descriptions: read.value } : { descriptions: {}, unreadable: read.reason };
}

const ENTRY_FIELDS = [
  'identifier',
  'name',
  'scopes',
  'access_token_format',
  'access_token_ttl_seconds',
  'access_token_signing_alg',
  'introspecting_clients',
];

/**
 * RFC 8707 2: "The value of the resource parameter MUST be an absolute URI [...] It MUST NOT include a fragment
 * component." Also an https (or loopback http) URL here, as every URL an operator names for a client.
 */
export function resourceIdentifierProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || !URL.canParse(value)) return 'must be an absolute URI';
  if (value.includes('#')) return 'must not contain a fragment (RFC 8707 2)';
  return undefined;
}

/** RFC 6749 3.3 scope-token: printable ASCII but space, '"' and '\'. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;

/** Every problem of a resource server entry, in a stable order; an empty list when it is fine. */
export function resourceServerProblems(raw: unknown): string[] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return ['must be an object'];
  const e = raw as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(e)) if (!ENTRY_FIELDS.includes(key)) problems.push(`unknown field "${key}"`);
  const id = resourceIdentifierProblem(e.identifier);
  if (id) problems.push(`identifier ${id}`);
  if (e.name !== undefined && (typeof e.name !== 'string' || e.name === '')) problems.push('name must be a non-empty string');
  if (e.scopes !== undefined) {
    if (typeof e.scopes !== 'object' || e.scopes === null || Array.isArray(e.scopes)) {
      problems.push('scopes must be an object of scope name to description');
    } else {
      for (const [name, description] of Object.entries(e.scopes)) {
        if (!SCOPE_TOKEN.test(name)) problems.push(`scope "${name}" is not a scope token (RFC 6749 3.3)`);
        else if ((SUPPORTED_SCOPES as string[]).includes(name)) problems.push(`scope "${name}" is one of this provider's own scopes`);
        else if (name === 'v') problems.push('scope "v" is reserved (the version of the stored descriptions)');
        if (typeof description !== 'string' || description === '')
          problems.push(`scope "${name}" needs a description for the consent page`);
      }
    }
  }
  if (e.access_token_format !== undefined && !(TOKEN_FORMATS as readonly unknown[]).includes(e.access_token_format))
    problems.push(`access_token_format must be one of ${TOKEN_FORMATS.join(', ')}`);
  const ttl = e.access_token_ttl_seconds;
  if (ttl !== undefined && (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 60 || ttl > 86_400))
    problems.push('access_token_ttl_seconds must be a whole number of seconds from 60 to 86400');
  const clients = e.introspecting_clients;
  if (clients !== undefined && (!Array.isArray(clients) || !clients.every((c) => typeof c === 'string' && c !== '')))
    problems.push('introspecting_clients must be an array of client ids');
  if (e.access_token_signing_alg !== undefined && !isSigningAlg(e.access_token_signing_alg))
    problems.push(`access_token_signing_alg must be one of ${SIGNING_ALGS.join(', ')}`);
  return problems;
}

/** The columns of a checked entry, defaults filled in. */
export function resourceServerColumns(entry: ResourceServerEntry) {
  const scopes = entry.scopes ?? {};
  return {
    name: entry.name ?? null,
    scopes: Object.keys(scopes),
    scope_descriptions: scopes,
    token_format: entry.access_token_format ?? 'opaque',
    access_token_ttl_seconds: entry.access_token_ttl_seconds ?? DEFAULT_RESOURCE_TOKEN_TTL_SECONDS,
    signing_alg: entry.access_token_signing_alg ?? 'RS256',
    introspecting_clients: entry.introspecting_clients ?? [],
  };
}

export function rowToResourceServer(row: ResourceServerRow): ResourceServer {
  const { descriptions } = readDescriptions(row);
  return {
    identifier: row.identifier,
    name: row.name,
    scopes: row.scopes.map((name) => ({ name, description: descriptions[name] ?? name })),
    tokenFormat: row.token_format === 'jwt' ? 'jwt' : 'opaque',
    accessTokenTtlSeconds: row.access_token_ttl_seconds,
    signingAlg: isSigningAlg(row.signing_alg) ? row.signing_alg : 'RS256',
    introspectingClients: row.introspecting_clients,
  };
}

/** The entry back from a row, as the command line shows it. */
export function entryFromRow(row: ResourceServerRow): ResourceServerEntry {
  const { unreadable } = readDescriptions(row);
  return {
    identifier: row.identifier,
    ...(row.name === null ? {} : { name: row.name }),
    scopes: Object.fromEntries(rowToResourceServer(row).scopes.map((s) => [s.name, s.description])),
    access_token_format: row.token_format,
    access_token_ttl_seconds: row.access_token_ttl_seconds,
    access_token_signing_alg: isSigningAlg(row.signing_alg) ? row.signing_alg : 'RS256',
    introspecting_clients: row.introspecting_clients,
    ...(unreadable === undefined ? {} : { scope_descriptions_unreadable: unreadable }),
  };
}
