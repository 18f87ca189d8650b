// PATCH (RFC 7644 3.5.2): add, replace and remove operations applied in order to a resource's JSON representation,
// with or without a path, including value-filtered paths (emails[type eq "work"].value, members[value eq "..."]).
// The result is then stored as a PUT would store it (users.ts, groups.ts), so that PATCH and PUT keep one set of rules.
import { matches, parseValueFilter, type Comparison } from './filter.js';
import { ScimError } from './scim-error.js';

export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export interface PatchOperation {
  op: string;
  path?: string | undefined;
  value?: unknown;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Attribute names are case-insensitive (RFC 7643 2.1): representations are compared and patched with lower-case keys. */
export function lowerKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(lowerKeys);
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.toLowerCase(), lowerKeys(v)]));
}

interface Path {
  attr: string;
  filter?: Comparison[];
  sub?: string;
}

const invalidPath = (path: string) => new ScimError(400, `the path "${path}" is not valid`, 'invalidPath');

/** RFC 7644 3.5.2 PATH = attrPath / valuePath [subAttr]; a schema URN prefix is dropped. */
function parsePath(raw: string): Path {
  const path = raw.trim().replace(/^urn:[^[]*:(?=[a-z][^:]*$)/i, '');
  const m = /^([a-z][a-z0-9_$-]*)(?:\[(.+)\])?(?:\.([a-z][a-z0-9_$-]*))?$/i.exec(path);
  if (!m) throw invalidPath(raw);
  let filter: Comparison[] | undefined;
  if (m[2] !== undefined) {
    try {
      filter = parseValueFilter(m[2]);
    } catch {
      throw invalidPath(raw);
    }
  }
  return { attr: m[1]!.toLowerCase(), ...(filter ? { filter } : {}), ...(m[3] ? { sub: m[3].toLowerCase() } : {}) };
}

/** add (RFC 7644 3.5.2.1): multi-valued attributes gain the values, complex ones merge, others are set. */
function addTo(current: unknown, value: unknown): unknown {
  if (Array.isArray(current)) return [...current, ...(Array.isArray(value) ? value : [value])];
  if (isObject(current) && isObject(value)) return { ...current, ...value };
  return value;
}

/** replace (RFC 7644 3.5.2.3): "Sub-attributes that are not specified in the "value" parameter are left unchanged." */
function replaceIn(current: unknown, value: unknown): unknown {
  if (isObject(current) && isObject(value)) return { ...current, ...value };
  return value;
}

function applyOne(resource: Json, operation: PatchOperation): void {
  const op = operation.op.toLowerCase();
  if (op !== 'add' && op !== 'replace' && op !== 'remove')
    throw new ScimError(400, `the operation "${operation.op}" is not one of add, replace, remove`, 'invalidSyntax');
  const value = lowerKeys(operation.value);
  if (operation.path === undefined || operation.path === '') {
    // RFC 7644 3.5.2.2: "If "path" is unspecified, the operation fails with HTTP status code 400 and a "scimType"
    // error code of "noTarget"."
    if (op === 'remove') throw new ScimError(400, 'a remove operation needs a path', 'noTarget');
    // RFC 7644 3.5.2.1 and 3.5.2.3: without a path, "value" holds the attributes to add or replace.
    if (!isObject(value)) throw new ScimError(400, 'an operation without a path needs an object value', 'invalidValue');
    for (const [key, v] of Object.entries(value)) {
      // A key may itself be an attribute path: Microsoft Entra ID's path-less replace names sub-attributes and
      // extension attributes so ("name.givenName", "urn:...:enterprise:2.0:User:employeeNumber"; "Known issues with
      // SCIM 2.0 protocol compliance", requests to replace multiple attributes). Each is applied as its own path.
      if (key.includes('.') || key.startsWith('urn:')) applyOne(resource, { op, path: key, value: v });
      else resource[key] = op === 'add' ? addTo(resource[key], v) : replaceIn(resource[key], v);
    }
    return;
  }
  const path = parsePath(operation.path);
  if (op !== 'remove' && operation.value === undefined) throw new ScimError(400, `the ${op} operation needs a value`, 'invalidValue');
  if (path.filter) return applyFiltered(resource, op, path as Path & { filter: Comparison[] }, value);
  if (path.sub) {
    const parent = isObject(resource[path.attr]) ? { ...(resource[path.attr] as Json) } : {};
    if (op === 'remove') delete parent[path.sub];
    else parent[path.sub] = op === 'add' ? addTo(parent[path.sub], value) : replaceIn(parent[path.sub], value);
    resource[path.attr] = parent;
    return;
  }
  if (op === 'remove') {
    // A multi-valued attribute with a value list (Entra's members removal): only those values go.
    if (Array.isArray(resource[path.attr]) && Array.isArray(value)) {
      const gone = new Set(value.map((v) => (isObject(v) ? String(v.value) : String(v))));
      resource[path.attr] = (resource[path.attr] as unknown[]).filter((e) => !(isObject(e) && gone.has(String(e.value))));
    } else delete resource[path.attr];
    return;
  }
  resource[path.attr] = op === 'add' ? addTo(resource[path.attr], value) : replaceIn(resource[path.attr], value);
}

/**
 * A value-filtered path: the elements of a multi-valued attribute that match. An add or replace that matches none
 * adds an element made of the filter's eq comparisons (Entra adds a work address with
 * `emails[type eq "work"].value`); a replace then sets the sub-attribute or merges the value.
 */
function applyFiltered(resource: Json, op: string, path: Path & { filter: Comparison[] }, value: unknown): void {
  const list = Array.isArray(resource[path.attr]) ? [...(resource[path.attr] as unknown[])] : [];
  const hit = (e: unknown) => isObject(e) && path.filter.every((t) => matches(e[t.path], t));
  if (op === 'remove') {
    resource[path.attr] = path.sub
      ? list.map((e) => {
          if (!hit(e)) return e;
          const { [path.sub!]: _gone, ...kept } = e as Json;
          return kept;
        })
      : list.filter((e) => !hit(e));
    return;
  }
  if (!list.some(hit)) list.push(Object.fromEntries(path.filter.filter((t) => t.op === 'eq').map((t) => [t.path, t.value])));
  resource[path.attr] = list.map((e) => {
    if (!hit(e)) return e;
    if (path.sub) return { ...(e as Json), [path.sub]: value };
    if (!isObject(value)) throw new ScimError(400, 'a value-filtered path without a sub-attribute needs an object value', 'invalidValue');
    return { ...(e as Json), ...value };
  });
}

/** Applies the operations in order to a copy of `resource` (lower-case keys); any refused operation refuses them all. */
export function applyPatch(resource: Json, operations: readonly PatchOperation[]): Json {
  const next = structuredClone(lowerKeys(resource)) as Json;
  for (const operation of operations) applyOne(next, operation);
  return next;
}
