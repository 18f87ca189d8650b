// Everything the domain functions need, built once by buildApp and passed in (never global).
import type { Config } from '../config.js';
import type { Metrics } from '../metrics.js';
import type { Db } from '../storage/database.js';
import type { ClientCache } from './clients/client-cache.js';
import type { ClientKeySets } from './clients/client-jwks.js';
import type { SecretVerificationCache } from './clients/clients.js';
import type { SubjectIdentifiers } from './clients/pairwise.js';
import type { Clock } from './clock.js';
import type { KeyStore } from './keys/keys.js';
import type { OutboundDeps } from '../outbound/guarded-fetch.js';
import type { TxtLookup } from '../outbound/dns-txt.js';
import type { PasswordHasher } from './accounts/passwords.js';
import type { RandomSource } from './secrets.js';
import type { PasswordPolicy } from './accounts/password-policy.js';

/** The little of a pino logger the domain writes to (security events, notifications). */
export interface EventLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface ProviderContext {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
  readonly keys: KeyStore;
  readonly passwords: PasswordHasher;
  /** Random values for codes, tokens and session ids, drawn a pool at a time (domain/secrets.ts). */
  readonly random: RandomSource;
  /** What a new password must be; loads the breached-password list on its first check. */
  readonly passwordPolicy: PasswordPolicy;
  readonly clientSecrets: SecretVerificationCache;
  readonly clients: ClientCache;
  /** The key sets fetched from clients' jwks_uri (private_key_jwt), per instance. */
  readonly clientKeySets: ClientKeySets;
  /** Keys device fingerprints and network keys (DEVICE_SECRET, or a random secret kept in the database). */
  readonly deviceSecret: Buffer;
  /** The `sub` each client sees: the user id, or a pairwise one (OIDC Core 8.1). */
  readonly subjects: SubjectIdentifiers;
  readonly log: EventLog;
  /** This instance's Prometheus metrics (src/metrics.ts). */
  readonly metrics: Metrics;
  /** The resolver and trusted certificates of requests to clients and relays (src/outbound/guarded-fetch.ts). */
  readonly outbound: OutboundDeps;
  /** TXT lookups (DNS_RESOLVERS, src/outbound/dns-txt.ts): the records that prove organizations' domains. */
  readonly dns: TxtLookup;
}
