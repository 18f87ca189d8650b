// A directory that cannot answer (unreachable, too slow, TLS refused, the service bind refused): the sign-in is
// not checked, so it is answered as a temporary failure (503), never as a wrong password, and counts against nobody.
import { TemporarilyUnavailable } from '../../errors/oauth-error.js';

export class DirectoryUnavailable extends TemporarilyUnavailable {
  /**
   * `errorClass` names what failed (the ldapts or Node error's class or code) for the log: never its message, which
   * can hold a DN or a filter with the typed login.
   */
  constructor(
    readonly directoryId: string,
    readonly errorClass: string,
  ) {
    super('the sign-in service is temporarily unavailable, try again shortly');
  }
}

/** A safe name for a failure: the error's class, and its code when Node gave one (ECONNREFUSED, CERT_HAS_EXPIRED). */
export function errorClassOf(err: unknown): string {
  if (!(err instanceof Error)) return typeof err;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code) ? `${err.constructor.name}:${code}` : err.constructor.name;
}
