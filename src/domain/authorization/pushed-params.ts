// The shape a pushed authorization request's parameters are stored in (pushed_authorization_requests.params, read
// back through it by src/storage/pushed-requests.ts): an instance may take a request_uri another version pushed.
import { arrayOf, record, string, type Shape, type VersionedShapes } from '../../storage/json-shape.js';

/** The request's parameters by name, as /authorize reads them: one value, or several (refused there, RFC 6749 3.1). */
export type PushedParams = Record<string, string | string[]>;

const stringOrStrings: Shape<string | string[]> = (value, path) =>
  Array.isArray(value) ? arrayOf(string)(value, path) : string(value, path);

const parameters = record(stringOrStrings);

/**
 * Version 1, stored without `v` as before versions were kept, so an older instance reads the bytes it always read.
 * No authorization parameter is named `v` (withoutVersionField drops one at the push): a `v` here names a version.
 */
const PUSHED_PARAMS_V1: Shape<PushedParams> = (value, path) => {
  if (typeof value === 'object' && value !== null && 'v' in value) {
    const { v: _version, ...rest } = value as Record<string, unknown>;
    return parameters(rest, path);
  }
  return parameters(value, path);
};

export const PUSHED_PARAMS: VersionedShapes<PushedParams> = { 1: PUSHED_PARAMS_V1 };

/** The parameters as version 1 stores them: a parameter named `v` means nothing to /authorize, and is not kept. */
export function withoutVersionField(params: PushedParams): PushedParams {
  const { v: _ignored, ...rest } = params;
  return rest;
}
