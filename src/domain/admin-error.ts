// The error of an admin action refused on its merits, shared by every surface that administers (the command line,
// the management API, the console, SCIM, the seed file): each turns its kind into its own answer.

/**
 * Why an action was refused: a bad value (400), an action the actor may never take (403: an organization's admin
 * creating an organization), nothing by that name within the actor's reach (404), or a clash with what exists (409).
 */
export type AdminErrorKind = 'invalid' | 'forbidden' | 'not_found' | 'conflict';

/** An admin action refused on its merits (no such client, an invalid value, a name taken); nothing was written. */
export class AdminError extends Error {
  constructor(
    message: string,
    readonly kind: AdminErrorKind = 'invalid',
  ) {
    super(message);
    this.name = 'AdminError';
  }
}
