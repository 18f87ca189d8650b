// What SCIM representations share (RFC 7643 3.1): meta with its version as a weak ETag of the representation, the
// ListResponse of a query (RFC 7644 3.4.2), and the paging parameters (RFC 7644 3.4.2.4).
import { sha256 } from '../secrets.js';
import { ScimError } from './scim-error.js';

export const LIST_RESPONSE_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** How many resources one page holds at most (ServiceProviderConfig filter.maxResults); also the default count. */
export const MAX_RESULTS = 100;

export type Json = Record<string, unknown>;

/**
 * RFC 7643 3.1 meta.version: "The version of the resource being returned. This value must be the same as the
 * entity-tag (ETag) HTTP response header"; a weak ETag (RFC 7232 2.3) of the representation without it.
 */
export function withVersion(resource: Json & { meta: Json }): Json {
  const version = `W/"${sha256(JSON.stringify(resource)).slice(0, 27)}"`;
  return { ...resource, meta: { ...resource.meta, version } };
}

export function versionOf(resource: Json): string {
  return String((resource.meta as Json).version);
}

export interface Page {
  /** 0-based, for SQL. */
  offset: number;
  limit: number;
  startIndex: number;
}

/**
 * RFC 7644 3.4.2.4: startIndex "A value less than 1 SHALL be interpreted as 1"; count "A negative value SHALL be
 * interpreted as 0", and a count above maxResults is cut to it.
 */
export function pageOf(startIndex: number | undefined, count: number | undefined): Page {
  const start = Math.max(1, Math.trunc(startIndex ?? 1));
  const limit = Math.min(MAX_RESULTS, Math.max(0, Math.trunc(count ?? MAX_RESULTS)));
  return { offset: start - 1, limit, startIndex: start };
}

/** RFC 7644 3.4.2: the ListResponse of one page. */
export function listResponse(total: number, page: Page, resources: Json[]): Json {
  return {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults: total,
    startIndex: page.startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

/**
 * RFC 7644 3.14: with If-Match, a change is made only to the version the client read; else 412 Precondition
 * Failed. "*" matches any version.
 */
export function checkVersion(resource: Json, ifMatch: string | undefined): void {
  if (ifMatch === undefined || ifMatch.trim() === '*') return;
  const version = String((resource.meta as Json).version);
  if (
    !ifMatch
      .split(',')
      .map((t) => t.trim())
      .includes(version)
  )
    throw new ScimError(412, 'the resource changed since it was read: read it again');
}
