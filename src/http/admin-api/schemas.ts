// JSON schemas shared by the management API's routes: the problem details every route may answer, and small pieces.
import type { JsonSchema } from './route.js';

/** RFC 9457 3: the body of every error under /admin/api/v1 (src/http/admin-api/problem.ts). */
export const PROBLEM_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', required: ['pointer', 'detail'], properties: { pointer: { type: 'string' }, detail: { type: 'string' } } },
    },
  },
};

export const DATE_TIME = { type: 'string', format: 'date-time' } as const;
export const NULLABLE_DATE_TIME = { type: ['string', 'null'], format: 'date-time' } as const;

/** A search term: a case-insensitive part of the listed items' names. */
export const SEARCH_QUERY = { type: 'string', minLength: 1, maxLength: 200, description: 'a part of the name, in any case' } as const;

export const includesText = (haystack: ReadonlyArray<string | null | undefined>, needle: string | undefined): boolean =>
  needle === undefined || haystack.some((h) => h?.toLowerCase().includes(needle.toLowerCase()));
