// A small validator for JSON read back from the database: a stored shape is checked field by field before it is
// typed, so a row written by another version of the code (rolling restarts) is either understood or refused.

/** Why a stored value was refused: the path of the first field that did not fit, never its value. */
class ShapeError extends Error {
  constructor(readonly path: string) {
    super(`unexpected value at ${path}`);
    this.name = 'ShapeError';
  }
}

/** Turns unknown JSON into a T, or throws ShapeError naming the path that did not fit. */
export type Shape<T> = (value: unknown, path: string) => T;

export const string: Shape<string> = (value, path) => {
  if (typeof value !== 'string') throw new ShapeError(path);
  return value;
};

export const boolean: Shape<boolean> = (value, path) => {
  if (typeof value !== 'boolean') throw new ShapeError(path);
  return value;
};

export const number: Shape<number> = (value, path) => {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ShapeError(path);
  return value;
};

export function literal<const L extends string>(expected: L): Shape<L> {
  return (value, path) => {
    if (value !== expected) throw new ShapeError(path);
    return expected;
  };
}

export function oneOf<const L extends string>(values: readonly L[]): Shape<L> {
  return (value, path) => {
    if (!(values as readonly unknown[]).includes(value)) throw new ShapeError(path);
    return value as L;
  };
}

export function nullable<T>(shape: Shape<T>): Shape<T | null> {
  return (value, path) => (value === null ? null : shape(value, path));
}

/** A field that may be absent: rows written before it existed lack it. */
export function optional<T>(shape: Shape<T>): Shape<T | undefined> {
  return (value, path) => (value === undefined ? undefined : shape(value, path));
}

export function arrayOf<T>(shape: Shape<T>): Shape<T[]> {
  return (value, path) => {
    if (!Array.isArray(value)) throw new ShapeError(path);
    return value.map((item, i) => shape(item, `${path}[${i}]`));
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object with exactly these fields checked; fields it does not name are dropped. */
export function object<T extends object>(fields: { [K in keyof T]-?: Shape<T[K]> }): Shape<T> {
  return (value, path) => {
    if (!isRecord(value)) throw new ShapeError(path);
    const out: Record<string, unknown> = {};
    for (const [key, shape] of Object.entries(fields) as [string, Shape<unknown>][]) out[key] = shape(value[key], `${path}.${key}`);
    return out as T;
  };
}

/** A column's text as JSON: pg returns jsonb parsed, PGlite returns it parsed too, a text column as a string. */
function fromColumn(stored: unknown, path: string): unknown {
  if (typeof stored !== 'string') return stored;
  try {
    return JSON.parse(stored) as unknown;
  } catch {
    throw new ShapeError(path);
  }
}

export type Versioned<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * The shapes a JSON column has had, by version. The module that owns the value defines them (an interaction's
 * request is the authorization's, a challenge's context the second factor's) and hands them to the repository,
 * which reads every row through them and writes new rows at the newest version.
 */
export type VersionedShapes<T> = Readonly<Record<number, Shape<T>>>;

/** The value as a column holds it: its fields with the newest version of `shapes` in `v`. */
export function writeVersioned<T extends object>(value: T, shapes: VersionedShapes<T>): string {
  const v = Math.max(...Object.keys(shapes).map(Number));
  return JSON.stringify({ v, ...value });
}

/**
 * Reads a stored value that carries its shape's version in `v`. A value without `v` was written before versions
 * were kept and is read as version 1; a version this code does not know (written by a newer instance) is refused.
 */
export function readVersioned<T>(stored: unknown, versions: VersionedShapes<T>, path = '$'): Versioned<T> {
  try {
    const value = fromColumn(stored, path);
    if (!isRecord(value)) throw new ShapeError(path);
    const v = value.v ?? 1;
    const shape = typeof v === 'number' ? versions[v] : undefined;
    if (!shape) return { ok: false, reason: `unknown version ${typeof v === 'number' ? v : typeof v}` };
    return { ok: true, value: shape(value, path) };
  } catch (err) {
    if (err instanceof ShapeError) return { ok: false, reason: err.message };
    throw err;
  }
}
