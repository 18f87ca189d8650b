// The admin domain's refusals (src/domain/admin/admin.ts AdminError) as SCIM errors (RFC 7644 3.12): a bad value is
// 400 invalidValue, nothing by that id 404, a name or address taken 409 uniqueness.
import { AdminError } from '../admin-error.js';
import { ScimError } from './scim-error.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A SCIM id is the resource's uuid; the admin functions' other names (a username) are not ids here. */
export const isUuid = (id: unknown): id is string => typeof id === 'string' && UUID.test(id);

export async function scimErrorOfAdmin<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof AdminError)) throw err;
    if (err.kind === 'not_found') throw new ScimError(404, 'no such resource');
    // RFC 7644 3.3: "If the service provider determines that the creation of the requested resource conflicts with
    // existing resources (e.g., a "User" resource with a duplicate "userName"), the service provider MUST return
    // HTTP status code 409 (Conflict) with a "scimType" error code of "uniqueness"".
    if (err.kind === 'conflict') throw new ScimError(409, err.message, 'uniqueness');
    throw new ScimError(400, err.message, 'invalidValue');
  }
}
