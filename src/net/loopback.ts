// The loopback host names that "http only on this machine" rules accept (RFC 8252 7.3, RFC 9700 2.1): the issuer in
// development, redirect URIs of native apps, a notifier relay. One list, so that every such rule agrees.
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A URL's host names this machine (localhost, 127.0.0.1 or [::1]), as URL.hostname writes it. */
export function isLoopbackUrl(url: URL): boolean {
  return LOOPBACK_HOSTS.has(url.hostname);
}
