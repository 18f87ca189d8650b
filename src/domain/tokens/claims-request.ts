// The claims request parameter (OIDC Core 5.5): individual claims asked for the ID token and for userinfo.
import { InvalidRequest } from '../../errors/oauth-error.js';
import { optional, readVersioned, record, type Shape, type Versioned, type VersionedShapes } from '../../storage/json-shape.js';
import { isUserClaim } from '../claims.js';
import { claimNamesFor } from '../scope.js';

/** OIDC Core 5.5.1: how one claim is asked for; null (the JSON null) asks for it in the default manner. */
export interface ClaimRequest {
  essential?: boolean;
  value?: unknown;
  values?: unknown[];
}

/** The two members this provider acts on; any other member is ignored (5.5: "other members MAY be ignored"). */
export interface ClaimsRequest {
  id_token?: Record<string, ClaimRequest | null>;
  userinfo?: Record<string, ClaimRequest | null>;
}

export type ClaimsTarget = 'id_token' | 'userinfo';

/** Longer than any honest request for the claims this provider knows; a longer one is refused, not parsed. */
export const MAX_CLAIMS_PARAMETER_LENGTH = 4096;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * OIDC Core 5.5: "The claims Authorization Request parameter ... is represented as a JSON object". Anything else is
 * invalid_request. Returns the request reduced to the claims this provider knows, as JSON text (what the code and
 * the tokens carry), or null when there is no parameter or it asks for none of them.
 */
export function parseClaimsParameter(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  if (raw.length > MAX_CLAIMS_PARAMETER_LENGTH) throw new InvalidRequest(`claims is longer than ${MAX_CLAIMS_PARAMETER_LENGTH} characters`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new InvalidRequest('claims is not valid JSON');
  }
  if (!isObject(parsed)) throw new InvalidRequest('claims must be a JSON object');
  const kept: ClaimsRequest = {};
  for (const target of ['id_token', 'userinfo'] as const) {
    const member = parsed[target];
    if (member === undefined) continue;
    if (!isObject(member)) throw new InvalidRequest(`claims.${target} must be a JSON object`);
    const claims: Record<string, ClaimRequest | null> = {};
    for (const [name, request] of Object.entries(member)) {
      const checked = claimRequest(target, name, request);
      // 5.5: "Claims that are not understood by the OpenID Provider ... SHOULD be ignored" (acr among them: no acr here).
      if (isUserClaim(name)) claims[name] = checked;
    }
    if (Object.keys(claims).length > 0) kept[target] = claims;
  }
  return Object.keys(kept).length === 0 ? null : JSON.stringify(kept);
}

/** 5.5.1: null, or an object whose essential is a boolean and whose values is an array. */
function claimRequest(target: ClaimsTarget, name: string, request: unknown): ClaimRequest | null {
  if (request === null) return null;
  // RFC 6749 5.2 keeps '"' and '\\' out of error_description: the claim is named only when it is a plain word.
  const where = /^[a-z_]{1,40}$/.test(name) ? `claims.${target}.${name}` : `a claim of claims.${target}`;
  if (!isObject(request)) throw new InvalidRequest(`${where} must be null or a JSON object`);
  const out: ClaimRequest = {};
  if (request.essential !== undefined) {
    if (typeof request.essential !== 'boolean') throw new InvalidRequest(`${where}: essential must be true or false`);
    out.essential = request.essential;
  }
  if (request.value !== undefined) out.value = request.value;
  if (request.values !== undefined) {
    if (!Array.isArray(request.values)) throw new InvalidRequest(`${where}: values must be an array`);
    out.values = request.values;
  }
  if (out.value !== undefined && out.values !== undefined) throw new InvalidRequest(`${where}: value and values exclude each other`);
  return out;
}

/** One claim's request as stored: checked where it is used (`matches` reads only `value` and `values`). */
const storedClaimRequest: Shape<ClaimRequest | null> = (value) => value as ClaimRequest | null;

const CLAIMS_REQUEST_V1: Shape<ClaimsRequest> = (value, path) => {
  const member = optional(record(storedClaimRequest));
  const request = value as Record<string, unknown>;
  const out: ClaimsRequest = {};
  const idToken = member(request.id_token, `${path}.id_token`);
  const userinfo = member(request.userinfo, `${path}.userinfo`);
  if (idToken !== undefined) out.id_token = idToken;
  if (userinfo !== undefined) out.userinfo = userinfo;
  return out;
};

/**
 * The shapes of the `claims` text column of authorization_codes, access_tokens and refresh_tokens (what
 * parseClaimsParameter wrote). Version 1 is stored without `v`, as before versions were kept, so the release before
 * this one reads what this one writes. Read on the token and userinfo paths: the check is the version and the two
 * members being objects, no more than the parse that happens anyway.
 */
export const STORED_CLAIMS_REQUEST: VersionedShapes<ClaimsRequest> = { 1: CLAIMS_REQUEST_V1 };

/** A stored claims request; null (none asked for) reads as an empty request. */
export function readClaimsRequest(stored: string | null): Versioned<ClaimsRequest> {
  return stored === null ? { ok: true, value: {} } : readVersioned(stored, STORED_CLAIMS_REQUEST);
}

/** Told why a stored claims request was not read (a path or version, never a value). */
export type UnreadableClaimsRequest = (reason: string) => void;

/** A claims request this version does not read asks for nothing (as if no claims parameter was given). */
function read(stored: string | null, unreadable?: UnreadableClaimsRequest): ClaimsRequest {
  const request = readClaimsRequest(stored);
  if (request.ok) return request.value;
  unreadable?.(request.reason);
  return {};
}

/**
 * 5.5.1 sub: "If the sub (subject) Claim is requested with a specific value for the ID Token, the Authorization Server
 * MUST only send a positive response if the End-User identified by that sub value has an active session". The value
 * asked for (in either member), or undefined.
 */
export function requestedSubject(stored: string | null): string | undefined {
  const request = read(stored);
  for (const member of [request.id_token, request.userinfo]) {
    const value = member?.sub?.value;
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/**
 * The user claims `target` releases: `base` (what the scopes release there), plus each claim the request names that
 * a granted scope covers and the user has (the user consented by scope: 5.5.1 lets a claim not be returned, essential
 * or not, "if the End-User did not authorize their release"), less any whose value is not the `value` or one of the
 * `values` asked for. `claims` holds the user's claims that the granted scopes release (users.ts scopeClaims). A
 * stored request this version does not read releases `base` only, and `unreadable` is told why.
 */
export function applyClaimsRequest(
  stored: string | null,
  target: ClaimsTarget,
  base: Record<string, unknown>,
  claims: () => Record<string, unknown>,
  scopes: readonly string[],
  unreadable?: UnreadableClaimsRequest,
): Record<string, unknown> {
  const requested = read(stored, unreadable)[target];
  if (requested === undefined) return base;
  const consented: ReadonlySet<string> = claimNamesFor(scopes);
  const available = claims();
  const out = { ...base };
  for (const [name, request] of Object.entries(requested)) {
    if (name === 'sub' || !consented.has(name)) continue;
    const value = available[name];
    if (value === undefined || !matches(value, request)) {
      delete out[name];
      continue;
    }
    out[name] = value;
  }
  return out;
}

function matches(value: unknown, request: ClaimRequest | null): boolean {
  if (request?.value !== undefined) return JSON.stringify(request.value) === JSON.stringify(value);
  if (request?.values !== undefined) return request.values.some((v) => JSON.stringify(v) === JSON.stringify(value));
  return true;
}
