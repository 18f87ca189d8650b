// Why a SAML connection refused a message or metadata: a stable code for tests and logs, and a detail for the log
// only (names checks, never an assertion's content or a key). At the ACS every one becomes an error page, never a
// redirect or a POST anywhere.
export type SamlSpErrorCode =
  /** Over the size cap, before any parsing. */
  | 'too-large'
  /** A DTD, an entity declaration or a processing instruction. */
  | 'dtd'
  /** Not well-formed, not SAML, or missing what the profile requires. */
  | 'malformed'
  /** Metadata without what a connection needs (an IdP role, an SSO endpoint, a signing certificate). */
  | 'metadata'
  /** The signature, the conditions or the subject confirmation did not hold. */
  | 'invalid'
  /** An assertion ID seen before. */
  | 'replayed'
  /** A response to no request of this browser, where the connection does not take unsolicited ones. */
  | 'unsolicited'
  /** The IdP answered with a status other than Success. */
  | 'status';

export class SamlSpError extends Error {
  constructor(
    readonly code: SamlSpErrorCode,
    readonly detail: string,
  ) {
    super(`${code}: ${detail}`);
    this.name = 'SamlSpError';
  }
}
