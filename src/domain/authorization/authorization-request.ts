// Validates an authorization request (RFC 6749 4.1.1, OIDC Core 3.1.2.1, RFC 7636 4.3) in two phases:
// first who is asking and where the answer goes (errors shown to the user, never redirected),
// then everything else (errors redirected back to the verified redirect URI).
import type { Locale } from '../../i18n/catalog.js';
import { fromUiLocales } from '../../i18n/negotiate.js';
import { text, translate, type Text } from '../../i18n/translate.js';
import { InvalidRequest, InvalidScope, OAuthError, UnauthorizedClient, UnsupportedResponseType } from '../../errors/oauth-error.js';
import { isResponseMode, type ResponseMode } from './authorization-response.js';
import type { Client } from '../clients/clients.js';
import { single, type RawParams } from '../params.js';
import { isValidS256Challenge } from './pkce.js';
import { parseScope, type Scope } from '../scope.js';
import { parseClaimsParameter } from '../tokens/claims-request.js';

/** Phase-one failure: shown on our own error page; the redirect URI is not trusted. */
export class UntrustedRedirectError extends Error {
  constructor(
    /** What the page says, in the reader's language. */
    readonly text: Text,
    readonly status = 400,
  ) {
    super(translate('en', text.key, text.params));
    this.name = 'UntrustedRedirectError';
  }
}

export interface VerifiedTarget {
  client: Client;
  redirectUri: string;
  redirectUriInRequest: boolean;
  /** The state to echo on error redirects, if it was readable. */
  state: string | undefined;
  /** How errors are delivered: form_post when it was asked for, else query (an invalid value is reported in phase two). */
  responseMode: ResponseMode;
  /** The client's name when it registered itself: its errors are withheld until the person acts (authorization-response.ts). */
  unverifiedClient: string | undefined;
}

/** OIDC Core 3.1.2.1 prompt: the values this provider understands. */
export const PROMPT_VALUES = ['none', 'login', 'consent', 'select_account'] as const;
export type Prompt = (typeof PROMPT_VALUES)[number];

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  redirectUriInRequest: boolean;
  scopes: Scope[];
  state: string | null;
  nonce: string | null;
  codeChallenge: string | null;
  prompts: Prompt[];
  /** OIDC Core 3.1.2.1 max_age: the longest time since the user last signed in, in seconds. */
  maxAge: number | null;
  /** OIDC Core 3.1.2.1 login_hint: prefills the sign-in form. */
  loginHint: string | null;
  /** OAuth 2.0 Form Post Response Mode: how the response is delivered. */
  responseMode: ResponseMode;
  /** OIDC Core 3.1.2.1 id_token_hint, unverified (authorize() verifies it); never stored. */
  idTokenHint: string | null;
  /** As in VerifiedTarget; absent in interactions stored before it existed. */
  unverifiedClient?: string | undefined;
  /**
   * OIDC Core 3.1.2.1 ui_locales: the first of its languages that the pages speak, remembered for the whole
   * interaction (sign-in, second factor, consent, sign-up); absent when it named none (or predates it).
   */
  uiLocale?: Locale | undefined;
  /** OIDC Core 5.5 claims, reduced to JSON text (src/domain/tokens/claims-request.ts); absent or null: none. */
  claims?: string | null | undefined;
  /** The client is held to FAPI 2.0: its code lives FAPI2_MAX_CODE_TTL_SECONDS at most. */
  fapi2?: boolean | undefined;
  /** RFC 8707 2.1: the resources the request named (absent: none; the client's default resource may still apply). */
  resources?: string[] | undefined;
  /** Scopes of the target resource servers that the request asked for, with what the consent page says of each. */
  apiScopes?: ApiScope[] | undefined;
  /** idp_hint (issue 19, as Keycloak names it): the upstream connection to send the person to; absent: none. */
  idpHint?: string | undefined;
  /** RFC 9449 10 dpop_jkt: the thumbprint of the DPoP key the code is bound to; absent: none. */
  dpopJkt?: string | undefined;
  /** Issue 40: the organization the sign-in is for (its id; organization-request.ts); absent: none named. */
  organizationId?: string | undefined;
}

/** A scope a resource server defines (src/domain/resources/resource-servers.ts). */
export interface ApiScope {
  name: string;
  description: string;
}

/** Every scope the request asks for: this provider's own, then those of resource servers. */
export function requestedScopes(request: AuthorizationRequest): string[] {
  return [...request.scopes, ...(request.apiScopes ?? []).map((s) => s.name)];
}

function phaseOneParam(params: RawParams, name: string): string | undefined {
  try {
    return single(params, name);
  } catch (err) {
    if (err instanceof OAuthError) throw new UntrustedRedirectError(text('authorize.invalid', { detail: err.message }));
    throw err;
  }
}

/** Phase one: the client exists and the redirect URI is registered for it, to the character. */
export async function verifyTarget(load: (clientId: string) => Promise<Client | undefined>, params: RawParams): Promise<VerifiedTarget> {
  const clientId = phaseOneParam(params, 'client_id');
  if (clientId === undefined) throw new UntrustedRedirectError(text('authorize.noClientId'));
  const client = await load(clientId);
  if (!client) throw new UntrustedRedirectError(text('authorize.unknownClient'));

  const requested = phaseOneParam(params, 'redirect_uri');
  let redirectUri: string;
  if (requested !== undefined) {
    // RFC 9700 2.1 and 4.1.3: redirect URIs are compared by exact string matching.
    if (!client.redirectUris.includes(requested)) {
      throw new UntrustedRedirectError(text('authorize.unknownRedirectUri'));
    }
    redirectUri = requested;
  } else {
    // OIDC Core 3.1.2.1 makes redirect_uri REQUIRED; RFC 6749 3.1.2.3 lets it be omitted when exactly one is registered.
    const [only, ...others] = client.redirectUris;
    if (only === undefined || others.length > 0) {
      throw new UntrustedRedirectError(text('authorize.noRedirectUri'));
    }
    redirectUri = only;
  }
  let state: string | undefined;
  try {
    state = single(params, 'state');
  } catch {
    state = undefined; // a repeated or oversized state is reported in phase two, without echoing it
  }
  let responseMode: ResponseMode;
  try {
    responseMode = single(params, 'response_mode') === 'form_post' ? 'form_post' : 'query';
  } catch {
    responseMode = 'query';
  }
  const unverifiedClient = client.selfRegistered ? (client.clientName ?? client.clientId) : undefined;
  return { client, redirectUri, redirectUriInRequest: requested !== undefined, state, responseMode, unverifiedClient };
}

const PROMPTS = new Set<Prompt>(PROMPT_VALUES);

/** Phase two: every other rule. Throws OAuthErrors that are redirected to the verified target. */
export function validateRequest(target: VerifiedTarget, params: RawParams): AuthorizationRequest {
  const { client } = target;
  // `request` and `request_uri` were resolved into `params` before (request-parameters.ts, RFC 9101 6.3).

  const responseType = single(params, 'response_type');
  if (responseType === undefined) throw new InvalidRequest('parameter response_type is required');
  if (responseType !== 'code') throw new UnsupportedResponseType('only response_type=code is supported');
  if (!client.responseTypes.includes('code') || !client.grantTypes.includes('authorization_code')) {
    throw new UnauthorizedClient('this client may not use the authorization code flow');
  }
  // OAuth 2.0 Multiple Response Type Encoding Practices 2.1: response_mode "Informs the Authorization Server of
  // the mechanism to be used for returning Authorization Response parameters"; of those, query (the default for
  // code) and form_post (OAuth 2.0 Form Post Response Mode 2) are supported, and any other is refused.
  const responseMode = single(params, 'response_mode') ?? 'query';
  if (!isResponseMode(responseMode)) throw new InvalidRequest('response_mode must be query or form_post');

  const state = single(params, 'state') ?? null;
  const nonce = single(params, 'nonce') ?? null;
  // OIDC Core 11: offline_access asks for a refresh token; for a client that may not use the refresh_token grant it
  // is ignored (as node-oidc-provider does), so the consent page never offers what will not be issued.
  const scopes = parseScope(single(params, 'scope')).filter((s) => s !== 'offline_access' || client.grantTypes.includes('refresh_token'));
  // A request for a resource server may ask for its scopes alone: those are checked once its resources are known.
  const mayTargetResource = params.resource !== undefined || client.defaultResource !== null;
  if (scopes.length === 0 && !mayTargetResource) throw new InvalidScope('the scope parameter names no supported scope');

  const codeChallenge = single(params, 'code_challenge') ?? null;
  const method = single(params, 'code_challenge_method');
  if (codeChallenge !== null) {
    // RFC 7636 4.3: the method defaults to "plain", which this server does not support.
    if (method !== 'S256') throw new InvalidRequest('code_challenge_method must be S256');
    if (!isValidS256Challenge(codeChallenge)) throw new InvalidRequest('code_challenge is not a valid S256 challenge');
  } else if (method !== undefined) {
    throw new InvalidRequest('code_challenge_method was sent without code_challenge');
  } else if (client.fapi2) {
    // FAPI 2.0 5.3.2.2 (4): "shall require PKCE [RFC7636] with S256 as the code challenge method".
    throw new InvalidRequest('PKCE with code_challenge_method=S256 is required for this client (FAPI 2.0)');
  } else if (client.isPublic) {
    // RFC 9700 2.1.1: public clients MUST use PKCE.
    throw new InvalidRequest('PKCE with code_challenge_method=S256 is required for this client');
  }

  const prompts = (single(params, 'prompt') ?? '').split(' ').filter(Boolean) as Prompt[];
  if (prompts.some((p) => !PROMPTS.has(p))) throw new InvalidRequest('unsupported prompt value');
  // OIDC Core 3.1.2.1: "If this parameter contains none with any other value, an error is returned."
  if (prompts.includes('none') && prompts.length > 1) throw new InvalidRequest('prompt=none cannot be combined');

  const rawMaxAge = single(params, 'max_age');
  if (rawMaxAge !== undefined && !/^\d{1,9}$/.test(rawMaxAge)) throw new InvalidRequest('max_age must be a non-negative number of seconds');

  // OIDC Core 3.1.2.1 display, claims_locales and acr_values are OPTIONAL requests, not demands: they are accepted
  // and not acted upon (one page layout, no authentication levels). ui_locales is acted upon: the pages of the
  // interaction speak its first language we have (src/i18n/negotiate.ts); "An error SHOULD NOT result if some or
  // all of the requested locales are not supported by the OpenID Provider", so an unknown one falls through.
  return {
    clientId: client.clientId,
    redirectUri: target.redirectUri,
    redirectUriInRequest: target.redirectUriInRequest,
    scopes,
    state,
    nonce,
    codeChallenge,
    prompts,
    maxAge: rawMaxAge === undefined ? null : Number(rawMaxAge),
    loginHint: single(params, 'login_hint') ?? null,
    responseMode,
    idTokenHint: single(params, 'id_token_hint') ?? null,
    unverifiedClient: target.unverifiedClient,
    uiLocale: fromUiLocales(single(params, 'ui_locales')),
    ...(client.fapi2 ? { fapi2: true } : {}),
    claims: parseClaimsParameter(single(params, 'claims')),
    ...idpHintOf(single(params, 'idp_hint')),
    ...dpopJktOf(single(params, 'dpop_jkt')),
  };
}

/**
 * RFC 9449 10: "The value of the dpop_jkt authorization request parameter is the JWK Thumbprint [RFC7638] of the
 * proof-of-possession public key using the SHA-256 hash function": 32 octets, base64url without padding.
 */
function dpopJktOf(value: string | undefined): { dpopJkt?: string } {
  if (value === undefined) return {};
  if (!isJwkThumbprint(value)) throw new InvalidRequest('dpop_jkt must be a JWK SHA-256 thumbprint (RFC 9449 10)');
  return { dpopJkt: value };
}

/** A base64url SHA-256 digest: 43 characters, as an S256 code_challenge is. */
export function isJwkThumbprint(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}

/** idp_hint names a connection by its id (src/domain/connections/); anything else is ignored, as an unknown hint is. */
function idpHintOf(value: string | undefined): { idpHint?: string } {
  return value !== undefined && /^[a-z0-9][a-z0-9_-]{0,62}$/.test(value) ? { idpHint: value } : {};
}
