// Builds the ProviderContext: the server (src/app.ts), the risk eval and the tests share one recipe, so that a
// dependency added to the context is added everywhere at once.
import type { Config } from '../config.js';
import { createMetrics, type Metrics } from '../metrics.js';
import { dnsTxtLookup, type TxtLookup } from '../outbound/dns-txt.js';
import { systemOutbound, type OutboundDeps } from '../outbound/guarded-fetch.js';
import type { Db } from '../storage/database.js';
import { ClientCache } from './clients/client-cache.js';
import { ClientKeySets, fetchClientJwks } from './clients/client-jwks.js';
import { SecretVerificationCache } from './clients/clients.js';
import { loadSubjectIdentifiers } from './clients/pairwise.js';
import type { Clock } from './clock.js';
import type { EventLog, ProviderContext } from './context.js';
import { loadKeyStore, type KeyLogger } from './keys/keys.js';
import { PasswordHasher } from './accounts/passwords.js';
import { PasswordPolicy } from './accounts/password-policy.js';
import { loadDeviceSecret } from './risk/device-secret.js';
import { RandomSource } from './secrets.js';

export interface ContextParts {
  config: Config;
  db: Db;
  clock: Clock;
  log: EventLog & KeyLogger;
  /** How long a verified client secret is remembered; CLIENT_AUTH_CACHE_SECONDS unless told. */
  clientAuthCacheMs?: number;
  /** The instance's metrics; a registry of its own unless the caller shares one (the server's metrics listener). */
  metrics?: Metrics;
  /** The resolver and extra CA certificates of outbound requests; the system's unless told (tests inject theirs). */
  outbound?: OutboundDeps;
  /** TXT lookups; DNS_RESOLVERS's servers unless told (a test may give its own). */
  dns?: TxtLookup;
}

/** Loads the signing keys and the device secret (generating them on a new database). Close `keys` when done. */
export async function createProviderContext(p: ContextParts): Promise<ProviderContext> {
  const outbound = p.outbound ?? systemOutbound;
  return {
    config: p.config,
    db: p.db,
    clock: p.clock,
    keys: await loadKeyStore(p.db, p.config, p.clock, p.log),
    passwords: new PasswordHasher(p.config.argon2, { limits: p.config.passwordWork, serverSecret: p.config.keysEncryptionSecret }),
    passwordPolicy: new PasswordPolicy(p.config.passwordPolicy),
    random: new RandomSource(),
    clientSecrets: new SecretVerificationCache(p.clientAuthCacheMs ?? p.config.clientAuthCacheSeconds * 1000),
    clients: new ClientCache(),
    clientKeySets: new ClientKeySets((uri) => fetchClientJwks(p.config, outbound, uri)),
    deviceSecret: await loadDeviceSecret(p.db, p.config, p.clock),
    subjects: await loadSubjectIdentifiers(p.db, p.clock),
    log: p.log,
    metrics: p.metrics ?? createMetrics(),
    outbound,
    dns: p.dns ?? dnsTxtLookup(p.config.dnsResolvers),
  };
}
