// Reads every setting from the environment once, validates it, and returns a frozen Config. The settings, their
// defaults and ranges are described in src/settings.ts; nothing else in the code base reads process.env.
import net from 'node:net';
import path from 'node:path';
import { canonicalCidr } from './net/cidr.js';
import { isLoopbackUrl, LOOPBACK_HOSTS } from './net/loopback.js';
import { RISK_REASONS, type RiskReason } from './risk-reasons.js';
import { isLocale, LOCALES, type Locale } from './i18n/catalog.js';
import {
  SETTINGS,
  type BooleanSetting,
  type IntegerSetting,
  type SettingName,
  type TextSetting,
  type UnsetIntegerSetting,
} from './settings.js';

/** The path the provider's routes are mounted under (src/app.ts); the issuer is BASE_URL followed by it. */
export const ROUTES_PREFIX = '/sso';

/** Self-service sign-up (src/domain/accounts/signup.ts). */
export interface SignupSettings {
  /** SIGNUP: off (admins create accounts), open (a link on the sign-in page), invite (links an admin sends). */
  readonly mode: 'off' | 'open' | 'invite';
  /** SIGNUP_USERNAME: `email` (the address is the username) or `optional` (a field; blank takes the address). */
  readonly username: 'email' | 'optional';
  /** How long a verification link and code, and an invitation, work. */
  readonly verificationTtlSeconds: number;
}

/** What a new password must be (src/domain/accounts/password-policy.ts). */
export interface PasswordPolicySettings {
  /** PASSWORD_MIN_LENGTH: characters (code points) after NFKC normalisation; at least 8 (NIST's floor). */
  readonly minLength: number;
}

export interface Argon2Params {
  readonly memoryKiB: number;
  readonly timeCost: number;
  readonly parallelism: number;
}

export interface PasswordWorkLimits {
  /** Verifications running at once. */
  readonly maxConcurrent: number;
  /** Verifications waiting for a slot; one more is refused with temporarily_unavailable. */
  readonly maxQueued: number;
}

/** `freeAttempts` counted attempts, then a lock of base seconds that doubles with each further one, capped. */
export interface ThrottlePolicy {
  readonly freeAttempts: number;
  readonly lockBaseSeconds: number;
  readonly lockMaxSeconds: number;
}

export interface SignInThrottleSettings {
  readonly account: ThrottlePolicy;
  /** null when the per-address throttle is off (SIGN_IN_IP_FREE_ATTEMPTS=0). */
  readonly ip: ThrottlePolicy | null;
  /** A counter is forgotten this long after its last counted attempt. */
  readonly windowSeconds: number;
}

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

/** How sign-in attempts are scored and what the score leads to (src/domain/risk/). */
export interface RiskPolicy {
  /** Points each reason adds to the score (capped at 100). */
  readonly weights: Readonly<Record<RiskReason, number>>;
  /** A score at or above this asks for a second factor. */
  readonly challengeScore: number;
  /** A score at or above this refuses the attempt (before any argon2 work when the early signals reach it). */
  readonly blockScore: number;
  readonly velocityWindowSeconds: number;
  /** Attempts from one device within the velocity window before VELOCITY_DEVICE. */
  readonly deviceVelocity: number;
  /** Attempts from one network within the velocity window before VELOCITY_NETWORK. */
  readonly networkVelocity: number;
  readonly stuffingWindowSeconds: number;
  /** Distinct usernames failing from one device within the stuffing window before CREDENTIAL_STUFFING. */
  readonly stuffingDeviceLogins: number;
  /** Distinct usernames failing from one network within the stuffing window before CREDENTIAL_STUFFING. */
  readonly stuffingNetworkLogins: number;
  /**
   * Distinct usernames failing from one fingerprint on any network before CREDENTIAL_STUFFING for browsers without
   * an established cookie. A fingerprint is a browser model: raise this with the traffic of the most common one.
   */
  readonly stuffingFingerprintLogins: number;
  /** Failed attempts on one username within the stuffing window before FAILED_ATTEMPTS_USER. */
  readonly userFailures: number;
}

export interface SmtpSettings {
  /** smtp://[user:password@]host[:port] (STARTTLS) or smtps://… (TLS from the start, RFC 8314). Never logged. */
  readonly url: string;
  /** The From of every message: an address, or a name and an address ("Example <sso@example.com>"). */
  readonly from: string;
  /**
   * Refuse to send unless the connection is encrypted: on smtp:// to any host but a loopback one, so that a stripped
   * STARTTLS offer (RFC 3207 6) cannot make the login and the codes travel in clear.
   */
  readonly requireTls: boolean;
}

export interface NotifierWebhookSettings {
  /** https, or http on a loopback address (a relay on the same machine). */
  readonly url: URL;
  /** HMAC-SHA256 key of the X-SSO-Signature header, so that the relay can tell our messages from anyone's. */
  readonly secret: string;
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

/** Health, metrics, shutdown and proxies: how the process behaves under an orchestrator or a load balancer. */
export interface OperationsSettings {
  /** Serves /metrics on this port instead of the main one; undefined keeps it on the main port. */
  readonly metricsPort: number | undefined;
  /** The interface of METRICS_PORT (defaults to HOST). */
  readonly metricsHost: string;
  /**
   * Without METRICS_PORT: the bearer token /metrics asks for on the main port. Unset, the main port serves /metrics
   * only on a loopback issuer (development); elsewhere it is not served there at all.
   */
  readonly metricsToken: string | undefined;
  /** After SIGTERM/SIGINT: how long to keep serving (with /readyz at 503) before the listener closes. */
  readonly shutdownDrainSeconds: number;
  /** Then: how long in-flight requests get to finish before their connections are cut. */
  readonly shutdownTimeoutSeconds: number;
  /**
   * Which proxies' X-Forwarded-For is believed (Fastify trustProxy): false, a hop count, or addresses and CIDRs.
   * It decides the client address the throttles and the risk evaluation see, and nothing else.
   */
  readonly trustProxy: false | number | readonly string[];
  /**
   * Strict-Transport-Security max-age (RFC 6797), sent on every response when BASE_URL is https; 0 sends none.
   * A browser that has seen it reaches the issuer over https only, even from a typed or linked http:// address.
   */
  readonly hstsMaxAgeSeconds: number;
}

/** Requests the provider sends to addresses it was given (src/outbound/). */
export interface OutboundSettings {
  /**
   * Networks (canonical CIDR blocks) that destinations of self-registered clients may be in although loopback,
   * private or otherwise special-use: OUTBOUND_ALLOW_NETWORKS, empty by default.
   */
  readonly allowNetworks: readonly string[];
}

/** BRAND_*: how the pages and mails present the service. */
export interface BrandSettings {
  /** The service's name as people know it: on every page, in mails, beside passkeys. */
  readonly name: string;
  /** An https URL, or a path on this origin, of the logo shown at the top of every page; null: none. */
  readonly logoUrl: string | null;
  /** The primary colour (#rrggbb) of buttons and links; null keeps the built-in one. */
  readonly color: string | null;
}

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly baseUrl: string;
  /** `${baseUrl}/sso`, the exact string used as `iss` everywhere. */
  readonly issuer: string;
  /** The issuer's path (BASE_URL's path, then /sso): where an http issuer's cookies travel (src/http/cookies.ts). */
  readonly issuerPath: string;
  readonly secureCookies: boolean;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly databasePoolMax: number;
  readonly logLevel: string;
  readonly codeTtlSeconds: number;
  readonly accessTokenTtlSeconds: number;
  /** Lifetime of each refresh token; a rotation issues a new one with a fresh lifetime. */
  readonly refreshTokenTtlSeconds: number;
  readonly idTokenTtlSeconds: number;
  /**
   * ID_TOKEN_CLAIMS: `scopes` puts the claims the granted scopes release in the ID token too (OIDC Core 5.4 allows
   * it); `minimal` keeps them at userinfo only. A client's `id_token_claims` metadata overrides it.
   */
  readonly idTokenClaims: 'scopes' | 'minimal';
  readonly sessionTtlSeconds: number;
  readonly interactionTtlSeconds: number;
  readonly clientAuthCacheSeconds: number;
  readonly argon2: Argon2Params;
  /** Bounds on concurrent argon2 verifications in this process (a flood is refused, not queued without end). */
  readonly passwordWork: PasswordWorkLimits;
  /** What a new password must be (src/domain/accounts/password-policy.ts). */
  readonly passwordPolicy: PasswordPolicySettings;
  /** How long a password reset link works (PASSWORD_RESET_TTL_SECONDS). */
  readonly passwordResetTtlSeconds: number;
  readonly signup: SignupSettings;
  /** Failed sign-in throttling per account and per client address (src/domain/accounts/sign-in-throttle.ts). */
  readonly signInThrottle: SignInThrottleSettings;
  /** How often each instance deletes expired rows; 0 turns the job off. */
  readonly purgeIntervalSeconds: number;
  /** Derives the key that encrypts the private signing keys at rest; undefined stores them in the clear. */
  readonly keysEncryptionSecret: string | undefined;
  /** How long a rotated-in key is published before it signs (RPs refresh their JWKS cache meanwhile). */
  readonly keyActivationDelaySeconds: number;
  /** How often each instance reloads the signing keys from the database. */
  readonly keysRefreshSeconds: number;
  readonly backchannelLogout: BackchannelLogoutSettings;
  /** Keys the device fingerprints and network keys; undefined uses a random secret kept in the database. */
  readonly deviceSecret: string | undefined;
  /** Lifetime of the device cookie (browsers cap cookies at 400 days). */
  readonly deviceCookieTtlSeconds: number;
  readonly risk: RiskPolicy;
  /** How long a one-time code sent for a second factor stays valid. */
  readonly secondFactorTtlSeconds: number;
  /** Wrong codes before a second-factor challenge is dead. */
  readonly secondFactorMaxAttempts: number;
  /**
   * Who delivers one-time codes and notices: `log` (development: the code in the log), `smtp` (email through the
   * operator's mail server), `webhook` (a signed POST to the deployment's mail or SMS relay) or `none` (a row in the
   * outbox only).
   */
  readonly notifier: 'log' | 'smtp' | 'webhook' | 'none';
  /** Where NOTIFIER=webhook posts, and the key of its signature; null for the other notifiers. */
  readonly notifierWebhook: NotifierWebhookSettings | null;
  /** The mail server and sender of NOTIFIER=smtp; null for the other notifiers. */
  readonly notifierSmtp: SmtpSettings | null;
  /** How often each instance looks for outbox messages to deliver. */
  readonly outboxPollSeconds: number;
  /** How often each instance sends due webhook deliveries; 0: never from this instance. */
  readonly webhookPollSeconds: number;
  /** Subscriptions this instance sends to at once, each one delivery at a time. */
  readonly webhookConcurrency: number;
  /** Server processes sharing the port (node:cluster); 1 serves from the main process. Needs PostgreSQL when above 1. */
  readonly workers: number;
  readonly deviceFlow: DeviceFlowSettings;
  readonly pushedRequests: PushedRequestSettings;
  /** RFC 9449: DPoP proofs. */
  readonly dpop: DpopSettings;
  /** Stored security events older than this are purged. */
  readonly securityEventRetentionDays: number;
  /** Admin audit records older than this are purged; 0 keeps them forever. */
  readonly auditRetentionDays: number;
  /** The name authenticator apps show beside a user's codes (the otpauth URI's issuer). */
  readonly totpIssuer: string;
  /** DEFAULT_LOCALE: the language of pages and mails when neither ui_locales nor Accept-Language names one we speak. */
  readonly defaultLocale: Locale;
  readonly brand: BrandSettings;
  readonly registration: RegistrationSettings;
  readonly operations: OperationsSettings;
  readonly outbound: OutboundSettings;
  /** The bearer token of admins on GET /sso/security-events; undefined turns admin access off. */
  readonly adminApiToken: string | undefined;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

export { isLoopbackUrl };

/** HOST as a URL writes it (an IPv6 address in brackets) when it is one of the loopback hosts above. */
function loopbackUrlHost(host: string): string | undefined {
  const urlHost = net.isIPv6(host) ? `[${host}]` : host;
  return LOOPBACK_HOSTS.has(urlHost) ? urlHost : undefined;
}
const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

// With ARGON2_MIN_MEMORY_KIB (src/settings.ts): OWASP's weakest equivalent of m=19 MiB, t=2 is m=7 MiB, t=5
// (35,840 KiB-passes); nothing below that is accepted.
const ARGON2_MIN_MEMORY_PASSES = 35_840;

type Env = Record<string, string | undefined>;

type LockSeconds = Pick<ThrottlePolicy, 'lockBaseSeconds' | 'lockMaxSeconds'>;

/**
 * How loadConfig reads the settings of src/settings.ts, and only those: a bad value is added to `problems` and the
 * default used, so that every problem is listed.
 */
interface Reader {
  readonly problems: string[];
  /** The trimmed value; when empty, the described default, or `computed` for a default that depends on others. */
  text(name: TextSetting, computed?: string): string;
  integer(name: IntegerSetting): number;
  /** undefined when unset. */
  unsetInteger(name: UnsetIntegerSetting): number | undefined;
  boolean(name: BooleanSetting): boolean;
}

function settingsReader(env: Env, problems: string[]): Reader {
  const raw = (name: SettingName): string => env[name]?.trim() ?? '';
  const whole = (name: IntegerSetting | UnsetIntegerSetting, value: string): number | undefined => {
    const { min, max } = SETTINGS[name];
    const n = Number(value);
    if (/^\d+$/.test(value) && Number.isSafeInteger(n) && n >= min && n <= max) return n;
    problems.push(`${name} must be a whole number from ${min} to ${max} (got "${value}")`);
    return undefined;
  };
  return {
    problems,
    text: (name, computed) => raw(name) || (SETTINGS[name].default ?? computed ?? ''),
    integer: (name) => {
      const value = raw(name);
      return (value === '' ? undefined : whole(name, value)) ?? SETTINGS[name].default;
    },
    unsetInteger: (name) => {
      const value = raw(name);
      return value === '' ? undefined : whole(name, value);
    },
    boolean: (name) => {
      const value = raw(name).toLowerCase();
      if (value === '') return SETTINGS[name].default;
      if (['true', '1', 'yes'].includes(value)) return true;
      if (['false', '0', 'no'].includes(value)) return false;
      problems.push(`${name} must be true or false (got "${value}")`);
      return SETTINGS[name].default;
    },
  };
}

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const reader = settingsReader(env, problems);
  const { text, integer, boolean } = reader;

  const port = integer('PORT');
  const host = text('HOST');
  const allowInsecureIssuer = boolean('ALLOW_INSECURE_ISSUER');
  // Without BASE_URL the issuer is where this process listens on this machine: PORT=4000 alone serves, announces
  // and puts in discovery an issuer on :4000 (a loopback HOST is kept; any other, such as 0.0.0.0, reads localhost).
  const defaultHost = loopbackUrlHost(host) ?? 'localhost';
  const baseUrl = text('BASE_URL', `http://${defaultHost}:${port}`).replace(/\/+$/, '');
  const issuerUrl = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  const secureCookies = issuerUrl?.protocol === 'https:';
  if (issuerUrl === undefined) {
    problems.push(`BASE_URL must be an absolute URL (got "${baseUrl}")`);
  } else if (issuerUrl.protocol !== 'https:' && issuerUrl.protocol !== 'http:') {
    problems.push(`BASE_URL must be an http(s) URL (got "${baseUrl}")`);
  } else if (issuerUrl.search || issuerUrl.hash || issuerUrl.username || issuerUrl.password) {
    problems.push('BASE_URL must not carry a query, fragment or credentials');
  } else if (issuerUrl.protocol === 'http:' && !isLoopbackUrl(issuerUrl) && !allowInsecureIssuer) {
    problems.push(`BASE_URL must use https outside loopback hosts (got "${baseUrl}"); set ALLOW_INSECURE_ISSUER=true to override`);
  }

  const databaseUrl = text('DATABASE_URL') || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  const logLevel = text('LOG_LEVEL');
  if (!LOG_LEVELS.has(logLevel)) problems.push(`LOG_LEVEL must be one of ${[...LOG_LEVELS].join(', ')} (got "${logLevel}")`);

  const argon2 = {
    memoryKiB: integer('ARGON2_MEMORY_KIB'),
    timeCost: integer('ARGON2_TIME_COST'),
    parallelism: integer('ARGON2_PARALLELISM'),
  };
  if (argon2.memoryKiB * argon2.timeCost < ARGON2_MIN_MEMORY_PASSES) {
    problems.push(
      `ARGON2_MEMORY_KIB x ARGON2_TIME_COST must be at least ${ARGON2_MIN_MEMORY_PASSES} (OWASP minimum; got ${argon2.memoryKiB * argon2.timeCost})`,
    );
  }
  const passwordWork = {
    maxConcurrent: integer('ARGON2_MAX_CONCURRENT'),
    maxQueued: integer('ARGON2_MAX_QUEUED'),
  };

  const lockBaseSeconds = integer('SIGN_IN_LOCK_BASE_SECONDS');
  const lockMaxSeconds = integer('SIGN_IN_LOCK_MAX_SECONDS');
  const ipFreeAttempts = integer('SIGN_IN_IP_FREE_ATTEMPTS');
  const throttleWindowSeconds = integer('SIGN_IN_THROTTLE_WINDOW_SECONDS');
  if (lockMaxSeconds < lockBaseSeconds) problems.push('SIGN_IN_LOCK_MAX_SECONDS must be at least SIGN_IN_LOCK_BASE_SECONDS');
  // A counter forgotten before its lock ends would end the lock early.
  const lock: LockSeconds = { lockBaseSeconds, lockMaxSeconds };
  if (throttleWindowSeconds < lockMaxSeconds) problems.push('SIGN_IN_THROTTLE_WINDOW_SECONDS must be at least SIGN_IN_LOCK_MAX_SECONDS');
  const signInThrottle: SignInThrottleSettings = {
    account: Object.freeze({ freeAttempts: integer('SIGN_IN_ACCOUNT_FREE_ATTEMPTS'), lockBaseSeconds, lockMaxSeconds }),
    ip: ipFreeAttempts === 0 ? null : Object.freeze({ freeAttempts: ipFreeAttempts, lockBaseSeconds, lockMaxSeconds }),
    windowSeconds: throttleWindowSeconds,
  };

  // A secret that derives an AES-256 key should carry at least 256 bits when it is random base64 (openssl rand -base64 32).
  const keysEncryptionSecret = text('KEYS_ENCRYPTION_SECRET') || undefined;
  if (keysEncryptionSecret !== undefined && keysEncryptionSecret.length < 32) {
    problems.push('KEYS_ENCRYPTION_SECRET must be at least 32 characters (e.g. openssl rand -base64 32)');
  }
  // Without it the private signing keys and authenticator secrets sit in the database in the clear: a development
  // convenience on a loopback issuer, refused anywhere else unless the operator says so in as many words.
  const allowUnencryptedKeys = boolean('ALLOW_UNENCRYPTED_KEYS');
  if (keysEncryptionSecret === undefined && !allowUnencryptedKeys && issuerUrl !== undefined && !isLoopbackUrl(issuerUrl)) {
    problems.push(
      'KEYS_ENCRYPTION_SECRET must be set on an issuer outside localhost (the signing keys would be stored in the clear): ' +
        'openssl rand -base64 32; or set ALLOW_UNENCRYPTED_KEYS=true to accept that',
    );
  }

  const deviceSecret = text('DEVICE_SECRET') || undefined;
  if (deviceSecret !== undefined && deviceSecret.length < 32)
    problems.push('DEVICE_SECRET must be at least 32 characters (e.g. openssl rand -base64 32)');
  const risk: RiskPolicy = {
    weights: Object.freeze(riskWeights(text('RISK_WEIGHTS'), problems)),
    challengeScore: integer('RISK_CHALLENGE_SCORE'),
    blockScore: integer('RISK_BLOCK_SCORE'),
    velocityWindowSeconds: integer('RISK_VELOCITY_WINDOW_SECONDS'),
    deviceVelocity: integer('RISK_DEVICE_VELOCITY'),
    networkVelocity: integer('RISK_NETWORK_VELOCITY'),
    stuffingWindowSeconds: integer('RISK_STUFFING_WINDOW_SECONDS'),
    stuffingDeviceLogins: integer('RISK_STUFFING_DEVICE_LOGINS'),
    stuffingNetworkLogins: integer('RISK_STUFFING_NETWORK_LOGINS'),
    stuffingFingerprintLogins: integer('RISK_STUFFING_FINGERPRINT_LOGINS'),
    userFailures: integer('RISK_USER_FAILURES'),
  };
  if (risk.blockScore < risk.challengeScore) problems.push('RISK_BLOCK_SCORE must be at least RISK_CHALLENGE_SCORE');

  // A bearer token that reads every user's security events: as strong as the other server secrets.
  const adminApiToken = text('ADMIN_API_TOKEN') || undefined;
  if (adminApiToken !== undefined && (adminApiToken.length < 32 || !/^[A-Za-z0-9\-._~+/]+=*$/.test(adminApiToken))) {
    problems.push('ADMIN_API_TOKEN must be at least 32 characters of base64 or base64url (e.g. openssl rand -base64 32)');
  }

  // The log notifier writes one-time codes to the log: a development tool, the default on a loopback http issuer only.
  const loopbackIssuer = baseUrl.startsWith('http://') && issuerUrl !== undefined && isLoopbackUrl(issuerUrl);
  const notifierName = text('NOTIFIER', loopbackIssuer ? 'log' : 'none');
  const notifiers = ['log', 'smtp', 'webhook', 'none'] as const;
  const notifier = notifiers.find((name) => name === notifierName) ?? 'none';
  if (notifier !== notifierName) problems.push(`NOTIFIER must be log, smtp, webhook or none (got "${notifierName}")`);
  const notifierWebhook = notifier === 'webhook' ? webhookSettings(reader) : null;
  const notifierSmtp = notifier === 'smtp' ? smtpSettings(reader) : null;

  const signupModes = ['off', 'open', 'invite'] as const;
  const signupMode = signupModes.find((m) => m === text('SIGNUP'));
  if (!signupMode) problems.push(`SIGNUP must be off, open or invite (got "${text('SIGNUP')}")`);
  const signupUsernames = ['email', 'optional'] as const;
  const signupUsername = signupUsernames.find((m) => m === text('SIGNUP_USERNAME'));
  if (!signupUsername) problems.push(`SIGNUP_USERNAME must be email or optional (got "${text('SIGNUP_USERNAME')}")`);

  const idTokenClaimsModes = ['scopes', 'minimal'] as const;
  const idTokenClaims = idTokenClaimsModes.find((m) => m === text('ID_TOKEN_CLAIMS'));
  if (!idTokenClaims) problems.push(`ID_TOKEN_CLAIMS must be scopes or minimal (got "${text('ID_TOKEN_CLAIMS')}")`);

  const defaultLocale = text('DEFAULT_LOCALE');
  if (!isLocale(defaultLocale)) problems.push(`DEFAULT_LOCALE must be one of ${LOCALES.join(', ')} (got "${defaultLocale}")`);

  // The Key Uri Format separates issuer and account with a colon: the issuer may not hold one.
  const totpIssuer = text('TOTP_ISSUER', hostnameOf(baseUrl));
  if (totpIssuer.length > 64 || totpIssuer.includes(':'))
    problems.push(`TOTP_ISSUER must be at most 64 characters, without ":" (got "${totpIssuer}")`);

  const brandName = text('BRAND_NAME', totpIssuer);
  if (brandName.length > 64 || [...brandName].some((c) => c < ' ' || c === '\u007f'))
    problems.push(`BRAND_NAME must be at most 64 characters, without control characters (got "${brandName}")`);
  const logoUrl = text('BRAND_LOGO_URL') || null;
  if (logoUrl !== null && !isBrandLogoUrl(logoUrl))
    problems.push(`BRAND_LOGO_URL must be an https URL or a path on this server starting with / (got "${logoUrl}")`);
  const brandColor = text('BRAND_COLOR') || null;
  const colorProblem = brandColor === null ? undefined : brandColorProblem(brandColor);
  if (colorProblem) problems.push(`BRAND_COLOR ${colorProblem}`);

  const config: Config = {
    port,
    host,
    baseUrl,
    issuer: `${baseUrl}${ROUTES_PREFIX}`,
    issuerPath: `${issuerUrl?.pathname.replace(/\/$/, '') ?? ''}${ROUTES_PREFIX}`,
    secureCookies,
    databaseUrl,
    dataDir: path.resolve(text('DATA_DIR')),
    databasePoolMax: integer('DATABASE_POOL_MAX'),
    logLevel,
    codeTtlSeconds: integer('CODE_TTL_SECONDS'),
    accessTokenTtlSeconds: integer('ACCESS_TOKEN_TTL_SECONDS'),
    refreshTokenTtlSeconds: integer('REFRESH_TOKEN_TTL_SECONDS'),
    idTokenTtlSeconds: integer('ID_TOKEN_TTL_SECONDS'),
    idTokenClaims: idTokenClaims ?? 'scopes',
    sessionTtlSeconds: integer('SESSION_TTL_SECONDS'),
    interactionTtlSeconds: integer('INTERACTION_TTL_SECONDS'),
    clientAuthCacheSeconds: integer('CLIENT_AUTH_CACHE_SECONDS'),
    argon2: Object.freeze(argon2),
    passwordWork: Object.freeze(passwordWork),
    passwordPolicy: Object.freeze({ minLength: integer('PASSWORD_MIN_LENGTH') }),
    passwordResetTtlSeconds: integer('PASSWORD_RESET_TTL_SECONDS'),
    signup: Object.freeze({
      mode: signupMode ?? 'off',
      username: signupUsername ?? 'email',
      verificationTtlSeconds: integer('SIGNUP_VERIFICATION_TTL_SECONDS'),
    }),
    signInThrottle: Object.freeze(signInThrottle),
    purgeIntervalSeconds: integer('PURGE_INTERVAL_SECONDS'),
    keysEncryptionSecret,
    keyActivationDelaySeconds: integer('KEY_ACTIVATION_DELAY_SECONDS'),
    keysRefreshSeconds: integer('KEYS_REFRESH_SECONDS'),
    backchannelLogout: Object.freeze({
      timeoutSeconds: integer('BACKCHANNEL_LOGOUT_TIMEOUT_SECONDS'),
      maxAttempts: integer('BACKCHANNEL_LOGOUT_MAX_ATTEMPTS'),
      retrySeconds: integer('BACKCHANNEL_LOGOUT_RETRY_SECONDS'),
      pollSeconds: integer('BACKCHANNEL_LOGOUT_POLL_SECONDS'),
    }),
    workers: integer('WORKERS'),
    deviceSecret,
    deviceCookieTtlSeconds: integer('DEVICE_COOKIE_TTL_SECONDS'),
    risk: Object.freeze(risk),
    secondFactorTtlSeconds: integer('SECOND_FACTOR_TTL_SECONDS'),
    secondFactorMaxAttempts: integer('SECOND_FACTOR_MAX_ATTEMPTS'),
    notifier,
    notifierWebhook,
    notifierSmtp,
    outboxPollSeconds: integer('OUTBOX_POLL_SECONDS'),
    webhookPollSeconds: integer('WEBHOOK_POLL_SECONDS'),
    webhookConcurrency: integer('WEBHOOK_CONCURRENCY'),
    deviceFlow: deviceFlowSettings(reader, lock),
    pushedRequests: pushedRequestSettings(reader),
    dpop: Object.freeze({
      nonceRequired: reader.boolean('DPOP_NONCE_REQUIRED'),
      proofMaxAgeSeconds: reader.integer('DPOP_PROOF_MAX_AGE_SECONDS'),
    }),
    totpIssuer,
    defaultLocale: isLocale(defaultLocale) ? defaultLocale : 'en',
    brand: { name: brandName, logoUrl, color: brandColor?.toLowerCase() ?? null },
    securityEventRetentionDays: integer('SECURITY_EVENT_RETENTION_DAYS'),
    auditRetentionDays: integer('AUDIT_RETENTION_DAYS'),
    registration: registrationSettings(reader, lock),
    operations: operationsSettings(reader, { port, host }),
    outbound: Object.freeze({ allowNetworks: allowNetworks(reader) }),
    adminApiToken,
  };
  // The embedded database lives in one process; several workers need a shared PostgreSQL.
  if (config.workers > 1 && databaseUrl === undefined)
    problems.push('WORKERS above 1 needs DATABASE_URL (the embedded database opens in one process)');
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/** RFC 8628 settings; user-code entries lock like sign-in attempts (SIGN_IN_LOCK_*), after their own free attempts. */
function deviceFlowSettings({ integer }: Reader, { lockBaseSeconds, lockMaxSeconds }: LockSeconds): DeviceFlowSettings {
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
function pushedRequestSettings({ integer, boolean }: Reader): PushedRequestSettings {
  return Object.freeze({
    requestUriTtlSeconds: integer('PAR_REQUEST_URI_TTL_SECONDS'),
    required: boolean('REQUIRE_PUSHED_AUTHORIZATION_REQUESTS'),
    requests: Object.freeze({
      perNetwork: perMinute(integer('PAR_IP_PER_MINUTE')),
      perClient: perMinute(integer('PAR_CLIENT_PER_MINUTE')),
    }),
  });
}

/** At most `n` requests without a minute's pause, then a minute's wait; 0 turns the counter off. */
function perMinute(n: number): ThrottlePolicy | null {
  return n === 0 ? null : Object.freeze({ freeAttempts: n, lockBaseSeconds: 60, lockMaxSeconds: 60 });
}

/** RFC 7591 registration: on when open or when an initial access token is set; off (404) otherwise. */
function registrationSettings(
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

/** OUTBOUND_ALLOW_NETWORKS: comma-separated CIDR blocks (a bare address is a /32 or /128), in canonical form. */
function allowNetworks({ text, problems }: Reader): readonly string[] {
  const networks: string[] = [];
  for (const entry of text('OUTBOUND_ALLOW_NETWORKS')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const check = canonicalCidr(entry);
    if ('cidr' in check) networks.push(check.cidr);
    else problems.push(`OUTBOUND_ALLOW_NETWORKS: ${check.problem}`);
  }
  return Object.freeze(networks);
}

/** METRICS_PORT, METRICS_HOST, METRICS_TOKEN, SHUTDOWN_*, TRUST_PROXY, HSTS_MAX_AGE_SECONDS. */
function operationsSettings(reader: Reader, { port, host }: { port: number; host: string }): OperationsSettings {
  const { text, integer, unsetInteger, problems } = reader;
  const metricsPort = unsetInteger('METRICS_PORT');
  if (metricsPort !== undefined && metricsPort === port)
    problems.push('METRICS_PORT must differ from PORT (leave it empty to serve /metrics on PORT)');
  return Object.freeze({
    metricsPort,
    metricsHost: text('METRICS_HOST', host),
    metricsToken: metricsToken(reader),
    shutdownDrainSeconds: integer('SHUTDOWN_DRAIN_SECONDS'),
    shutdownTimeoutSeconds: integer('SHUTDOWN_TIMEOUT_SECONDS'),
    trustProxy: trustProxy(text('TRUST_PROXY'), problems),
    // One year, as Keycloak sends by default; at most two years.
    hstsMaxAgeSeconds: integer('HSTS_MAX_AGE_SECONDS'),
  });
}

/** METRICS_TOKEN: a bearer secret like the other secrets of the configuration (RFC 6750 b64token, 32 characters or more). */
function metricsToken({ text, problems }: Reader): string | undefined {
  const token = text('METRICS_TOKEN');
  if (token === '') return undefined;
  if (token.length < 32 || !/^[A-Za-z0-9\-._~+/]+=*$/.test(token)) {
    problems.push('METRICS_TOKEN must be at least 32 characters of an RFC 6750 b64token (e.g. openssl rand -base64 32)');
  }
  return token;
}

/** proxy-addr's names for address ranges, accepted in TRUST_PROXY beside addresses and CIDRs. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: empty, `false` or `0` trusts no proxy (the socket's address is the client's); a number trusts that
 * many hops of X-Forwarded-For; a comma list trusts proxies at those addresses or CIDRs. `true` (trust every
 * address) is refused: anyone could then choose the address the throttles count.
 */
function trustProxy(raw: string, problems: string[]): false | number | readonly string[] {
  if (raw === '' || raw.toLowerCase() === 'false' || raw === '0') return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops <= 100) return hops;
  }
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const bad = entries.filter((e) => !isAddressOrCidr(e));
  if (bad.length > 0 || entries.length === 0) {
    problems.push(`TRUST_PROXY must be a hop count (1 to 100) or a comma list of addresses and CIDRs (got "${raw}")`);
    return false;
  }
  return Object.freeze(entries);
}

function isAddressOrCidr(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = net.isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** The default TOTP_ISSUER: BASE_URL's host name, or "SSO" for an IPv6 address (its colons may not be in it). */
function hostnameOf(url: string): string {
  try {
    const { hostname } = new URL(url);
    return hostname && !hostname.includes(':') ? hostname : 'SSO';
  } catch {
    return 'SSO';
  }
}

/** Points per reason; RISK_WEIGHTS="AUTOMATION=70,NEW_NETWORK=10" overrides some of them. */
export const DEFAULT_RISK_WEIGHTS: Readonly<Record<RiskReason, number>> = Object.freeze({
  NEW_DEVICE: 20,
  KNOWN_DEVICE: 0,
  NEW_NETWORK: 15,
  AUTOMATION: 60,
  UA_HINTS_MISMATCH: 40,
  COOKIE_FINGERPRINT_MISMATCH: 60,
  VELOCITY_DEVICE: 40,
  VELOCITY_NETWORK: 30,
  CREDENTIAL_STUFFING: 80,
  FAILED_ATTEMPTS_USER: 30,
  RULE_ALLOW: 0,
  RULE_BLOCK: 100,
});

function riskWeights(raw: string, problems: string[]): Record<RiskReason, number> {
  const weights = { ...DEFAULT_RISK_WEIGHTS };
  for (const item of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [reason, value] = item.split('=').map((p) => p.trim());
    const points = Number(value);
    if (!(RISK_REASONS as readonly string[]).includes(reason ?? '') || !/^\d+$/.test(value ?? '') || points > 100) {
      problems.push(`RISK_WEIGHTS must be REASON=points pairs (0 to 100) with reasons among ${RISK_REASONS.join(', ')} (got "${item}")`);
      continue;
    }
    weights[reason as RiskReason] = points;
  }
  return weights;
}

/** NOTIFIER=smtp: SMTP_URL and MAIL_FROM, both required. SMTP_URL holds a password: no problem quotes it. */
function smtpSettings({ text, problems }: Reader): SmtpSettings | null {
  const raw = text('SMTP_URL');
  const from = text('MAIL_FROM');
  let url: URL | null = null;
  if (raw === '') problems.push('SMTP_URL must be set when NOTIFIER=smtp (e.g. smtp://user:password@mail.example.com:587)');
  else {
    try {
      url = new URL(raw);
    } catch {
      problems.push('SMTP_URL must be smtp:// or smtps:// followed by the mail server (it is not a URL)');
    }
  }
  if (url && ((url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '')) {
    problems.push(`SMTP_URL must be smtp:// or smtps:// followed by the mail server (got "${url.protocol}//…")`);
    url = null;
  }
  if (from === '') problems.push('MAIL_FROM must be set when NOTIFIER=smtp (e.g. "Example <sso@example.com>")');
  else if (!isOneMailbox(from)) problems.push('MAIL_FROM must be one email address, optionally with a name: "Example <sso@example.com>"');
  if (!url || !isOneMailbox(from)) return null;
  return Object.freeze({ url: raw, from, requireTls: url.protocol === 'smtp:' && !isLoopbackUrl(url) });
}

/** "sso@example.com" or "Any Name <sso@example.com>" (RFC 5322 3.4 name-addr, without groups, lists or line breaks). */
function isOneMailbox(value: string): boolean {
  const addrSpec = /^[^\s@<>(),;:"\\]+@[^\s@<>(),;:"\\]+$/;
  if (addrSpec.test(value)) return true;
  const named = /^([^<>\r\n,;@]*|"[^"\r\n]*") <([^<>]+)>$/.exec(value);
  return named !== null && addrSpec.test(named[2]!);
}

/** NOTIFIER=webhook: NOTIFIER_WEBHOOK_URL and NOTIFIER_WEBHOOK_SECRET, both required. */
function webhookSettings({ text, problems }: Reader): NotifierWebhookSettings | null {
  const raw = text('NOTIFIER_WEBHOOK_URL');
  const secret = text('NOTIFIER_WEBHOOK_SECRET');
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    problems.push('NOTIFIER_WEBHOOK_URL must be set to an absolute URL when NOTIFIER=webhook');
  }
  // One-time codes travel in the body: only over TLS, or to a relay on this machine.
  if (url && !(url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackUrl(url)))) {
    problems.push(`NOTIFIER_WEBHOOK_URL must be https (or http on localhost, 127.0.0.1 or [::1]) (got "${url.protocol}//${url.host}")`);
    url = null;
  }
  if (url && (url.username || url.password)) {
    problems.push('NOTIFIER_WEBHOOK_URL must not carry credentials: the relay checks X-SSO-Signature');
    url = null;
  }
  if (secret.length < 32) problems.push('NOTIFIER_WEBHOOK_SECRET must be at least 32 characters (e.g. openssl rand -base64 32)');
  return url && secret.length >= 32 ? Object.freeze({ url, secret }) : null;
}

/** BRAND_LOGO_URL: an https URL (the pages allow images from any https origin) or a path on this origin. */
function isBrandLogoUrl(value: string): boolean {
  if (/^\/(?!\/)\S*$/.test(value)) return true;
  try {
    return new URL(value).protocol === 'https:' && !/\s/.test(value);
  } catch {
    return false;
  }
}

/**
 * What is wrong with a BRAND_COLOR, if anything: it must be #rrggbb, and white button text on it must keep WCAG 2.1
 * 1.4.3's contrast of at least 4.5:1 (contrast ratio and relative luminance as WCAG 2.1 defines them).
 */
export function brandColorProblem(value: string): string | undefined {
  if (!/^#[0-9a-fA-F]{6}$/.test(value)) return `must be a colour as #rrggbb (got "${value}")`;
  const channel = (hex: string) => {
    const c = parseInt(hex, 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(value.slice(1, 3)) + 0.7152 * channel(value.slice(3, 5)) + 0.0722 * channel(value.slice(5, 7));
  const ratio = 1.05 / (luminance + 0.05);
  if (ratio < 4.5)
    return `${value} is too light: white text on it has a contrast of ${ratio.toFixed(2)}:1, and WCAG 2.1 AA asks for 4.5:1 (pick a darker shade)`;
  return undefined;
}
