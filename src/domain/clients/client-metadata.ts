// Client metadata rules (RFC 7591 2, OIDC Registration 2, RP-Initiated and Back-Channel Logout 1.0), shared by the
// seed file and dynamic registration. Registration applies a stricter profile: a client that registers itself
// gets https (or loopback http) URIs only, the scopes this provider knows, and consistent grant and response types.
import { isLoopbackUrl } from '../../net/loopback.js';
import { AllowedNetworks } from '../../outbound/address-ranges.js';
import type { OutboundPolicy } from '../../outbound/guarded-fetch.js';
import { storedUrlProblem } from '../../outbound/stored-url.js';
import { DEVICE_CODE_GRANT } from '../device-flow/device-authorization.js';
import { splitScope, SUPPORTED_SCOPES } from '../scope.js';
import { REQUEST_OBJECT_ALGS } from '../authorization/request-object.js';
import { SIGNING_ALGS, isSigningAlg } from '../keys/signing-algs.js';
import { ASSERTION_ALGS, AUTH_METHODS, isAssertionMethod } from './auth-methods.js';
import { jwksProblem } from './client-jwks.js';
import { fapi2Problems } from './fapi2.js';
import { resourceIdentifierProblem } from '../resources/resource-servers.js';
import { ID_TOKEN_CLAIMS_MODES, isIdTokenClaimsMode } from '../tokens/id-token-claims.js';
import { SUBJECT_TYPES } from './pairwise.js';

export { AUTH_METHODS } from './auth-methods.js';
export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials', DEVICE_CODE_GRANT] as const;
export const CLIENT_URL_FIELDS = ['logo_uri', 'client_uri', 'policy_uri', 'tos_uri'] as const;

/** The metadata fields understood here (client_id and client_secret are credentials, not metadata). */
export const METADATA_FIELDS = [
  'client_name',
  'redirect_uris',
  'post_logout_redirect_uris',
  'grant_types',
  'response_types',
  'token_endpoint_auth_method',
  'token_endpoint_auth_signing_alg',
  'jwks',
  'jwks_uri',
  'contacts',
  'scope',
  ...CLIENT_URL_FIELDS,
  'id_token_signed_response_alg',
  'backchannel_logout_uri',
  'backchannel_logout_session_required',
  'allowed_resources',
  'default_resource',
  // RFC 9449 5.2.
  'dpop_bound_access_tokens',
  // FAPI 2.0 (src/domain/clients/fapi2.ts).
  'profile',
  'request_object_signing_alg',
  'require_pushed_authorization_requests',
  // Not a registered metadata name: this provider's choice of ID token claims (src/domain/tokens/id-token-claims.ts).
  'id_token_claims',
  // OIDC Registration 2, OIDC Core 8.1 (src/domain/clients/pairwise.ts).
  'subject_type',
  'sector_identifier_uri',
  // Not a registered metadata name: its users sign in with a second factor (src/domain/accounts/second-factor-policy.ts).
  'require_mfa',
] as const;

/** `seed`: an operator's file, trusted further (private-use URI schemes, any scope). `registration`: RFC 7591. */
export type MetadataProfile = 'seed' | 'registration';

export interface MetadataProblem {
  /** The metadata field at fault: `redirect_uris` problems are answered with invalid_redirect_uri (RFC 7591 3.2.2). */
  field: string;
  /** Says what is wrong, starting with the field's name; safe to show (never echoes a value). */
  message: string;
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);

/**
 * RFC 6749 3.1.2: absolute, no fragment. RFC 9700 2.1 / RFC 8252 7.3: plain http only on loopback.
 * Private-use schemes of native apps (com.example.app:/cb) are allowed; script-bearing schemes are not.
 */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (uri.includes('#')) return 'must not contain a fragment';
  if (['javascript:', 'data:', 'file:', 'vbscript:'].includes(url.protocol)) return `must not use the ${url.protocol} scheme`;
  if (url.protocol === 'http:' && !isLoopbackUrl(url)) return 'must use https (http is allowed only on localhost, 127.0.0.1 and [::1])';
  return undefined;
}

/** The registration profile: on top of the rules above, https or loopback http only, and no credentials in the URI. */
export function strictRedirectUriProblem(uri: string): string | undefined {
  const problem = redirectUriProblem(uri);
  if (problem) return problem;
  const url = new URL(uri);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return 'must use https (http is allowed only on localhost, 127.0.0.1 and [::1])';
  if (url.username || url.password) return 'must not contain user credentials';
  return undefined;
}

/** policyFor(config, 'self-registered') with no network allowed: for a check without the configuration. */
const SELF_REGISTERED_WITHOUT_NETWORKS: OutboundPolicy = Object.freeze({
  httpsOnly: true,
  publicAddressesOnly: true,
  allowed: new AllowedNetworks([]),
  ownHost: '',
});

/**
 * Every problem of a client entry's metadata fields, in a stable order; fields it does not know are left alone.
 * `selfRegistered`: the policy (policyFor(config, 'self-registered')) that the URLs a self-registered client gives
 * for the provider to request (jwks_uri, backchannel_logout_uri, sector_identifier_uri) are held to.
 */
export function clientMetadataProblems(
  c: Record<string, unknown>,
  profile: MetadataProfile,
  selfRegistered: OutboundPolicy = SELF_REGISTERED_WITHOUT_NETWORKS,
): MetadataProblem[] {
  const problems: MetadataProblem[] = [];
  const bad = (field: string, message: string) => problems.push({ field, message });
  const uriProblem = profile === 'registration' ? strictRedirectUriProblem : redirectUriProblem;

  const method = c.token_endpoint_auth_method ?? 'client_secret_basic';
  if (!(AUTH_METHODS as readonly unknown[]).includes(method))
    bad('token_endpoint_auth_method', `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`);
  // RFC 7591 2: redirect_uris is "REQUIRED for redirect-based flows"; a client without the code flow (device or
  // client_credentials only) may register none.
  const redirectBased = !Array.isArray(c.grant_types) || c.grant_types.includes('authorization_code');
  if (redirectBased || c.redirect_uris !== undefined) {
    if (!isStringArray(c.redirect_uris) || (redirectBased && c.redirect_uris.length === 0))
      bad('redirect_uris', 'redirect_uris must be a non-empty array of URIs');
    else
      c.redirect_uris.forEach((u, i) => {
        const p = uriProblem(u);
        if (p) bad('redirect_uris', `redirect_uris[${i}] ${p}`);
      });
  }
  if (c.post_logout_redirect_uris !== undefined) {
    if (!isStringArray(c.post_logout_redirect_uris)) bad('post_logout_redirect_uris', 'post_logout_redirect_uris must be an array of URIs');
    else
      c.post_logout_redirect_uris.forEach((u, i) => {
        const p = uriProblem(u);
        if (p) bad('post_logout_redirect_uris', `post_logout_redirect_uris[${i}] ${p}`);
      });
  }
  const grantsKnown =
    c.grant_types === undefined ||
    (isStringArray(c.grant_types) && c.grant_types.every((g) => (GRANT_TYPES as readonly string[]).includes(g)));
  if (!grantsKnown) bad('grant_types', `grant_types must be an array of ${GRANT_TYPES.join(', ')}`);
  const responsesKnown = c.response_types === undefined || (isStringArray(c.response_types) && c.response_types.every((r) => r === 'code'));
  if (!responsesKnown) bad('response_types', 'response_types may only contain "code"');
  if (profile === 'registration' && grantsKnown && responsesKnown) grantConsistencyProblems(c, method, bad);
  if (c.client_name !== undefined && !isString(c.client_name)) bad('client_name', 'client_name must be a non-empty string');
  for (const field of CLIENT_URL_FIELDS) {
    if (c[field] !== undefined && (!isString(c[field]) || uriProblem(c[field] as string))) bad(field, `${field} must be an https URL`);
  }
  if (c.contacts !== undefined && !isStringArray(c.contacts)) bad('contacts', 'contacts must be an array of strings');
  if (c.scope !== undefined && !isString(c.scope)) bad('scope', 'scope must be a string');
  else if (profile === 'registration' && isString(c.scope)) {
    // RFC 7591 2: "If omitted, an authorization server MAY register a client with a default set of scopes." A
    // client that registers itself may only name the scopes this provider defines; an operator may name API scopes.
    const unknown = splitScope(c.scope).filter((s) => !(SUPPORTED_SCOPES as string[]).includes(s));
    if (unknown.length > 0 || c.scope.trim() === '') bad('scope', `scope may only contain ${SUPPORTED_SCOPES.join(', ')}, space-separated`);
  }
  if (c.backchannel_logout_uri !== undefined) {
    // Back-Channel Logout 1.0 2.2: absolute, no fragment; https unless loopback, like a redirect URI.
    const p = isString(c.backchannel_logout_uri) ? uriProblem(c.backchannel_logout_uri) : 'is not an absolute URI';
    if (p || !/^https?:/.test(c.backchannel_logout_uri as string))
      bad('backchannel_logout_uri', `backchannel_logout_uri ${p ?? 'must be an http(s) URL'}`);
    else if (profile === 'registration') {
      // The provider POSTs there itself: a self-registered RP gets https only, and no address of this machine or a
      // private network (src/outbound/stored-url.ts; the delivery checks the resolved addresses again).
      const q = storedUrlProblem(c.backchannel_logout_uri, selfRegistered);
      if (q) bad('backchannel_logout_uri', `backchannel_logout_uri ${q}`);
    }
  }
  for (const problem of fapi2Problems(c)) bad(problem.field, problem.message);
  if (c.dpop_bound_access_tokens !== undefined && typeof c.dpop_bound_access_tokens !== 'boolean')
    bad('dpop_bound_access_tokens', 'dpop_bound_access_tokens must be true or false');
  if (c.require_mfa !== undefined && typeof c.require_mfa !== 'boolean') bad('require_mfa', 'require_mfa must be true or false');
  if (c.backchannel_logout_session_required !== undefined && typeof c.backchannel_logout_session_required !== 'boolean') {
    bad('backchannel_logout_session_required', 'backchannel_logout_session_required must be true or false');
  }
  clientKeyProblems(c, method, profile, selfRegistered, bad);
  if (profile === 'seed') resourceProblems(c, bad);
  authorizationRequestProblems(c, bad);
  if (c.id_token_signed_response_alg !== undefined && !isSigningAlg(c.id_token_signed_response_alg)) {
    bad('id_token_signed_response_alg', `id_token_signed_response_alg must be one of ${SIGNING_ALGS.join(', ')}`);
  }
  if (c.id_token_claims !== undefined && !isIdTokenClaimsMode(c.id_token_claims)) {
    bad('id_token_claims', `id_token_claims must be one of ${ID_TOKEN_CLAIMS_MODES.join(', ')}`);
  }
  subjectTypeProblems(c, profile, selfRegistered, bad);
  return problems;
}

/**
 * RFC 8707: the resource servers the client may ask tokens for, and the one its tokens are for when it names none.
 * An operator's fields only: a client registering itself (RFC 7591) gets none (they are not stored from registration).
 */
function resourceProblems(c: Record<string, unknown>, bad: (field: string, message: string) => void): void {
  if (c.allowed_resources !== undefined) {
    if (!isStringArray(c.allowed_resources)) bad('allowed_resources', 'allowed_resources must be an array of resource identifiers');
    else
      c.allowed_resources.forEach((r, i) => {
        const p = resourceIdentifierProblem(r);
        if (p) bad('allowed_resources', `allowed_resources[${i}] ${p}`);
      });
  }
  if (c.default_resource !== undefined) {
    const allowedList = isStringArray(c.allowed_resources) ? c.allowed_resources : [];
    if (!isString(c.default_resource) || !allowedList.includes(c.default_resource))
      bad('default_resource', 'default_resource must be one of allowed_resources');
  }
}

/**
 * RFC 7591 2 jwks and jwks_uri ("MUST NOT both be present"), which a private_key_jwt client needs one of (OIDC Core
 * 9), and OIDC Registration 2 token_endpoint_auth_signing_alg, which must fit the method. The provider fetches a
 * jwks_uri itself: a self-registered client's is held to the stricter rule of a back-channel logout URI.
 */
function clientKeyProblems(
  c: Record<string, unknown>,
  method: unknown,
  profile: MetadataProfile,
  selfRegistered: OutboundPolicy,
  bad: (field: string, message: string) => void,
): void {
  if (c.jwks !== undefined && c.jwks_uri !== undefined) bad('jwks', 'jwks and jwks_uri must not both be present (RFC 7591 2)');
  if (c.jwks !== undefined) {
    const problem = jwksProblem(c.jwks);
    if (problem) bad('jwks', `jwks ${problem}`);
  }
  if (c.jwks_uri !== undefined) {
    const url = isString(c.jwks_uri) && URL.canParse(c.jwks_uri) ? new URL(c.jwks_uri) : undefined;
    if (!url || !/^https?:$/.test(url.protocol) || url.hash !== '' || (url.protocol === 'http:' && !isLoopbackUrl(url)))
      bad('jwks_uri', 'jwks_uri must be an https URL (http only on localhost, 127.0.0.1 and [::1])');
    else if (profile === 'registration') {
      const q = storedUrlProblem(c.jwks_uri, selfRegistered);
      if (q) bad('jwks_uri', `jwks_uri ${q}`);
    }
  }
  if (method === 'private_key_jwt' && c.jwks === undefined && c.jwks_uri === undefined)
    bad('jwks', 'a private_key_jwt client needs its public keys: jwks or jwks_uri');
  if (c.token_endpoint_auth_signing_alg !== undefined) {
    const algs = typeof method === 'string' && isAssertionMethod(method) ? ASSERTION_ALGS[method] : [];
    if (algs.length === 0)
      bad('token_endpoint_auth_signing_alg', 'token_endpoint_auth_signing_alg is only for client_secret_jwt and private_key_jwt');
    else if (!algs.includes(c.token_endpoint_auth_signing_alg as string))
      bad('token_endpoint_auth_signing_alg', `token_endpoint_auth_signing_alg must be one of ${algs.join(', ')} for ${String(method)}`);
  }
}

/** RFC 9126 6 and OIDC Registration 2: how the client's authorization requests must come (PAR, signed objects). */
function authorizationRequestProblems(c: Record<string, unknown>, bad: (field: string, message: string) => void): void {
  if (c.require_pushed_authorization_requests !== undefined && typeof c.require_pushed_authorization_requests !== 'boolean')
    bad('require_pushed_authorization_requests', 'require_pushed_authorization_requests must be true or false');
  // OIDC Registration 2 request_object_signing_alg; "none" is never accepted here (src/domain/authorization/request-object.ts).
  if (c.request_object_signing_alg !== undefined && !REQUEST_OBJECT_ALGS.includes(c.request_object_signing_alg as string))
    bad('request_object_signing_alg', `request_object_signing_alg must be one of ${REQUEST_OBJECT_ALGS.join(', ')}`);
}

/**
 * OIDC Registration 2 subject_type and sector_identifier_uri. What the sector_identifier_uri holds is checked when a
 * client registers itself (sector-identifier.ts); here, what the metadata alone tells.
 */
function subjectTypeProblems(
  c: Record<string, unknown>,
  profile: MetadataProfile,
  selfRegistered: OutboundPolicy,
  bad: (field: string, message: string) => void,
): void {
  if (c.subject_type !== undefined && !(SUBJECT_TYPES as readonly unknown[]).includes(c.subject_type))
    bad('subject_type', `subject_type must be one of ${SUBJECT_TYPES.join(', ')}`);
  if (c.sector_identifier_uri !== undefined) {
    // OIDC Core 8.1: "The value of the sector_identifier_uri MUST be a URL using the https scheme".
    const url = isString(c.sector_identifier_uri) && URL.canParse(c.sector_identifier_uri) ? new URL(c.sector_identifier_uri) : undefined;
    if (!url || url.protocol !== 'https:' || url.hash !== '' || url.username || url.password)
      bad('sector_identifier_uri', 'sector_identifier_uri must be an https URL without fragment or credentials');
    else if (profile === 'registration') {
      const q = storedUrlProblem(c.sector_identifier_uri, selfRegistered);
      if (q) bad('sector_identifier_uri', `sector_identifier_uri ${q}`);
    }
  } else if (c.subject_type === 'pairwise' && isStringArray(c.redirect_uris)) {
    // OIDC Registration 2: "If there are multiple hostnames in the registered redirect_uris, the Client MUST register
    // a sector_identifier_uri." Without a redirect URI with a host there is no sector either.
    const hosts = new Set(c.redirect_uris.map((u) => (URL.canParse(u) ? new URL(u).host : '')));
    if (hosts.size !== 1 || hosts.has(''))
      bad('sector_identifier_uri', 'a pairwise client whose redirect_uris do not share one host must register a sector_identifier_uri');
  } else if (c.subject_type === 'pairwise') {
    bad('sector_identifier_uri', 'a pairwise client without redirect_uris must register a sector_identifier_uri');
  }
}

/** response_types as registration defaults them: ["code"] for a client of the code flow, else none (RFC 7591 2.1). */
export function defaultResponseTypes(grantTypes: readonly string[]): string[] {
  return grantTypes.includes('authorization_code') ? ['code'] : [];
}

/**
 * RFC 7591 2.1: "a server supporting these fields SHOULD take steps to ensure that a client cannot register itself
 * into an inconsistent state, for example, by returning an "invalid_client_metadata" error response".
 */
function grantConsistencyProblems(c: Record<string, unknown>, method: unknown, bad: (field: string, message: string) => void): void {
  const grants = (c.grant_types as string[] | undefined) ?? ['authorization_code'];
  const responses = (c.response_types as string[] | undefined) ?? defaultResponseTypes(grants);
  // RFC 7591 2.1: "a "grant_types" value that includes "authorization_code" implies a "response_types" value that
  // includes "code"", and code is the only response type here, which only the authorization code grant uses.
  if (grants.includes('authorization_code') !== responses.includes('code')) {
    bad('response_types', 'grant_types "authorization_code" and response_types "code" go together (RFC 7591 2.1)');
  }
  if (grants.length === 0) bad('grant_types', 'grant_types must not be empty');
  // RFC 6749 4.4: "The client credentials grant type MUST only be used by confidential clients."
  if (method === 'none' && grants.includes('client_credentials'))
    bad('grant_types', 'a public client (token_endpoint_auth_method "none") may not use client_credentials');
  // RFC 6749 1.5: refresh tokens are issued with the tokens of another grant; here, the code and device grants.
  if (grants.includes('refresh_token') && !grants.includes('authorization_code') && !grants.includes(DEVICE_CODE_GRANT)) {
    bad('grant_types', 'refresh_token needs authorization_code or the device code grant, which issue refresh tokens');
  }
}
