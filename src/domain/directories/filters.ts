// The search filters a sign-in sends: the admin's template with the typed login (or the user's DN, or the stored
// identifier) put in as an assertion value escaped per RFC 4515 3, so that no input can change the filter's shape.
import { Filter } from 'ldapts';

/**
 * RFC 4515 3: "the octets that represent the ASCII characters '*' (ASCII 0x2a), '(' (ASCII 0x28), ')' (ASCII
 * 0x29), '\' (ASCII 0x5c), and NUL (ASCII 0x00) are represented as a backslash followed by the two hexadecimal
 * digits". A Buffer (a binary identifier such as objectGUID) is escaped octet by octet.
 */
export function escapeValue(value: string | Buffer): string {
  return Filter.escape(value);
}

/** The user filter for a typed login: every {login} replaced by the escaped login. */
export function userSearchFilter(template: string, login: string): string {
  return template.replaceAll('{login}', escapeValue(login));
}

/** The group filter for a user: every {dn} replaced by the escaped DN. */
export function groupSearchFilter(template: string, dn: string): string {
  return template.replaceAll('{dn}', escapeValue(dn));
}

/** The entry with this stable identifier: an equality assertion on the id attribute. */
export function idFilter(attribute: string, id: string | Buffer): string {
  return `(${attribute}=${escapeValue(id)})`;
}
