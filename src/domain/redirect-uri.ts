// Appending response parameters to a registered redirect URI, keeping its own query (RFC 6749 3.1.2).

export function withResponseParams(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  return url.href;
}
