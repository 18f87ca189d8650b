// The subset of the SCIM filter grammar this server answers (RFC 7644 3.4.2.2): `attrPath op value` comparisons
// with the operators eq, co and sw, joined by `and`, and value filters of such comparisons on a multi-valued
// attribute (`emails[type eq "work"]`). Anything else (or, not, grouping, pr, gt...) is refused with
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

/** The end of a bracketed value filter that starts at `open` ("["), skipping brackets inside quoted strings. */
function closingBracket(text: string, open: number): number {
  let quoted = false;
  for (let i = open + 1; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '[') throw invalid('a value filter may not hold another one');
    else if (c === ']') return i;
  }
  throw invalid('a "[" is not closed');
}

/** One `attrPath op value` comparison at the start of `rest`: the comparison and what follows it. */
function comparisonAt(rest: string, attr: string): { term: Comparison; rest: string } {
  const opMatch = /^\s+([a-z]{2})\s+/i.exec(rest);
  if (!opMatch) throw invalid(`an operator is expected after ${attr}`);
  const op = opMatch[1]!.toLowerCase();
  if (op !== 'eq' && op !== 'co' && op !== 'sw') throw invalid(`the operator "${op}" is not supported (eq, co, sw)`);
  rest = rest.slice(opMatch[0].length);
  const raw = VALUE.exec(rest)?.[0];
  if (!raw) throw invalid('a value (a JSON string, true, false, null or a number) is expected');
  let value: FilterValue;
  try {
    value = JSON.parse(/^(true|false|null)$/i.test(raw) ? raw.toLowerCase() : raw) as FilterValue;
  } catch {
    throw invalid('a string value is not valid JSON');
  }
  return { term: { path: attr.replace(/^urn:.*:/i, '').toLowerCase(), op, value }, rest: rest.slice(raw.length) };
}

/**
 * Parses `filter` (RFC 7644 3.4.2.2, ABNF in Figure 1) into its comparisons, all of which must hold. A schema URN
 * prefix on the attribute (urn:ietf:params:scim:schemas:core:2.0:User:userName) is dropped.
 *
 * A value filter on a multi-valued attribute, `emails[type eq "work" and value eq "a@example.com"]` (the valuePath
 * of the ABNF), gives its comparisons with the attribute's name in front: emails.type, emails.value. Microsoft
 * Entra ID writes the same question as `emails[type eq "work"].value eq "a@example.com"` ("Tutorial: Develop and plan
 * provisioning for a SCIM endpoint", /Users), which is read the same way. The comparisons are each checked on their
 * own: for a resource that keeps one value of the attribute (a User's one address) that is the same thing.
 */
export function parseFilter(filter: string): Comparison[] {
  return parseTerms(filter, true);
}

/** The valFilter inside a PATCH path's brackets (RFC 7644 3.5.2, `members[value eq "..."]`): plain comparisons. */
export function parseValueFilter(filter: string): Comparison[] {
  return parseTerms(filter, false);
}

function parseTerms(filter: string, valuePaths: boolean): Comparison[] {
  if (filter.length > MAX_FILTER_LENGTH) throw invalid('it is too long');
  const terms: Comparison[] = [];
  let rest = filter.trim();
  if (rest === '') throw invalid('it is empty');
  for (;;) {
    const attr = ATTR.exec(rest)?.[0];
    if (!attr) throw invalid('an attribute path is expected');
    rest = rest.slice(attr.length);
    if (rest.startsWith('[')) {
      const parent = attr.replace(/^urn:.*:/i, '').toLowerCase();
      if (!valuePaths || parent.includes('.')) throw invalid(`"${attr}[" is not a value filter this server reads`);
      const close = closingBracket(rest, 0);
      const inner = parseTerms(rest.slice(1, close), false).map((t) => ({ ...t, path: `${parent}.${t.path}` }));
      terms.push(...inner);
      rest = rest.slice(close + 1);
      const sub = /^\.([a-z][a-z0-9_$-]*)/i.exec(rest);
      if (sub) {
        const compared = comparisonAt(rest.slice(sub[0].length), `${attr}.${sub[1]}`);
        terms.push({ ...compared.term, path: `${parent}.${sub[1]!.toLowerCase()}` });
        rest = compared.rest;
      }
    } else {
      const compared = comparisonAt(rest, attr);
      terms.push(compared.term);
      rest = compared.rest;
    }
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
