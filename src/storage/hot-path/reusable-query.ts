// Hot statements built and compiled once per process (per shape), then run with each request's values.
//
// Kysely builds an immutable query tree and compiles it to SQL on every call; for the large CTE statements of
// the hot paths that was a fifth of the server's CPU per request. A reusable query is built once with a
// placeholder for each named value, compiled, and remembered with the position of every placeholder among
// the parameters; each call then only fills in its values. Anything that changes the statement's text (an
// optional condition) is part of the `shape`, chosen by the caller from the values and passed to `build`.
import { CompiledQuery, type Compilable } from 'kysely';
import type { Db } from '../database.js';

const PLACEHOLDER = '\u0000reusable-query-value:';

type Slot = { name: string } | { constant: unknown };

export interface ReusableQuery<V extends object, S extends Record<string, boolean>, R> {
  /** Runs the statement of this shape with these values; every key of V must be present (null, not absent). */
  execute(db: Db, values: V, shape: S): Promise<R[]>;
}

export function reusableQuery<V extends object, S extends Record<string, boolean>, R>(
  build: (db: Db, values: V, shape: S) => Compilable<R>,
): ReusableQuery<V, S, R> {
  const compiled = new Map<string, { sql: string; slots: Slot[] }>();
  return {
    async execute(db, values, shape) {
      // In the order the caller wrote the shape: the same call site always writes it alike, and two orders of one
      // shape would only compile the same statement twice (no sort on every run).
      let key = '';
      for (const k in shape) key += shape[k] ? `${k}+,` : `${k}-,`;
      let statement = compiled.get(key);
      if (statement === undefined) {
        const placeholders = Object.fromEntries(Object.keys(values).map((name) => [name, `${PLACEHOLDER}${name}`])) as V;
        const query = build(db, placeholders, shape).compile();
        const slots = query.parameters.map((p): Slot =>
          typeof p === 'string' && p.startsWith(PLACEHOLDER) ? { name: p.slice(PLACEHOLDER.length) } : { constant: p },
        );
        statement = { sql: query.sql, slots };
        compiled.set(key, statement);
      }
      const named = values as Record<string, unknown>;
      const parameters = statement.slots.map((slot) => ('name' in slot ? named[slot.name] : slot.constant));
      const result = await db.executeQuery<R>(CompiledQuery.raw(statement.sql, parameters));
      return result.rows;
    },
  };
}
