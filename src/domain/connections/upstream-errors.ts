// Why an upstream sign-in did not go through, as the person is told (a message key) and with which status: 400 for
// a request of ours that cannot be honoured (unknown, used or another browser's state, a link whose session ended),
// 403 for a refusal by rule, 409 for an upstream account linked to someone else, 502 for an upstream that answered
// wrongly or not at all. `detail` is for the log only, and never holds a token.
import type { MessageKey } from '../../i18n/catalog.js';

export type UpstreamRefusalKind =
  /** state unknown, used already, expired, another browser's, or for another connection. */
  | 'bad-state'
  /** The upstream sent the browser back with an error (the person declined, say). */
  | 'upstream-error'
  /** Network failure, timeout or 5xx from the upstream. */
  | 'upstream-down'
  /** The upstream answered, but not as the protocol says: wrong iss, a bad ID token, a refused code. */
  | 'bad-response'
  /** No local account may be made or linked for this upstream account. */
  | 'not-allowed'
  /** The upstream does not say the address is verified, and a local account has it. */
  | 'unverified-email'
  /** The connection is unknown or disabled. */
  | 'unknown-connection'
  /** The risk evaluation asks for more than the upstream sign-in (a CHALLENGE). */
  | 'challenged'
  /** A link from the account page came back to a browser no longer signed in as the user who started it. */
  | 'session-ended'
  /** A link from the account page brought an upstream account that another local user has. */
  | 'linked-elsewhere';

const STATUS: Record<UpstreamRefusalKind, number> = {
  'bad-state': 400,
  'upstream-error': 400,
  'upstream-down': 502,
  'bad-response': 502,
  'not-allowed': 403,
  'unverified-email': 403,
  'unknown-connection': 404,
  challenged: 403,
  'session-ended': 400,
  'linked-elsewhere': 409,
};

const MESSAGE: Record<UpstreamRefusalKind, MessageKey> = {
  'bad-state': 'connections.badState',
  'upstream-error': 'connections.upstreamError',
  'upstream-down': 'connections.upstreamDown',
  'bad-response': 'connections.badResponse',
  'not-allowed': 'connections.notAllowed',
  'unverified-email': 'connections.unverifiedEmail',
  'unknown-connection': 'connections.unknown',
  challenged: 'connections.challenge',
  'session-ended': 'connections.signInAgain',
  'linked-elsewhere': 'connections.linkedElsewhere',
};

export class UpstreamRefusal extends Error {
  readonly status: number;
  readonly key: MessageKey;
  constructor(
    readonly kind: UpstreamRefusalKind,
    /** Safe to log: names hosts and checks, never a code, token or secret. */
    readonly detail: string,
  ) {
    super(`${kind}: ${detail}`);
    this.name = 'UpstreamRefusal';
    this.status = STATUS[kind];
    this.key = MESSAGE[kind];
  }
}
