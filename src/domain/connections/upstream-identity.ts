// The upstream account as the provider keeps it: its subject and the claims the connection maps (email, whether the
// upstream verified it, name, username, groups), read from the ID token or from the userinfo endpoint (OIDC Core
// 5.3, or an OAuth 2.0 service's user API) through the guarded fetch. The access token goes in one header only.
import { guardedFetch, OutboundError } from '../../outbound/guarded-fetch.js';
import type { ProviderContext } from '../context.js';
import type { Connection } from './connection.js';
import { upstreamPolicy } from './upstream-directory.js';
import { UpstreamRefusal } from './upstream-errors.js';

export interface UpstreamIdentity {
  subject: string;
  email: string | null;
  /** Only a boolean `true` from the upstream counts. */
  emailVerified: boolean;
  name: string | null;
  username: string | null;
  groups: string[];
  /** RFC 8176 values the upstream gave (ID token `amr`), and its `acr`; passed on only for a trusted connection. */
  amr: string[];
  acr: string | null;
}

const USERINFO_TIMEOUT_MS = 5_000;
const USERINFO_MAX_BYTES = 256 * 1024;
const MAX_GROUPS = 100;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

function text(value: unknown, max: number): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return typeof value === 'string' && value.length > 0 && value.length <= max ? value : null;
}

/** The mapped claims of `claims`; refuses an account without a subject. */
export function identityFromClaims(
  connection: Connection,
  claims: Record<string, unknown>,
  source: { fromIdToken: boolean },
): UpstreamIdentity {
  const m = connection.mapping;
  const subject = text(claims[source.fromIdToken ? 'sub' : m.subject], 255);
  if (subject === null) throw new UpstreamRefusal('bad-response', 'the upstream account has no subject');
  const email = text(claims[m.email], 320);
  const groups = Array.isArray(claims[m.groups])
    ? (claims[m.groups] as unknown[]).filter((g): g is string => typeof g === 'string' && g.length <= 255)
    : [];
  return {
    subject,
    email: email !== null && EMAIL.test(email) ? email : null,
    emailVerified: claims[m.email_verified] === true,
    name: text(claims[m.name], 255),
    username: text(claims[m.username], 255),
    groups: groups.slice(0, MAX_GROUPS),
    // OIDC Core 2: amr and acr are ID token claims; a userinfo document (OAuth 2.0 connections) does not vouch for them.
    amr:
      source.fromIdToken && Array.isArray(claims.amr)
        ? (claims.amr as unknown[]).filter((v): v is string => typeof v === 'string' && /^[A-Za-z0-9_-]{1,32}$/.test(v))
        : [],
    acr: source.fromIdToken && typeof claims.acr === 'string' ? text(claims.acr, 255) : null,
  };
}

/** GETs a user document with the access token (RFC 6750 2.1); `list`: the answer may be a JSON array. */
export async function readUserinfo(
  ctx: ProviderContext,
  _connection: Connection,
  endpoint: string,
  accessToken: string,
  list = false,
): Promise<Record<string, unknown>> {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new UpstreamRefusal('bad-response', 'the userinfo endpoint is not an absolute URL');
  }
  let response;
  try {
    response = await guardedFetch(
      {
        url,
        method: 'GET',
        // GitHub's REST API asks for its media type and a User-Agent; other services ignore both.
        headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json', 'user-agent': 'sso-provider' },
        timeoutMs: USERINFO_TIMEOUT_MS,
        maxResponseBytes: USERINFO_MAX_BYTES,
      },
      upstreamPolicy(ctx.config, url),
      ctx.outbound,
    );
  } catch (err) {
    if (err instanceof OutboundError) throw new UpstreamRefusal('upstream-down', `userinfo of host ${url.hostname}: ${err.message}`);
    throw err;
  }
  if (response.status >= 500) throw new UpstreamRefusal('upstream-down', `userinfo of host ${url.hostname} answered ${response.status}`);
  if (response.status !== 200) throw new UpstreamRefusal('bad-response', `userinfo of host ${url.hostname} answered ${response.status}`);
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new UpstreamRefusal('bad-response', `userinfo of host ${url.hostname} did not answer with JSON`);
  }
  if (typeof body !== 'object' || body === null || (Array.isArray(body) && !list))
    throw new UpstreamRefusal('bad-response', 'the userinfo response is not an object');
  return body as Record<string, unknown>;
}
