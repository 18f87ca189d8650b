// Lists of the management API: pages of at most `limit` items, continued with an opaque cursor (next_cursor). A
// cursor is base64url JSON of the position after which the next page starts; it is checked when read back (its
// shape, and the list it was made for), and a cursor that fails is a 400, never a 500 nor a silent first page.
import { ApiProblem } from './problem.js';
import type { JsonSchema } from './route.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

/** The query parameters every list takes, to spread into its querystring schema's properties. */
export const PAGE_QUERY_PROPERTIES = {
  limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: 'at most this many items' },
  cursor: { type: 'string', minLength: 1, maxLength: 512, description: 'next_cursor of the previous page' },
} as const;

export interface PageQuery {
  limit?: number;
  cursor?: string;
}

/** The schema of a page of `item`s. */
export const pageSchema = (item: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['items', 'next_cursor'],
  properties: {
    items: { type: 'array', items: item },
    next_cursor: { type: ['string', 'null'], description: 'null on the last page' },
  },
});

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** A cursor for the list named `list`, continuing after `after`. */
export function encodeCursor(list: string, after: string): string {
  return Buffer.from(JSON.stringify({ l: list, a: after }), 'utf8').toString('base64url');
}

/** The position a cursor of `list` continues after; an ApiProblem for anything else. */
export function decodeCursor(list: string, cursor: string): string {
  let parsed: unknown;
  try {
    parsed = /^[A-Za-z0-9_-]+$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : undefined;
  } catch {
    parsed = undefined;
  }
  const p = parsed as { l?: unknown; a?: unknown } | undefined;
  if (typeof p !== 'object' || p === null || p.l !== list || typeof p.a !== 'string' || Object.keys(p).length !== 2)
    throw new ApiProblem(400, 'invalid_cursor', 'the cursor is not one this list gave');
  return p.a;
}

/** The key of a list ordered by uuid: a cursor must carry one, or the database would refuse to compare it. */
export const UUID_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A page read in SQL by keyset (ORDER BY a unique key, WHERE key > the cursor's, LIMIT): `read` is given the key to
 * start after and asked for one row more than the page holds, which only says that more follow. `key` checks the
 * cursor's key before it reaches the database.
 */
export async function readPage<T>(
  list: string,
  query: PageQuery,
  read: (after: string | undefined, limit: number) => Promise<T[]>,
  keyOf: (item: T) => string,
  key?: RegExp,
): Promise<Page<T>> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const after = query.cursor === undefined ? undefined : decodeCursor(list, query.cursor);
  if (after !== undefined && key !== undefined && !key.test(after))
    throw new ApiProblem(400, 'invalid_cursor', 'the cursor is not one this list gave');
  const rows = await read(after, limit + 1);
  const page = rows.slice(0, limit);
  return { items: page, next_cursor: rows.length > limit ? encodeCursor(list, keyOf(page[page.length - 1]!)) : null };
}

/**
 * A page of a short list held whole (a user's sessions, the groups, the signing keys...), ordered by `keyOf`, which must be
 * unique: the items after the cursor's key, and a cursor when more follow.
 */
export function pageOf<T>(list: string, items: readonly T[], keyOf: (item: T) => string, query: PageQuery): Page<T> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const after = query.cursor === undefined ? undefined : decodeCursor(list, query.cursor);
  const sorted = [...items].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  const rest = after === undefined ? sorted : sorted.filter((item) => keyOf(item) > after);
  const page = rest.slice(0, limit);
  const more = rest.length > limit;
  return { items: page, next_cursor: more ? encodeCursor(list, keyOf(page[page.length - 1]!)) : null };
}
