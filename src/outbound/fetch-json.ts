// A JSON document read through the one guarded fetch (guarded-fetch.ts): a client's jwks_uri, its
// sector_identifier_uri. Every failure is said in words safe to log and to show the client: its host, never its body.
import { guardedFetch, OutboundError, type OutboundDeps, type OutboundPolicy } from './guarded-fetch.js';

export interface JsonDocumentRequest {
  /** The document's metadata name, for the messages: "jwks_uri", "sector_identifier_uri". */
  what: string;
  accept: string;
  timeoutMs: number;
  maxResponseBytes: number;
}

/** GETs `url` under `policy`: the parsed JSON, or why there is none. */
export async function fetchJsonDocument(
  url: URL,
  policy: OutboundPolicy,
  outbound: OutboundDeps,
  r: JsonDocumentRequest,
): Promise<{ json: unknown } | { problem: string }> {
  const where = `${r.what} of host ${url.hostname}`;
  let response;
  try {
    response = await guardedFetch(
      { url, method: 'GET', headers: { accept: r.accept }, timeoutMs: r.timeoutMs, maxResponseBytes: r.maxResponseBytes },
      policy,
      outbound,
    );
  } catch (err) {
    if (err instanceof OutboundError) return { problem: `${where} could not be read: ${err.message}` };
    throw err;
  }
  if (response.status !== 200) return { problem: `${where} answered ${response.status}` };
  try {
    return { json: JSON.parse(response.body.toString('utf8')) };
  } catch {
    return { problem: `${where} did not answer with JSON` };
  }
}
