// Reads every setting from the environment once, validates it, and returns a frozen Config. The settings, their
// defaults and ranges are described in src/settings.ts; each group is read by its file in src/config/; nothing else
// in the code base reads process.env.
import path from 'node:path';
import { isLocale, LOCALES, type Locale } from './i18n/catalog.js';
import { idTokenClaimsSetting, signupSettings, type SignupSettings } from './config/accounts.js';
import { brandSettings, type BrandSettings } from './config/brand.js';
import { dnsResolversSetting } from './config/dns.js';
import { issuerSettings } from './config/issuer.js';
import { notifierSettings, type NotifierSettings } from './config/notifications.js';
import { operationsSettings, outboundSettings, type OperationsSettings, type OutboundSettings } from './config/operations.js';
import { passwordSettings, type Argon2Params, type PasswordPolicySettings, type PasswordWorkLimits } from './config/passwords.js';
import {
  backchannelLogoutSettings,
  deviceFlowSettings,
  dpopSettings,
  pushedRequestSettings,
  registrationSettings,
  type BackchannelLogoutSettings,
  type DeviceFlowSettings,
  type DpopSettings,
  type PushedRequestSettings,
  type RegistrationSettings,
} from './config/protocol.js';
import { ConfigError, settingsReader, type Env } from './config/reader.js';
import { riskSettings, type RiskPolicy } from './config/risk.js';
import { signInThrottleSettings, type SignInThrottleSettings } from './config/throttles.js';

export { isLoopbackUrl } from './net/loopback.js';
export type { SignupSettings } from './config/accounts.js';
export { brandColorProblem, type BrandSettings } from './config/brand.js';
export { ROUTES_PREFIX } from './config/issuer.js';
export type { NotifierSettings, NotifierWebhookSettings, SmtpSettings } from './config/notifications.js';
export type { OperationsSettings, OutboundSettings } from './config/operations.js';
export type { Argon2Params, PasswordPolicySettings, PasswordWorkLimits } from './config/passwords.js';
export type {
  BackchannelLogoutSettings,
  DeviceFlowSettings,
  DpopSettings,
  PushedRequestSettings,
  RegistrationSettings,
} from './config/protocol.js';
export { ConfigError } from './config/reader.js';
export { DEFAULT_RISK_WEIGHTS, type RiskPolicy } from './config/risk.js';
export type { SignInThrottleSettings, ThrottlePolicy } from './config/throttles.js';

export interface Config extends NotifierSettings {
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
  /**
   * DNS_RESOLVERS: the DNS servers asked for the TXT records that prove an organization's domain (issue 40), as
   * node:dns setServers takes them; empty: the system's resolvers.
   */
  readonly dnsResolvers: readonly string[];
  /** The bearer token of admins on GET /sso/security-events; undefined turns admin access off. */
  readonly adminApiToken: string | undefined;
}

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const reader = settingsReader(env, problems);
  const { text, integer } = reader;

  const issuer = issuerSettings(reader);
  const databaseUrl = text('DATABASE_URL') || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  const { argon2, passwordWork, passwordPolicy } = passwordSettings(reader);
  const { signInThrottle, lock } = signInThrottleSettings(reader);
  const { risk, deviceSecret } = riskSettings(reader);

  // A bearer token that reads every user's security events: as strong as the other server secrets.
  const adminApiToken = text('ADMIN_API_TOKEN') || undefined;
  if (adminApiToken !== undefined && (adminApiToken.length < 32 || !/^[A-Za-z0-9\-._~+/]+=*$/.test(adminApiToken))) {
    problems.push('ADMIN_API_TOKEN must be at least 32 characters of base64 or base64url (e.g. openssl rand -base64 32)');
  }

  const defaultLocale = text('DEFAULT_LOCALE');
  if (!isLocale(defaultLocale)) problems.push(`DEFAULT_LOCALE must be one of ${LOCALES.join(', ')} (got "${defaultLocale}")`);
  const { totpIssuer, brand } = brandSettings(reader, issuer.baseUrl);

  const config: Config = {
    port: issuer.port,
    host: issuer.host,
    baseUrl: issuer.baseUrl,
    issuer: issuer.issuer,
    issuerPath: issuer.issuerPath,
    secureCookies: issuer.secureCookies,
    databaseUrl,
    dataDir: path.resolve(text('DATA_DIR')),
    databasePoolMax: integer('DATABASE_POOL_MAX'),
    logLevel: issuer.logLevel,
    codeTtlSeconds: integer('CODE_TTL_SECONDS'),
    accessTokenTtlSeconds: integer('ACCESS_TOKEN_TTL_SECONDS'),
    refreshTokenTtlSeconds: integer('REFRESH_TOKEN_TTL_SECONDS'),
    idTokenTtlSeconds: integer('ID_TOKEN_TTL_SECONDS'),
    idTokenClaims: idTokenClaimsSetting(reader),
    sessionTtlSeconds: integer('SESSION_TTL_SECONDS'),
    interactionTtlSeconds: integer('INTERACTION_TTL_SECONDS'),
    clientAuthCacheSeconds: integer('CLIENT_AUTH_CACHE_SECONDS'),
    argon2,
    passwordWork,
    passwordPolicy,
    passwordResetTtlSeconds: integer('PASSWORD_RESET_TTL_SECONDS'),
    signup: signupSettings(reader),
    signInThrottle,
    purgeIntervalSeconds: integer('PURGE_INTERVAL_SECONDS'),
    keysEncryptionSecret: issuer.keysEncryptionSecret,
    keyActivationDelaySeconds: integer('KEY_ACTIVATION_DELAY_SECONDS'),
    keysRefreshSeconds: integer('KEYS_REFRESH_SECONDS'),
    backchannelLogout: backchannelLogoutSettings(reader),
    workers: integer('WORKERS'),
    deviceSecret,
    deviceCookieTtlSeconds: integer('DEVICE_COOKIE_TTL_SECONDS'),
    risk,
    secondFactorTtlSeconds: integer('SECOND_FACTOR_TTL_SECONDS'),
    secondFactorMaxAttempts: integer('SECOND_FACTOR_MAX_ATTEMPTS'),
    ...notifierSettings(reader, issuer.loopbackIssuer),
    outboxPollSeconds: integer('OUTBOX_POLL_SECONDS'),
    webhookPollSeconds: integer('WEBHOOK_POLL_SECONDS'),
    webhookConcurrency: integer('WEBHOOK_CONCURRENCY'),
    deviceFlow: deviceFlowSettings(reader, lock),
    pushedRequests: pushedRequestSettings(reader),
    dpop: dpopSettings(reader),
    totpIssuer,
    defaultLocale: isLocale(defaultLocale) ? defaultLocale : 'en',
    brand,
    securityEventRetentionDays: integer('SECURITY_EVENT_RETENTION_DAYS'),
    auditRetentionDays: integer('AUDIT_RETENTION_DAYS'),
    registration: registrationSettings(reader, lock),
    operations: operationsSettings(reader, { port: issuer.port, host: issuer.host }),
    outbound: outboundSettings(reader),
    dnsResolvers: dnsResolversSetting(reader),
    adminApiToken,
  };
  // The embedded database lives in one process; several workers need a shared PostgreSQL.
  if (config.workers > 1 && databaseUrl === undefined)
    problems.push('WORKERS above 1 needs DATABASE_URL (the embedded database opens in one process)');
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}
