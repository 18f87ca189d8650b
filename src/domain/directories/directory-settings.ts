// An LDAP or Active Directory server as the seed file and `sso-admin directories add` describe it: checked as a
// whole (every problem listed), with its defaults filled in. The transport must protect the passwords it carries:
// ldaps:// or StartTLS (RFC 4513 3), plain ldap:// only when the entry says so loudly (allow_plain_ldap).
import { FilterParser } from 'ldapts';
import type { SettableClaim } from '../claims.js';

/** The user claims (src/domain/claims.ts) a directory's attributes may give, beside the email and the groups. */
export const DIRECTORY_CLAIMS = ['name', 'given_name', 'family_name'] as const satisfies readonly SettableClaim[];
export type DirectoryClaim = (typeof DIRECTORY_CLAIMS)[number];

/** The attributes of an entry that give the user's columns and claims (DIRECTORY_CLAIMS: the attribute giving each). */
export interface AttributeMapping extends Partial<Record<DirectoryClaim, string>> {
  /** The username of a provisioned user (uid; sAMAccountName on Active Directory). */
  username: string;
  /** An attribute that never changes for an entry, even when its DN does (entryUUID; objectGUID on Active Directory). */
  id_attribute: string;
  email?: string;
  /** Whether the directory's email addresses count as verified (OIDC Core 5.1 email_verified); false unless said. */
  email_verified: boolean;
  /** An attribute listing the user's groups (memberOf): a DN gives the value of its first RDN. */
  groups?: string;
}

/** Groups found by a search of their own: the entries under `base` that `filter` ({dn}: the user's DN) matches. */
export interface GroupSearch {
  base: string;
  filter: string;
  /** The attribute naming a group (cn). */
  name_attribute: string;
}

export interface DirectoryEntry {
  id: string;
  display_name: string;
  url: string;
  start_tls: boolean;
  /** Plain ldap:// without StartTLS: passwords cross the network in the clear. Only for a directory on a trusted link. */
  allow_plain_ldap: boolean;
  /** PEM certificates trusted for this directory's TLS (added to the system's). */
  ca_certificate?: string;
  bind_dn: string;
  user_base: string;
  /** An RFC 4515 filter with a {login} placeholder, where the typed login goes escaped. */
  user_filter: string;
  attributes: AttributeMapping;
  group_search?: GroupSearch;
  connect_timeout_ms: number;
  operation_timeout_ms: number;
  enabled: boolean;
  /** Directories are searched in this order, lowest first. */
  order: number;
}

/** An entry with its service account's password, as the seed file and the command line give it. */
export type DirectoryInput = DirectoryEntry & { bind_password: string };

const FIELDS = new Set([
  'id',
  'display_name',
  'url',
  'start_tls',
  'allow_plain_ldap',
  'ca_certificate',
  'bind_dn',
  'bind_password',
  'user_base',
  'user_filter',
  'attributes',
  'group_search',
  'connect_timeout_ms',
  'operation_timeout_ms',
  'enabled',
  'order',
]);
const ATTRIBUTE_FIELDS = new Set<string>(['username', 'id_attribute', 'email', 'email_verified', ...DIRECTORY_CLAIMS, 'groups']);
const GROUP_FIELDS = new Set(['base', 'filter', 'name_attribute']);

export const DEFAULT_CONNECT_TIMEOUT_MS = 3000;
export const DEFAULT_OPERATION_TIMEOUT_MS = 5000;
const MAX_TIMEOUT_MS = 30_000;

const SLUG = /^[a-z0-9][a-z0-9_-]{0,62}$/;
// RFC 4512 2.5: an attribute description (a name, or a dotted OID), options allowed.
const ATTRIBUTE = /^(?:[A-Za-z][A-Za-z0-9-]*|\d+(?:\.\d+)+)(?:;[A-Za-z0-9-]+)*$/;

const isText = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A filter template is a valid RFC 4515 filter once its placeholder holds a value. */
function filterProblem(template: unknown, placeholder: '{login}' | '{dn}', field: string): string | undefined {
  if (!isText(template)) return `${field} must be a non-empty string`;
  if (!template.includes(placeholder)) return `${field} must hold the ${placeholder} placeholder`;
  try {
    FilterParser.parseString(template.replaceAll(placeholder, 'x'));
  } catch {
    return `${field} is not an LDAP filter (RFC 4515)`;
  }
  return undefined;
}

function urlProblems(e: Record<string, unknown>): string[] {
  if (!isText(e.url)) return ['url must be a non-empty string'];
  let url: URL;
  try {
    url = new URL(e.url);
  } catch {
    return ['url is not a URL (ldaps://host:636 or ldap://host:389)'];
  }
  if (url.protocol !== 'ldap:' && url.protocol !== 'ldaps:') return ['url must start with ldaps:// or ldap://'];
  if (!url.hostname) return ['url must name a host'];
  // ldapts takes the protocol, host and port alone: a DN, attributes or a filter in the URL would be ignored.
  if ((url.pathname !== '' && url.pathname !== '/') || url.search || url.hash || url.username || url.password)
    return ['url takes the protocol, host and port only (the search base is user_base)'];
  if (url.protocol === 'ldaps:' && e.start_tls === true) return ['start_tls is for ldap:// (ldaps:// is TLS from the start)'];
  if (url.protocol === 'ldap:' && e.start_tls !== true && e.allow_plain_ldap !== true)
    return [
      'plain ldap:// sends passwords in the clear: use ldaps://, or start_tls: true, or (on a trusted link only) allow_plain_ldap: true',
    ];
  return [];
}

function attributeProblems(raw: unknown): string[] {
  if (!isObject(raw)) return ['attributes must be an object (username and id_attribute at least)'];
  const problems: string[] = [];
  for (const key of Object.keys(raw)) if (!ATTRIBUTE_FIELDS.has(key)) problems.push(`attributes: unknown field "${key}"`);
  for (const key of ['username', 'id_attribute']) if (!isText(raw[key])) problems.push(`attributes.${key} must name an attribute`);
  for (const key of ATTRIBUTE_FIELDS) {
    const value = raw[key];
    if (key === 'email_verified') {
      if (value !== undefined && typeof value !== 'boolean') problems.push('attributes.email_verified must be true or false');
    } else if (value !== undefined && (typeof value !== 'string' || !ATTRIBUTE.test(value)))
      problems.push(`attributes.${key} is not an attribute name`);
  }
  return problems;
}

function groupSearchProblems(raw: unknown): string[] {
  if (raw === undefined) return [];
  if (!isObject(raw)) return ['group_search must be an object (base, filter)'];
  const problems: string[] = [];
  for (const key of Object.keys(raw)) if (!GROUP_FIELDS.has(key)) problems.push(`group_search: unknown field "${key}"`);
  if (!isText(raw.base)) problems.push('group_search.base must be a non-empty DN');
  const filter = filterProblem(raw.filter, '{dn}', 'group_search.filter');
  if (filter) problems.push(filter);
  if (raw.name_attribute !== undefined && (typeof raw.name_attribute !== 'string' || !ATTRIBUTE.test(raw.name_attribute)))
    problems.push('group_search.name_attribute is not an attribute name');
  return problems;
}

function timeoutProblem(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 100 || value > MAX_TIMEOUT_MS)
    return `${field} must be a whole number of milliseconds from 100 to ${MAX_TIMEOUT_MS}`;
  return undefined;
}

/**
 * The problems of one entry, unlabelled. `withPassword`: the entry must carry bind_password (the seed file, the
 * command line); an entry read back from the database has it sealed apart.
 */
export function directoryProblems(raw: unknown, withPassword = true): string[] {
  if (!isObject(raw)) return ['a directory must be an object'];
  const problems: string[] = [];
  for (const key of Object.keys(raw))
    if (!FIELDS.has(key) || (key === 'bind_password' && !withPassword)) problems.push(`unknown field "${key}"`);
  if (typeof raw.id !== 'string' || !SLUG.test(raw.id)) problems.push('id must be a slug: lower-case letters, digits, "-" and "_"');
  if (!isText(raw.display_name)) problems.push('display_name must be a non-empty string');
  problems.push(...urlProblems(raw));
  for (const key of ['start_tls', 'allow_plain_ldap', 'enabled'])
    if (raw[key] !== undefined && typeof raw[key] !== 'boolean') problems.push(`${key} must be true or false`);
  if (
    raw.ca_certificate !== undefined &&
    (typeof raw.ca_certificate !== 'string' || !raw.ca_certificate.includes('-----BEGIN CERTIFICATE-----'))
  )
    problems.push('ca_certificate must hold PEM certificates');
  if (!isText(raw.bind_dn)) problems.push('bind_dn must be a non-empty DN (the service account)');
  if (withPassword && !isText(raw.bind_password)) problems.push('bind_password must be a non-empty string');
  if (!isText(raw.user_base)) problems.push('user_base must be a non-empty DN');
  const filter = filterProblem(raw.user_filter, '{login}', 'user_filter');
  if (filter) problems.push(filter);
  problems.push(...attributeProblems(raw.attributes));
  problems.push(...groupSearchProblems(raw.group_search));
  for (const key of ['connect_timeout_ms', 'operation_timeout_ms']) {
    const problem = timeoutProblem(raw[key], key);
    if (problem) problems.push(problem);
  }
  if (raw.order !== undefined && (typeof raw.order !== 'number' || !Number.isInteger(raw.order) || Math.abs(raw.order) > 1_000_000))
    problems.push('order must be a whole number');
  return problems;
}

/** A checked entry with its defaults filled in (the bind password, when given, is left out: it is stored sealed). */
export function normaliseDirectory(raw: Record<string, unknown>): DirectoryEntry {
  const attributes = raw.attributes as Record<string, unknown>;
  const groups = raw.group_search as Record<string, unknown> | undefined;
  const optional = <T>(key: string, value: T | undefined) => (value === undefined ? {} : { [key]: value });
  return {
    id: raw.id as string,
    display_name: raw.display_name as string,
    url: raw.url as string,
    start_tls: raw.start_tls === true,
    allow_plain_ldap: raw.allow_plain_ldap === true,
    ...optional('ca_certificate', raw.ca_certificate as string | undefined),
    bind_dn: raw.bind_dn as string,
    user_base: raw.user_base as string,
    user_filter: raw.user_filter as string,
    attributes: {
      username: attributes.username as string,
      id_attribute: attributes.id_attribute as string,
      email_verified: attributes.email_verified === true,
      ...Object.fromEntries(
        ['email', ...DIRECTORY_CLAIMS, 'groups'].flatMap((k) => (attributes[k] === undefined ? [] : [[k, attributes[k]]])),
      ),
    },
    ...optional(
      'group_search',
      groups && {
        base: groups.base as string,
        filter: groups.filter as string,
        name_attribute: (groups.name_attribute as string | undefined) ?? 'cn',
      },
    ),
    connect_timeout_ms: (raw.connect_timeout_ms as number | undefined) ?? DEFAULT_CONNECT_TIMEOUT_MS,
    operation_timeout_ms: (raw.operation_timeout_ms as number | undefined) ?? DEFAULT_OPERATION_TIMEOUT_MS,
    enabled: raw.enabled !== false,
    order: (raw.order as number | undefined) ?? 0,
  };
}
