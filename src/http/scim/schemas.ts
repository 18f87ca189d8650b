// The JSON schemas of the SCIM routes' input (RFC 7644 3.4.2 query parameters, 3.5.2 PatchOp). Resource bodies are
// checked attribute by attribute in the domain (src/domain/scim/users.ts, groups.ts), whose errors carry a scimType.
import { MAX_FILTER_LENGTH } from '../../domain/scim/filter.js';
import { PATCH_OP_SCHEMA } from '../../domain/scim/patch.js';

export const ID_PARAMS = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', maxLength: 200 } },
} as const;

/** RFC 7644 3.4.2: filter, startIndex and count are used; attributes is accepted and ignored (all are returned). */
export const LIST_QUERY = {
  type: 'object',
  properties: {
    filter: { type: 'string', maxLength: MAX_FILTER_LENGTH },
    startIndex: { type: 'integer' },
    count: { type: 'integer' },
    attributes: { type: 'string', maxLength: 1000 },
    excludedAttributes: { type: 'string', maxLength: 1000 },
  },
} as const;

export const RESOURCE_BODY = { type: 'object' } as const;

/** RFC 7644 3.5.2: "The body of each request MUST contain the "schemas" attribute with the URI value of PatchOp". */
export const PATCH_BODY = {
  type: 'object',
  required: ['schemas', 'Operations'],
  properties: {
    schemas: { type: 'array', contains: { const: PATCH_OP_SCHEMA } },
    Operations: {
      type: 'array',
      minItems: 1,
      maxItems: 1000,
      items: {
        type: 'object',
        required: ['op'],
        properties: { op: { type: 'string', maxLength: 20 }, path: { type: 'string', maxLength: 1000 }, value: {} },
      },
    },
  },
} as const;

export type ListQuery = { filter?: string; startIndex?: number; count?: number; attributes?: string; excludedAttributes?: string };
