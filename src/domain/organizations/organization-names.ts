// What an organization's names may be (issue 40): its slug, display name, the roles it defines and the domains it
// claims. One rule each, for every surface that takes them (command line, seed file, management API, console).
import { domainToASCII } from 'node:url';

/** The roles every organization has; `admin` administers the organization, `member` is every member's. */
export const BUILT_IN_ROLES = ['admin', 'member'] as const;
export const ADMIN_ROLE = 'admin';
export const MEMBER_ROLE = 'member';

/** A member holds at most this many roles, and an organization defines at most this many of its own. */
export const MAX_ROLES = 50;

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const ROLE = /^[a-z0-9][a-z0-9_:.-]{0,62}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** True when the string has the form of an organization id (a UUID), which no slug can take. */
export const isOrganizationId = (value: string): boolean => UUID.test(value);

export function slugProblem(slug: unknown): string | undefined {
  if (typeof slug !== 'string' || !SLUG.test(slug))
    return 'slug must be 1 to 63 lower-case letters, digits and hyphens, starting and ending with a letter or digit';
  if (isOrganizationId(slug)) return 'slug must not have the form of an organization id';
  return undefined;
}

export function displayNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name.trim() === '' || name.length > 200) return 'display_name must be 1 to 200 characters';
  return undefined;
}

export function roleNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || !ROLE.test(name))
    return 'a role name is 1 to 63 lower-case letters, digits and _ : . -, starting with a letter or digit';
  return undefined;
}

/**
 * The domain as it is stored and compared: lower case, internationalised names in their ASCII (punycode) form, no
 * trailing dot; undefined when it is not a host name of at least two labels (no IP address, no wildcard).
 */
export function normalizeDomain(input: string): string | undefined {
  const trimmed = input.trim().replace(/\.$/, '');
  if (trimmed === '' || trimmed.includes('*') || trimmed.includes('/') || trimmed.includes(':')) return undefined;
  const ascii = domainToASCII(trimmed).toLowerCase();
  if (ascii === '' || ascii.length > 253) return undefined;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return undefined;
  if (/^[0-9]+$/.test(labels.at(-1)!)) return undefined; // an IPv4 address
  return ascii;
}

/** The domain part of an email address, normalised; undefined when the address has none that is valid. */
export function domainOfEmail(email: string): string | undefined {
  const at = email.lastIndexOf('@');
  if (at < 1) return undefined;
  return normalizeDomain(email.slice(at + 1));
}
