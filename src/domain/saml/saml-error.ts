// A SAML message or metadata document the provider will not act on. It never travels back to a peer as a redirect:
// the browser gets an error page, the API a problem, and nothing is signed or stored.

/** Stable codes: tests, logs and the error page's wording key on them. */
export type SamlErrorCode =
  | 'too_large'
  | 'malformed_xml'
  | 'forbidden_markup'
  | 'bad_encoding'
  | 'not_metadata'
  | 'bad_metadata'
  | 'unknown_peer'
  | 'bad_signature'
  | 'bad_message'
  /** An assertion ID seen before (Profiles 4.1.4.5). */
  | 'replayed'
  /** A response to no request of this browser, where unsolicited ones are not taken. */
  | 'unsolicited'
  /** The peer answered with a status other than Success. */
  | 'peer_status';

export class SamlError extends Error {
  override readonly name = 'SamlError';
  constructor(
    readonly code: SamlErrorCode,
    /** What went wrong in words safe to show and log: never a key, a certificate or the message itself. */
    readonly description: string,
  ) {
    super(description);
  }
}
