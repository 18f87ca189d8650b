// The one error type every layer throws: an OAuth 2.0 / OpenID Connect error code with its HTTP status.
// Subclasses fix the code and status (RFC 6749 4.1.2.1 and 5.2, RFC 6750 3.1, OIDC Core 3.1.2.6).

/**
 * What only the log may see: `detail`, why the request was refused when the description the client gets is kept
 * generic on purpose (client authentication, say); `cause`, the lower error that was caught (ES2022 Error cause).
 * The error handler logs both and sends neither. Neither may hold a secret.
 */
export interface OAuthErrorOptions {
  cause?: unknown;
  detail?: string;
}

export class OAuthError extends Error {
  /** The `error` value on the wire. */
  readonly error: string;
  /** HTTP status when the error is answered directly (not redirected). */
  readonly status: number;
  /** Extra response headers (WWW-Authenticate, Retry-After). */
  readonly headers: Readonly<Record<string, string>>;
  /** For the log only (see OAuthErrorOptions). */
  readonly detail: string | undefined;

  constructor(error: string, description: string, status = 400, headers: Record<string, string> = {}, options: OAuthErrorOptions = {}) {
    super(description, 'cause' in options ? { cause: options.cause } : undefined);
    this.name = 'OAuthError';
    this.error = error;
    this.status = status;
    this.headers = headers;
    this.detail = options.detail;
  }

  /** `error_description`: safe ASCII only, as RFC 6749 5.2 requires (%x20-21 / %x23-5B / %x5D-7E). */
  get description(): string {
    return this.message.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '?');
  }
}

export class InvalidRequest extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('invalid_request', description, 400, {}, options);
  }
}

/**
 * RFC 6749 5.2: 401 with a WWW-Authenticate header "matching the authentication scheme used by the client". Basic is
 * the only scheme this provider takes in the Authorization header, so the challenge always names Basic, also for a
 * client that authenticated in the body or tried another scheme.
 */
export class InvalidClient extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('invalid_client', description, 401, { 'www-authenticate': 'Basic realm="sso", charset="UTF-8"' }, options);
  }
}

export class InvalidGrant extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('invalid_grant', description, 400, {}, options);
  }
}

export class UnauthorizedClient extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('unauthorized_client', description, 400, {}, options);
  }
}

export class UnsupportedGrantType extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('unsupported_grant_type', description, 400, {}, options);
  }
}

export class UnsupportedResponseType extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('unsupported_response_type', description, 400, {}, options);
  }
}

export class InvalidScope extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('invalid_scope', description, 400, {}, options);
  }
}

/** RFC 8707 2: "The requested resource is invalid, missing, unknown, or malformed." */
export class InvalidTarget extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('invalid_target', description, 400, {}, options);
  }
}

export class AccessDenied extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('access_denied', description, 403, {}, options);
  }
}

export class RequestNotSupported extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('request_not_supported', description, 400, {}, options);
  }
}

export class RequestUriNotSupported extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('request_uri_not_supported', description, 400, {}, options);
  }
}

/** RFC 9101 7 / OIDC Core 3.1.2.6: "The request parameter contains an invalid Request Object." */
export class InvalidRequestObject extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('invalid_request_object', description, 400, {}, options);
  }
}

/** RFC 9101 7 / OIDC Core 3.1.2.6: "The request_uri in the authorization request returns an error or contains invalid data." */
export class InvalidRequestUri extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('invalid_request_uri', description, 400, {}, options);
  }
}

export class LoginRequired extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('login_required', description, 400, {}, options);
  }
}

export class ConsentRequired extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('consent_required', description, 400, {}, options);
  }
}

/** OIDC Core 3.1.2.6: prompt=none, but the request "cannot be completed without displaying a user interface". */
export class InteractionRequired extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('interaction_required', description, 400, {}, options);
  }
}

/** RFC 6750 3.1: the bearer token is missing, expired, revoked or malformed. */
export class InvalidToken extends OAuthError {
  constructor(description: string) {
    super('invalid_token', description, 401, {
      'www-authenticate': `Bearer realm="sso", error="invalid_token", error_description="${description.replace(/["\\]/g, '')}"`,
    });
  }
}

/**
 * RFC 9449 5 and 7.1: a DPoP proof that is missing, malformed or wrong (invalid_dpop_proof), or that lacks the nonce
 * the server asks for (use_dpop_nonce, with a fresh one in DPoP-Nonce, RFC 9449 8). At the token endpoint a 400; at a
 * resource (userinfo) a 401 with a DPoP challenge (RFC 9449 7.1).
 */
export class DpopError extends OAuthError {
  constructor(
    error: 'invalid_dpop_proof' | 'use_dpop_nonce' | 'invalid_token',
    description: string,
    at: { resource: boolean; nonce?: string | undefined; algs: readonly string[] },
  ) {
    const headers: Record<string, string> = at.nonce === undefined ? {} : { 'dpop-nonce': at.nonce };
    if (at.resource) {
      headers['www-authenticate'] =
        `DPoP algs="${at.algs.join(' ')}", error="${error}", error_description="${description.replace(/["\\]/g, '')}"`;
    }
    super(error, description, at.resource ? 401 : 400, headers);
  }
}

/** RFC 6750 3.1: the token is valid but was not granted the scope this resource needs. */
export class InsufficientScope extends OAuthError {
  constructor(description: string, scope: string) {
    super('insufficient_scope', description, 403, {
      'www-authenticate': `Bearer realm="sso", error="insufficient_scope", scope="${scope}"`,
    });
  }
}

/** The database is out of reach for a moment; the client may retry. */
export class TemporarilyUnavailable extends OAuthError {
  constructor(description = 'the service is temporarily unavailable, try again shortly') {
    super('temporarily_unavailable', description, 503, { 'retry-after': '1' });
  }
}

/** A counter of this client's address is locked (open registration): 429 with the seconds until it opens. */
export class TooManyRequests extends OAuthError {
  constructor(description: string, retryAfterSeconds: number) {
    super('temporarily_unavailable', description, 429, { 'retry-after': String(retryAfterSeconds) });
  }
}

export class ServerError extends OAuthError {
  constructor() {
    super('server_error', 'the server could not complete the request', 500);
  }
}

// RFC 8628 3.5: the token endpoint's answers to a device polling with its device_code, as RFC 6749 5.2 errors (400).

/** "The authorization request is still pending as the end user hasn't yet completed the user-interaction steps." */
export class AuthorizationPending extends OAuthError {
  constructor(description = 'the user has not yet approved or denied the request') {
    super('authorization_pending', description);
  }
}

/** "A variant of authorization_pending [...] but the interval MUST be increased by 5 seconds for this and all subsequent requests." */
export class SlowDown extends OAuthError {
  constructor(description = 'polling too fast: wait 5 seconds more between requests from now on') {
    super('slow_down', description);
  }
}

/** "The device_code has expired, and the device authorization session has concluded." */
export class ExpiredToken extends OAuthError {
  constructor(description = 'the device code has expired') {
    super('expired_token', description);
  }
}

/** RFC 8628 3.5 access_denied, "The authorization request was denied.": a token endpoint error, so 400 (RFC 6749 5.2). */
export class DeviceAccessDenied extends OAuthError {
  constructor(description = 'the user denied the request') {
    super('access_denied', description);
  }
}

// RFC 7591 3.2.2: the client registration endpoint's errors, HTTP 400 with a JSON body.

/** "The value of one or more redirection URIs is invalid." */
export class InvalidRedirectUri extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('invalid_redirect_uri', description, 400, {}, options);
  }
}

/** "The value of one of the client metadata fields is invalid and the server has rejected this request." */
export class InvalidClientMetadata extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('invalid_client_metadata', description, 400, {}, options);
  }
}

/** "The software statement presented is invalid." */
export class InvalidSoftwareStatement extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('invalid_software_statement', description, 400, {}, options);
  }
}

/** "The software statement presented is not approved for use by this authorization server." */
export class UnapprovedSoftwareStatement extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('unapproved_software_statement', description, 400, {}, options);
  }
}
