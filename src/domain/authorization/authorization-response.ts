// The authorization response as a value: where it goes, what it says, and how it is delivered
// (RFC 6749 4.1.2 and 4.1.2.1, RFC 9207's iss, OAuth 2.0 Form Post Response Mode). The HTTP layer renders it.
import type { OAuthError } from '../../errors/oauth-error.js';
import type { ProviderContext } from '../context.js';

/**
 * OAuth 2.0 Multiple Response Type Encoding Practices 2.1: query is the default for response_type=code;
 * OAuth 2.0 Form Post Response Mode 2: form_post sends the parameters as an auto-submitted HTML form.
 */
export const RESPONSE_MODES = ['query', 'form_post'] as const;
export type ResponseMode = (typeof RESPONSE_MODES)[number];

export function isResponseMode(value: string | undefined): value is ResponseMode {
  return (RESPONSE_MODES as readonly (string | undefined)[]).includes(value);
}

export interface AuthorizationResponse {
  /** The verified redirect URI, with any query of its own. */
  redirectUri: string;
  /** In the order they are sent; never empty strings. */
  params: Record<string, string>;
  mode: ResponseMode;
  /**
   * Set, to the client's name, on an error response that is not to be sent by itself (see errorResponse): it is
   * shown on a page that names the destination host, and the person chooses whether to follow it.
   */
  withheldFor?: string | undefined;
}

/** Where errors and results go once the client and redirect URI are verified. */
export interface ResponseTarget {
  redirectUri: string;
  state: string | null | undefined;
  /** Absent in interactions stored before response modes existed: query. */
  responseMode?: ResponseMode | undefined;
  /**
   * The client's name as shown, when the client registered itself (RFC 7591): its redirect URI is the registrant's
   * word. Absent for an operator's client, and in interactions stored before it existed.
   */
  unverifiedClient?: string | undefined;
}

function respond(target: ResponseTarget, params: Record<string, string | undefined>): AuthorizationResponse {
  const defined: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) if (value !== undefined) defined[name] = value;
  return { redirectUri: target.redirectUri, params: defined, mode: target.responseMode === 'form_post' ? 'form_post' : 'query' };
}

/** RFC 6749 4.1.2 with RFC 9207's iss. */
export function successResponse(ctx: ProviderContext, target: ResponseTarget, code: string): AuthorizationResponse {
  return respond(target, { code, state: target.state ?? undefined, iss: ctx.config.issuer });
}

/**
 * RFC 6749 4.1.2.1 with RFC 9207's iss.
 *
 * RFC 9700 4.11.2 (Authorization Server as Open Redirector): an attacker could "utilize a user's trust in an
 * authorization server to launch a phishing attack", so the AS redirects an error only when it trusts the redirect
 * URI. An operator's client is trusted. A self-registered client's redirect URI is whatever its registrant chose,
 * so an error found before the person acted (a bad request, and prompt=none's login_required or consent_required,
 * which anyone can provoke with a fixed link) is withheld: shown with the host it would go to. Once the person has
 * acted on a page that named that host (access_denied from the consent page), `personActed` lets it go.
 */
export function errorResponse(
  ctx: ProviderContext,
  target: ResponseTarget,
  err: OAuthError,
  { personActed = false }: { personActed?: boolean } = {},
): AuthorizationResponse {
  const response = respond(target, {
    error: err.error,
    error_description: err.description,
    state: target.state ?? undefined,
    iss: ctx.config.issuer,
  });
  return target.unverifiedClient !== undefined && !personActed ? { ...response, withheldFor: target.unverifiedClient } : response;
}
