// What a directory entry says of its person, by the directory's attribute mapping: the local user's username,
// email and OIDC Core 5.1 claims, and the entry's stable identifier for the link.
import type { Entry } from 'ldapts';
import { isEmailClaimValue } from '../claims.js';
import { DIRECTORY_CLAIMS, type AttributeMapping, type DirectoryEntry } from './directory-settings.js';

/** Identifiers held as octets (Active Directory's GUID and SID): stored as base64, searched octet by octet. */
const BINARY_IDS = new Set(['objectguid', 'objectsid', 'msds-consistencyguid']);

export const isBinaryId = (attribute: string) => BINARY_IDS.has(attribute.toLowerCase());

export interface EntryProfile {
  dn: string;
  externalId: string;
  username: string;
  email: string | null;
  emailVerified: boolean;
  /** Claims kept in users.claims (name, given_name, family_name, groups), absent ones left out. */
  claims: Record<string, unknown>;
}

/** The attributes a user search asks for. */
export function requestedAttributes(mapping: AttributeMapping): string[] {
  const names = [mapping.id_attribute, mapping.username, mapping.email, ...DIRECTORY_CLAIMS.map((c) => mapping[c]), mapping.groups];
  return [...new Set(names.filter((n): n is string => n !== undefined))];
}

/** Every value of an attribute (names match in any case, RFC 4512 2.5), as ldapts returns them. */
function values(entry: Entry, attribute: string): Array<string | Buffer> {
  const key = Object.keys(entry).find((k) => k.toLowerCase() === attribute.toLowerCase());
  if (key === undefined || key === 'dn') return [];
  const value = entry[key]!;
  return Array.isArray(value) ? value : [value];
}

function firstText(entry: Entry, attribute: string | undefined): string | undefined {
  if (attribute === undefined) return undefined;
  const value = values(entry, attribute)[0];
  const text = Buffer.isBuffer(value) ? value.toString('utf8') : value;
  return text && text.trim() ? text.trim() : undefined;
}

/** The entry's stable identifier as the link stores it; undefined when the entry lacks it. */
export function externalIdOf(entry: Entry, attribute: string): string | undefined {
  const value = values(entry, attribute)[0];
  if (value === undefined || value.length === 0) return undefined;
  if (isBinaryId(attribute)) return (Buffer.isBuffer(value) ? value : Buffer.from(value, 'utf8')).toString('base64');
  return Buffer.isBuffer(value) ? value.toString('utf8') : value;
}

/** The stored identifier as a search asserts it. */
export function externalIdValue(externalId: string, attribute: string): string | Buffer {
  return isBinaryId(attribute) ? Buffer.from(externalId, 'base64') : externalId;
}

/** A group's name from a DN (RFC 4514): the value of its first RDN, unescaped; other values as they are. */
export function groupName(value: string): string {
  const rdn = /^\s*[A-Za-z0-9.-]+\s*=\s*((?:\\.|[^,+\\])*)/.exec(value);
  if (!rdn || !value.includes('=')) return value;
  return rdn[1]!.replace(/\\([0-9a-fA-F]{2}|.)/g, (_, c: string) => (c.length === 2 ? String.fromCharCode(parseInt(c, 16)) : c)).trim();
}

/** The mapped profile of an entry, or undefined when it lacks the username or the identifier. */
export function entryProfile(directory: DirectoryEntry, entry: Entry, searchedGroups: string[]): EntryProfile | undefined {
  const mapping = directory.attributes;
  const externalId = externalIdOf(entry, mapping.id_attribute);
  const username = firstText(entry, mapping.username);
  if (externalId === undefined || username === undefined) return undefined;
  const email = firstText(entry, mapping.email);
  const listed =
    mapping.groups === undefined ? [] : values(entry, mapping.groups).map((v) => groupName(Buffer.isBuffer(v) ? v.toString('utf8') : v));
  const groups = [...new Set([...listed, ...searchedGroups])].filter((g) => g.length > 0).sort();
  const claims: Record<string, unknown> = {};
  for (const claim of DIRECTORY_CLAIMS) {
    const value = firstText(entry, mapping[claim]);
    if (value !== undefined) claims[claim] = value;
  }
  if (mapping.groups !== undefined || directory.group_search !== undefined) claims.groups = groups;
  return {
    dn: entry.dn,
    externalId,
    username,
    email: email !== undefined && isEmailClaimValue(email) ? email : null,
    emailVerified: mapping.email_verified,
    claims,
  };
}
