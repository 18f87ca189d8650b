// The sector_identifier_uri of a client that registers itself (OIDC Registration 2, OIDC Core 8.1): fetched through
// the one guarded fetch, and holding every redirect URI the client registers.
import type { Config } from '../../config.js';
import type { OutboundDeps } from '../../outbound/guarded-fetch.js';
import { fetchJsonDocument } from '../../outbound/fetch-json.js';
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
  const read = await fetchJsonDocument(url, policyFor(config, 'self-registered'), outbound, {
    what: 'sector_identifier_uri',
    accept: 'application/json',
    timeoutMs: SECTOR_FETCH_TIMEOUT_MS,
    maxResponseBytes: SECTOR_MAX_BYTES,
  });
  if ('problem' in read) return read.problem;
  const listed = read.json;
  if (!Array.isArray(listed) || !listed.every((v) => typeof v === 'string'))
    return 'sector_identifier_uri must hold a JSON array of redirect URIs';
  const missing = redirectUris.filter((r) => !listed.includes(r)).length;
  if (missing > 0) return `sector_identifier_uri does not list ${missing} of the registered redirect_uris`;
  return undefined;
}
