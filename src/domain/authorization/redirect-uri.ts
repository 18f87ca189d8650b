// Appending response parameters to a registered redirect URI, keeping its own query (RFC 6749 3.1.2).

/**
 * How a person is told where a redirect URI leads: its host (with any port), or for a URI without one (a native
 * app's private-use scheme, RFC 8252 7.1) its scheme.
 */
export function redirectHost(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.host || url.protocol;
}

export function withResponseParams(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  return url.href;
}
