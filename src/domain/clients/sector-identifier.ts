// The sector_identifier_uri of a client that registers itself (OIDC Registration 2, OIDC Core 8.1): fetched through
// the one guarded fetch, and holding every redirect URI the client registers.
import type { Config } from '../../config.js';
import { guardedFetch, OutboundError, type OutboundDeps } from '../../outbound/guarded-fetch.js';
import { policyFor } from '../../outbound/policy.js';

export const SECTOR_FETCH_TIMEOUT_MS = 5_000;
export const SECTOR_MAX_BYTES = 64 * 1024;

/**
 * OIDC Registration 2: "The URL references a file with a single JSON array of redirect_uri values." and 5: "the OP
 * MUST ... verify that the array contains all of the redirect_uri values registered" (Core 8.1: "The values of the
 * registered redirect_uris MUST be included in the elements of the array"). Returns what is wrong, in words safe to
 * show the client (its own host, never its content), or undefined. The URL itself was checked (client-metadata.ts).
 */
export async function sectorIdentifierProblem(
  config: Pick<Config, 'issuer' | 'outbound'>,
  outbound: OutboundDeps,
  uri: string,
  redirectUris: readonly string[],
): Promise<string | undefined> {
  const url = new URL(uri);
  let response;
  try {
    response = await guardedFetch(
      {
        url,
        method: 'GET',
        headers: { accept: 'application/json' },
        timeoutMs: SECTOR_FETCH_TIMEOUT_MS,
        maxResponseBytes: SECTOR_MAX_BYTES,
      },
      policyFor(config, 'self-registered'),
      outbound,
    );
  } catch (err) {
    if (err instanceof OutboundError) return `sector_identifier_uri of host ${url.hostname} could not be read: ${err.message}`;
    throw err;
  }
  if (response.status !== 200) return `sector_identifier_uri of host ${url.hostname} answered ${response.status}`;
  let listed: unknown;
  try {
    listed = JSON.parse(response.body.toString('utf8'));
  } catch {
    return `sector_identifier_uri of host ${url.hostname} did not answer with JSON`;
  }
  if (!Array.isArray(listed) || !listed.every((v) => typeof v === 'string'))
    return 'sector_identifier_uri must hold a JSON array of redirect URIs';
  const missing = redirectUris.filter((r) => !listed.includes(r)).length;
  if (missing > 0) return `sector_identifier_uri does not list ${missing} of the registered redirect_uris`;
  return undefined;
}
