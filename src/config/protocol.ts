// The protocol's optional parts: back-channel logout deliveries, the device grant (RFC 8628), pushed requests
// (RFC 9126), DPoP (RFC 9449) and dynamic registration (RFC 7591), each with its counters.
import type { Reader } from './reader.js';
import { perMinute, type LockSeconds, type ThrottlePolicy } from './throttles.js';

/** Back-Channel Logout deliveries (src/domain/logout/backchannel-logout.ts). */
export interface BackchannelLogoutSettings {
  /** How long one POST to a client may take before it counts as failed. */
  readonly timeoutSeconds: number;
  /** Attempts per logout token before it is given up (and logged). */
  readonly maxAttempts: number;
  /** The wait after the first failed attempt; it doubles after each further one. */
  readonly retrySeconds: number;
  /** How often each instance looks for deliveries that are due (after a crash, or for a retry). */
  readonly pollSeconds: number;
}

/** The device authorization grant (RFC 8628). */
export interface DeviceFlowSettings {
  /** Lifetime of a device code and its user code (RFC 8628 3.2 `expires_in`). */
  readonly codeTtlSeconds: number;
  /** The polling interval first given to a device (RFC 8628 3.2 `interval`); each slow_down adds 5 seconds. */
  readonly intervalSeconds: number;
  /** User-code entries counted per client address on the verification page; null when that counter is off. */
  readonly userCodeEntry: ThrottlePolicy | null;
  /** Device authorization requests per client address, and per client, in a sliding minute; null when off. */
  readonly authorizationRequests: { readonly perNetwork: ThrottlePolicy | null; readonly perClient: ThrottlePolicy | null };
}

/** Pushed authorization requests (RFC 9126). */
export interface PushedRequestSettings {
  /** RFC 9126 2.2 expires_in: how long a request_uri may be used. */
  readonly requestUriTtlSeconds: number;
  /** RFC 9126 5 require_pushed_authorization_requests: every client must push its authorization requests. */
  readonly required: boolean;
  /** Pushed requests per client address, and per client, in a sliding minute; null when off. */
  readonly requests: { readonly perNetwork: ThrottlePolicy | null; readonly perClient: ThrottlePolicy | null };
}

/** RFC 9449 settings. */
export interface DpopSettings {
  /** RFC 9449 8: every proof must carry a nonce this provider gave (DPoP-Nonce); else use_dpop_nonce. */
  readonly nonceRequired: boolean;
  /** RFC 9449 11.1: how old a proof's iat may be (a proof from the future is allowed 30 seconds of clock difference). */
  readonly proofMaxAgeSeconds: number;
}

/** Dynamic client registration (RFC 7591) and its management (RFC 7592). */
export interface RegistrationSettings {
  /** The registration endpoint is served (and advertised): open, or with at least one initial access token. */
  readonly enabled: boolean;
  /** Anyone may register, without an initial access token (REGISTRATION_OPEN=true). */
  readonly open: boolean;
  /**
   * Open registrations counted per client address, locked like sign-in attempts (SIGN_IN_LOCK_*) after their own
   * free attempts; null when off (REGISTRATION_IP_FREE_ATTEMPTS=0). Registrations with an initial access token
   * are not counted.
   */
  readonly addressThrottle: ThrottlePolicy | null;
  /** RFC 7591 3: bearer tokens that allow a registration (REGISTRATION_INITIAL_ACCESS_TOKEN, comma-separated). */
  readonly initialAccessTokens: readonly string[];
  /** Lifetime of a registered client's secret (client_secret_expires_at); 0: it never expires. */
  readonly clientSecretTtlSeconds: number;
}

/** RFC 8628 settings; user-code entries lock like sign-in attempts (SIGN_IN_LOCK_*), after their own free attempts. */
export function deviceFlowSettings({ integer }: Reader, { lockBaseSeconds, lockMaxSeconds }: LockSeconds): DeviceFlowSettings {
  const freeAttempts = integer('USER_CODE_IP_FREE_ATTEMPTS');
  return Object.freeze({
    codeTtlSeconds: integer('DEVICE_CODE_TTL_SECONDS'),
    intervalSeconds: integer('DEVICE_CODE_INTERVAL_SECONDS'),
    userCodeEntry: freeAttempts === 0 ? null : Object.freeze({ freeAttempts, lockBaseSeconds, lockMaxSeconds }),
    authorizationRequests: Object.freeze({
      perNetwork: perMinute(integer('DEVICE_AUTHORIZATION_IP_PER_MINUTE')),
      perClient: perMinute(integer('DEVICE_AUTHORIZATION_CLIENT_PER_MINUTE')),
    }),
  });
}

/** RFC 9126 settings: the request_uri lifetime, the global requirement, the counters of the PAR endpoint. */
export function pushedRequestSettings({ integer, boolean }: Reader): PushedRequestSettings {
  return Object.freeze({
    requestUriTtlSeconds: integer('PAR_REQUEST_URI_TTL_SECONDS'),
    required: boolean('REQUIRE_PUSHED_AUTHORIZATION_REQUESTS'),
    requests: Object.freeze({
      perNetwork: perMinute(integer('PAR_IP_PER_MINUTE')),
      perClient: perMinute(integer('PAR_CLIENT_PER_MINUTE')),
    }),
  });
}

/** RFC 9449: DPOP_*. */
export function dpopSettings({ boolean, integer }: Reader): DpopSettings {
  return Object.freeze({
    nonceRequired: boolean('DPOP_NONCE_REQUIRED'),
    proofMaxAgeSeconds: integer('DPOP_PROOF_MAX_AGE_SECONDS'),
  });
}

/** RFC 7591 registration: on when open or when an initial access token is set; off (404) otherwise. */
export function registrationSettings(
  { text, integer, boolean, problems }: Reader,
  { lockBaseSeconds, lockMaxSeconds }: LockSeconds,
): RegistrationSettings {
  const open = boolean('REGISTRATION_OPEN');
  const initialAccessTokens = text('REGISTRATION_INITIAL_ACCESS_TOKEN')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  // A bearer secret, compared as is: at least as strong as the other secrets of the configuration.
  if (initialAccessTokens.some((v) => v.length < 32 || !/^[A-Za-z0-9\-._~+/]+=*$/.test(v))) {
    problems.push(
      'REGISTRATION_INITIAL_ACCESS_TOKEN must be tokens of at least 32 characters (RFC 6750 b64token, e.g. openssl rand -base64 32), comma-separated',
    );
  }
  const freeAttempts = integer('REGISTRATION_IP_FREE_ATTEMPTS');
  return Object.freeze({
    enabled: open || initialAccessTokens.length > 0,
    open,
    addressThrottle: freeAttempts === 0 ? null : Object.freeze({ freeAttempts, lockBaseSeconds, lockMaxSeconds }),
    initialAccessTokens: Object.freeze(initialAccessTokens),
    clientSecretTtlSeconds: integer('REGISTRATION_CLIENT_SECRET_TTL_SECONDS'),
  });
}

/** BACKCHANNEL_LOGOUT_*. */
export function backchannelLogoutSettings({ integer }: Reader): BackchannelLogoutSettings {
  return Object.freeze({
    timeoutSeconds: integer('BACKCHANNEL_LOGOUT_TIMEOUT_SECONDS'),
    maxAttempts: integer('BACKCHANNEL_LOGOUT_MAX_ATTEMPTS'),
    retrySeconds: integer('BACKCHANNEL_LOGOUT_RETRY_SECONDS'),
    pollSeconds: integer('BACKCHANNEL_LOGOUT_POLL_SECONDS'),
  });
}
