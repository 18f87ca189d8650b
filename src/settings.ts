// Every environment variable the server reads, described once: its type, its default and its range. src/config.ts
// reads them through this table (and only them); docs/configuration.md and .env.example are tested against it
// (test/unit/settings-docs.test.ts). A default of null is unset, or computed from other settings (config.ts).

export type Setting =
  | { readonly type: 'integer'; readonly default: number | null; readonly min: number; readonly max: number }
  | { readonly type: 'boolean'; readonly default: boolean }
  | { readonly type: 'text'; readonly default: string | null };

const integer = (fallback: number, min: number, max: number) => ({ type: 'integer', default: fallback, min, max }) as const;
const unsetInteger = (min: number, max: number) => ({ type: 'integer', default: null, min, max }) as const;
const boolean = (fallback: boolean) => ({ type: 'boolean', default: fallback }) as const;
const text = (fallback: string | null = null) => ({ type: 'text', default: fallback }) as const;

// OWASP Password Storage Cheat Sheet: argon2id with m=19 MiB, t=2, p=1 or an equivalent trade-off. The weakest
// equivalent it lists is m=7 MiB, t=5 (35,840 KiB-passes); nothing below that is accepted.
const ARGON2_MIN_MEMORY_KIB = 7168;

export const SETTINGS = {
  // HTTP
  PORT: integer(3000, 0, 65535),
  HOST: text('localhost'),
  BASE_URL: text(), // http://localhost:PORT (or the loopback HOST)
  ALLOW_INSECURE_ISSUER: boolean(false),
  LOG_LEVEL: text('info'),
  // Database
  DATABASE_URL: text(),
  DATA_DIR: text('./data'),
  DATABASE_POOL_MAX: integer(10, 1, 1000),
  // Lifetimes
  CODE_TTL_SECONDS: integer(60, 1, 600),
  ACCESS_TOKEN_TTL_SECONDS: integer(3600, 60, 86_400),
  REFRESH_TOKEN_TTL_SECONDS: integer(1_209_600, 60, 31_536_000),
  ID_TOKEN_TTL_SECONDS: integer(3600, 60, 86_400),
  // What an ID token carries beside sub, sid, amr (src/domain/tokens/id-token-claims.ts): scopes or minimal
  ID_TOKEN_CLAIMS: text('scopes'),
  SESSION_TTL_SECONDS: integer(86_400, 60, 31_536_000),
  INTERACTION_TTL_SECONDS: integer(900, 60, 86_400),
  CLIENT_AUTH_CACHE_SECONDS: integer(300, 0, 86_400),
  // Password hashing
  ARGON2_MEMORY_KIB: integer(19_456, ARGON2_MIN_MEMORY_KIB, 4_194_304),
  ARGON2_TIME_COST: integer(2, 1, 100),
  ARGON2_PARALLELISM: integer(1, 1, 64),
  ARGON2_MAX_CONCURRENT: integer(2, 1, 64),
  ARGON2_MAX_QUEUED: integer(32, 0, 10_000),
  // Password policy (NIST SP 800-63B 5.1.1.2) and reset
  PASSWORD_MIN_LENGTH: integer(8, 8, 64),
  PASSWORD_RESET_TTL_SECONDS: integer(1800, 300, 86_400),
  // Self-service sign-up (src/domain/accounts/signup.ts)
  SIGNUP: text('off'),
  SIGNUP_USERNAME: text('email'),
  SIGNUP_VERIFICATION_TTL_SECONDS: integer(3600, 300, 604_800),
  // Languages (src/i18n/): the language of pages and mails when neither ui_locales nor Accept-Language names one
  DEFAULT_LOCALE: text('en'),
  // Branding of the pages and mails (src/http/views/layout.ts)
  BRAND_NAME: text(), // TOTP_ISSUER, else BASE_URL's host name
  BRAND_LOGO_URL: text(),
  BRAND_COLOR: text(),
  // Sign-in throttling (also client authentication, user codes and open registration lock on SIGN_IN_LOCK_*)
  SIGN_IN_ACCOUNT_FREE_ATTEMPTS: integer(5, 1, 1000),
  SIGN_IN_IP_FREE_ATTEMPTS: integer(50, 0, 1_000_000),
  SIGN_IN_LOCK_BASE_SECONDS: integer(2, 1, 3600),
  SIGN_IN_LOCK_MAX_SECONDS: integer(900, 1, 86_400),
  SIGN_IN_THROTTLE_WINDOW_SECONDS: integer(86_400, 60, 31_536_000),
  // Housekeeping
  PURGE_INTERVAL_SECONDS: integer(600, 0, 86_400),
  SECURITY_EVENT_RETENTION_DAYS: integer(90, 1, 36_500),
  AUDIT_RETENTION_DAYS: integer(365, 0, 36_500), // 0: kept forever
  // Keys
  KEYS_ENCRYPTION_SECRET: text(),
  ALLOW_UNENCRYPTED_KEYS: boolean(false),
  KEY_ACTIVATION_DELAY_SECONDS: integer(3600, 0, 2_592_000),
  KEYS_REFRESH_SECONDS: integer(60, 1, 86_400),
  TOTP_ISSUER: text(), // BASE_URL's host name
  // Device intelligence and risk
  DEVICE_SECRET: text(),
  DEVICE_COOKIE_TTL_SECONDS: integer(34_560_000, 86_400, 34_560_000),
  RISK_WEIGHTS: text(),
  RISK_CHALLENGE_SCORE: integer(30, 1, 100),
  RISK_BLOCK_SCORE: integer(80, 1, 100),
  RISK_VELOCITY_WINDOW_SECONDS: integer(600, 10, 86_400),
  RISK_DEVICE_VELOCITY: integer(10, 1, 1_000_000),
  RISK_NETWORK_VELOCITY: integer(100, 1, 1_000_000),
  RISK_STUFFING_WINDOW_SECONDS: integer(3600, 60, 604_800),
  RISK_STUFFING_DEVICE_LOGINS: integer(6, 2, 1_000_000),
  RISK_STUFFING_NETWORK_LOGINS: integer(20, 2, 1_000_000),
  RISK_STUFFING_FINGERPRINT_LOGINS: integer(20, 2, 1_000_000),
  RISK_USER_FAILURES: integer(3, 1, 1_000_000),
  // Second factor and notifications
  SECOND_FACTOR_TTL_SECONDS: integer(300, 30, 3600),
  SECOND_FACTOR_MAX_ATTEMPTS: integer(5, 1, 20),
  NOTIFIER: text(), // log on a loopback http issuer, else none
  NOTIFIER_WEBHOOK_URL: text(),
  NOTIFIER_WEBHOOK_SECRET: text(),
  SMTP_URL: text(),
  MAIL_FROM: text(),
  OUTBOX_POLL_SECONDS: integer(2, 1, 3600),
  // Webhooks (src/domain/webhooks/): 0 sends none from this instance
  WEBHOOK_POLL_SECONDS: integer(5, 0, 3600),
  WEBHOOK_CONCURRENCY: integer(16, 1, 256),
  // Back-channel logout
  BACKCHANNEL_LOGOUT_TIMEOUT_SECONDS: integer(5, 1, 60),
  BACKCHANNEL_LOGOUT_MAX_ATTEMPTS: integer(5, 1, 20),
  BACKCHANNEL_LOGOUT_RETRY_SECONDS: integer(10, 1, 3600),
  BACKCHANNEL_LOGOUT_POLL_SECONDS: integer(5, 1, 3600),
  // Admin API and processes
  ADMIN_API_TOKEN: text(),
  WORKERS: integer(1, 1, 64),
  // Device authorization grant (RFC 8628)
  DEVICE_CODE_TTL_SECONDS: integer(600, 60, 3600),
  DEVICE_CODE_INTERVAL_SECONDS: integer(5, 1, 60),
  USER_CODE_IP_FREE_ATTEMPTS: integer(10, 0, 1_000_000),
  DEVICE_AUTHORIZATION_IP_PER_MINUTE: integer(30, 0, 1_000_000),
  DEVICE_AUTHORIZATION_CLIENT_PER_MINUTE: integer(600, 0, 1_000_000),
  // Pushed and signed authorization requests (RFC 9126, RFC 9101)
  PAR_REQUEST_URI_TTL_SECONDS: integer(60, 5, 600),
  REQUIRE_PUSHED_AUTHORIZATION_REQUESTS: boolean(false),
  PAR_IP_PER_MINUTE: integer(60, 0, 1_000_000),
  PAR_CLIENT_PER_MINUTE: integer(600, 0, 1_000_000),
  // Sender-constrained tokens (RFC 9449)
  DPOP_NONCE_REQUIRED: boolean(false),
  DPOP_PROOF_MAX_AGE_SECONDS: integer(120, 10, 600),
  // Dynamic client registration (RFC 7591, RFC 7592)
  REGISTRATION_INITIAL_ACCESS_TOKEN: text(),
  REGISTRATION_OPEN: boolean(false),
  REGISTRATION_IP_FREE_ATTEMPTS: integer(10, 0, 1_000_000),
  REGISTRATION_CLIENT_SECRET_TTL_SECONDS: integer(0, 0, 315_360_000),
  // Operations
  METRICS_PORT: unsetInteger(0, 65535), // 0: a port the kernel picks, logged (as PORT=0)
  METRICS_TOKEN: text(),
  METRICS_HOST: text(), // HOST
  SHUTDOWN_DRAIN_SECONDS: integer(0, 0, 300),
  SHUTDOWN_TIMEOUT_SECONDS: integer(10, 1, 600),
  HSTS_MAX_AGE_SECONDS: integer(31_536_000, 0, 63_072_000),
  TRUST_PROXY: text(),
  // Outbound requests (src/outbound/)
  OUTBOUND_ALLOW_NETWORKS: text(),
  // DNS servers asked for TXT records (organization domain verification); empty: the system's
  DNS_RESOLVERS: text(),
} as const satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;

type NamesWhere<S> = { [K in SettingName]: (typeof SETTINGS)[K] extends S ? K : never }[SettingName];
/** Settings read as whole numbers with a default. */
export type IntegerSetting = NamesWhere<{ type: 'integer'; default: number }>;
/** Settings read as whole numbers, unset by default. */
export type UnsetIntegerSetting = NamesWhere<{ type: 'integer'; default: null }>;
export type BooleanSetting = NamesWhere<{ type: 'boolean' }>;
export type TextSetting = NamesWhere<{ type: 'text' }>;
