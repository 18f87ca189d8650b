// The refusals of the SCIM endpoints (RFC 7644 3.12): an HTTP status and, for a 400, the scimType that says why.
// The app's one error handler renders them (src/http/scim/scim-error-body.ts).

/** RFC 7644 3.12, Table 9: the scimType values this server sends. */
export type ScimType =
  'invalidFilter' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'invalidValue' | 'uniqueness' | 'mutability' | 'tooMany';

export class ScimError extends Error {
  constructor(
    readonly status: number,
    detail: string,
    readonly scimType?: ScimType,
  ) {
    super(detail);
    this.name = 'ScimError';
  }
}

/** RFC 7644 3.12: "404 Not Found: Specified resource (e.g., User) or endpoint does not exist." */
export const notFound = (resource: 'User' | 'Group') => new ScimError(404, `no such ${resource}`);
