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

/** A number that must be exactly `expected` (a value's own version field). */
export function exactly<const N extends number>(expected: N): Shape<N> {
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

/** An object whose keys are free (a scope's descriptions, a claim mapping): every value checked by `shape`. */
export function record<T>(shape: Shape<T>): Shape<Record<string, T>> {
  return (value, path) => {
    if (!isRecord(value)) throw new ShapeError(path);
    const out: Record<string, T> = {};
    for (const [key, item] of Object.entries(value)) out[key] = shape(item, `${path}.${key}`);
    return out;
  };
}

/**
 * Version 1 of a free-form object (an audit record's changes, a security event's details, a message's payload): any
 * JSON object, kept as written. It is stored without `v`, as before versions were kept, so an older instance reads
 * the bytes it always read; a version 2 would say `v: 2`, which this version refuses rather than guesses at.
 */
export const FREE_FORM_V1: Shape<Record<string, unknown>> = (value, path) => {
  if (!isRecord(value)) throw new ShapeError(path);
  if (value.v !== undefined && value.v !== 1) throw new ShapeError(`${path}.v`);
  const { v: _version, ...rest } = value;
  return _version === undefined ? value : rest;
};

/** The shapes of a free-form object column: pure storage vocabulary, since no field of it is read by the code. */
export const FREE_FORM: VersionedShapes<Record<string, unknown>> = { 1: FREE_FORM_V1 };

/**
 * A free-form object as its column holds it at version 1: as given, without `v` (FREE_FORM_V1). A value with a
 * field of its own named `v` would be read as a version, so it is refused here, where the writer is the code.
 */
export function writeFreeForm(value: Record<string, unknown>): string {
  if (Object.hasOwn(value, 'v')) throw new TypeError('a free-form JSON value may not have a field named v');
  return JSON.stringify(value);
}

/**
 * A free-form object read back for a listing (an audit record's changes, a security event's details): the row is
 * kept, since a trail hides nothing, and a value this version does not read is shown as `{ unreadable: why }`.
 */
export function readFreeFormForListing(stored: unknown): Record<string, unknown> {
  const read = readVersioned(stored, FREE_FORM);
  return read.ok ? read.value : { unreadable: read.reason };
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

/**
 * The value as a column holds it when the value names its own version in `v` (a sealed secret: 0 in the clear, 1
 * encrypted): checked against that version's shape first, so that nothing is written that could not be read back.
 */
export function writeSelfVersioned<T extends { v: number }>(value: T, shapes: VersionedShapes<T>): string {
  const shape = shapes[value.v];
  if (!shape) throw new TypeError(`no shape of version ${value.v}`);
  shape(value, '$');
  return JSON.stringify(value);
}

const readOnlyShapes = new WeakSet<Shape<unknown>>();

/**
 * A version this release reads but does not write yet: the first of the two releases that raise a shape's version
 * (docs/upgrading.md), so that the release before it, still running beside it, reads every row it writes.
 */
export function readOnly<T>(shape: Shape<T>): Shape<T> {
  const marked: Shape<T> = (value, path) => shape(value, path);
  readOnlyShapes.add(marked);
  return marked;
}

/** The version new rows are written at: the newest of `shapes` that is not read-only. */
export function writtenVersion(shapes: VersionedShapes<unknown>): number {
  const writable = Object.keys(shapes)
    .map(Number)
    .filter((v) => !readOnlyShapes.has(shapes[v]!));
  return Math.max(...writable);
}

/** The value as a column holds it: its fields with the written version of `shapes` in `v` (writtenVersion). */
export function writeVersioned<T extends object>(value: T, shapes: VersionedShapes<T>): string {
  const v = writtenVersion(shapes);
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
