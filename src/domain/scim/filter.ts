// The subset of the SCIM filter grammar this server answers (RFC 7644 3.4.2.2): `attrPath op value` comparisons
// with the operators eq, co and sw, joined by `and`. Anything else (or, not, grouping, pr, gt...) is refused with
// 400 invalidFilter, which ServiceProviderConfig announces (filter.supported, and the documentation of this subset).
import { ScimError } from './scim-error.js';

export type FilterOp = 'eq' | 'co' | 'sw';
export type FilterValue = string | boolean | number | null;

export interface Comparison {
  /** The attribute path as given, lower-cased (attribute names are case-insensitive, RFC 7643 2.1). */
  path: string;
  op: FilterOp;
  value: FilterValue;
}

/** The longest filter taken; the query schema says the same. */
export const MAX_FILTER_LENGTH = 1000;

const invalid = (why: string) => new ScimError(400, `the filter is not valid: ${why}`, 'invalidFilter');

const ATTR = /^(?:urn:[a-z0-9:._-]+:)?[a-z][a-z0-9_$-]*(?:\.[a-z][a-z0-9_$-]*)?/i;
const VALUE = /^(?:"(?:[^"\\]|\\.)*"|true\b|false\b|null\b|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)/i;

/**
 * Parses `filter` (RFC 7644 3.4.2.2, ABNF in Figure 1) into its comparisons, all of which must hold. A schema URN
 * prefix on the attribute (urn:ietf:params:scim:schemas:core:2.0:User:userName) is dropped.
 */
export function parseFilter(filter: string): Comparison[] {
  if (filter.length > MAX_FILTER_LENGTH) throw invalid('it is too long');
  const terms: Comparison[] = [];
  let rest = filter.trim();
  if (rest === '') throw invalid('it is empty');
  for (;;) {
    const attr = ATTR.exec(rest)?.[0];
    if (!attr) throw invalid('an attribute path is expected');
    rest = rest.slice(attr.length);
    const opMatch = /^\s+([a-z]{2})\s+/i.exec(rest);
    if (!opMatch) throw invalid(`an operator is expected after ${attr}`);
    const op = opMatch[1]!.toLowerCase();
    if (op !== 'eq' && op !== 'co' && op !== 'sw') throw invalid(`the operator "${op}" is not supported (eq, co, sw)`);
    rest = rest.slice(opMatch[0].length);
    const raw = VALUE.exec(rest)?.[0];
    if (!raw) throw invalid('a value (a JSON string, true, false, null or a number) is expected');
    rest = rest.slice(raw.length);
    let value: FilterValue;
    try {
      value = JSON.parse(/^(true|false|null)$/i.test(raw) ? raw.toLowerCase() : raw) as FilterValue;
    } catch {
      throw invalid('a string value is not valid JSON');
    }
    const path = attr.replace(/^urn:.*:/i, '').toLowerCase();
    terms.push({ path, op, value });
    if (rest.trim() === '') return terms;
    const and = /^\s+and\s+/i.exec(rest);
    if (!and) throw invalid('only "and" may join comparisons');
    rest = rest.slice(and[0].length);
  }
}

/** One comparison against a value in memory (a PATCH path's value filter): strings compared in any case. */
export function matches(actual: unknown, term: Comparison): boolean {
  if (typeof actual === 'string' && typeof term.value === 'string') {
    const a = actual.toLowerCase();
    const v = term.value.toLowerCase();
    return term.op === 'eq' ? a === v : term.op === 'co' ? a.includes(v) : a.startsWith(v);
  }
  return term.op === 'eq' && actual === term.value;
}
