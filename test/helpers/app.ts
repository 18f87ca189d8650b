// Builds the app on a test database with a test config and seeded fixtures; torn down with the test.
import type { SamlCredentials } from '../../src/domain/saml/credentials.js';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Test } from 'tap';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Clock } from '../../src/domain/clock.js';
import type { Notifier } from '../../src/domain/notifications/notifier.js';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { applySeed, type SeedFile } from '../../src/domain/admin/seed.js';
import { openKeyCipher } from '../../src/domain/keys/key-encryption.js';
import { generateSigningKey, type GeneratedKey } from '../../src/domain/keys/key-generation.js';
import { generateSamlKey, StoredSamlCredentials, type GeneratedSamlKey, type SamlKeyContext } from '../../src/domain/keys/saml-keys.js';
import { sealSecret } from '../../src/domain/keys/sealed-secrets.js';
import { SIGNING_ALGS } from '../../src/domain/keys/signing-algs.js';
import { insertSigningKey } from '../../src/storage/signing-keys.js';
import { insertSamlKey, listSamlKeys, withSamlKeysLock } from '../../src/storage/saml-keys.js';
import { createMetrics, type Metrics } from '../../src/metrics.js';
import type { OutboundDeps } from '../../src/outbound/guarded-fetch.js';
import type { LazySchemaCompilers } from '../../src/http/lazy-schema-compilers.js';
import { openDatabase, type Db } from '../../src/storage/database.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { madeOncePerRun } from './temp-cache.js';

/** How long a run's keys are kept in the temp folder (test/helpers/temp-cache.ts) before they are made anew. */
const DAY_MS = 86_400_000;

export const CONFIDENTIAL = {
  client_id: 'app',
  client_secret: 'app-secret: with+plus %percent and spaces',
  client_name: 'Test App',
  redirect_uris: ['https://app.example/cb', 'https://app.example/cb2?keep=1'],
};
export const SINGLE_REDIRECT = {
  client_id: 'single',
  client_secret: 'single-secret-0123456789',
  client_name: 'Single Redirect App',
  redirect_uris: ['https://single.example/cb'],
};
export const PUBLIC = {
  client_id: 'spa',
  client_name: 'Public SPA',
  token_endpoint_auth_method: 'none' as const,
  redirect_uris: ['https://spa.example/cb'],
};
export const ALICE = {
  username: 'alice',
  password: 'correct horse battery staple',
  email: 'alice@example.com',
  email_verified: true,
  name: 'Alice Liddell',
  given_name: 'Alice',
  family_name: 'Liddell',
  phone_number: '+44 20 7946 0000',
};
export const BOB = { username: 'bob', password: 'bob-password-123', email: 'bob@example.com', name: 'Bob' };

export const FIXTURES: SeedFile = { clients: [CONFIDENTIAL, SINGLE_REDIRECT, PUBLIC], users: [ALICE, BOB] };

/** The cheapest argon2 parameters the config accepts (OWASP's m=7 MiB, t=5), to keep tests quick. */
export const TEST_ENV = {
  BASE_URL: 'http://localhost:3000',
  LOG_LEVEL: 'silent',
  ARGON2_MEMORY_KIB: '7168',
  ARGON2_TIME_COST: '5',
};

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ ...TEST_ENV, ...env });
}

export interface TestApp {
  app: FastifyInstance;
  db: Db;
  config: Config;
  database: TestDatabase;
  /** The app's metrics (its GET /metrics). */
  metrics: Metrics;
  /** Moves the app's clock forward. */
  advance(seconds: number): void;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  seed?: SeedFile;
  clock?: Clock;
  logger?: pino.Logger;
  /** Delivers one-time codes and notices (a capturing one, say); null leaves them in the outbox. */
  notifier?: Notifier | null;
  /** The resolver and extra trusted CAs of requests to clients (a test CA, say); the system's unless told. */
  outbound?: OutboundDeps;
  /** How the routes' schemas are compiled (src/http/lazy-schema-compilers.ts); the app makes its own unless told. */
  schemaCompilers?: LazySchemaCompilers;
  /** The SAML key pairs (issue 39) a saml connection signs and decrypts with. */
  samlCredentials?: SamlCredentials;
}

// Each test app starts with a key per algorithm and the fixtures' hashed passwords. Making them anew for every app
// cost about a fifth of the http tests' CPU (two RSA key pairs, four argon2 hashes); they are made once per test
// process and stored in each new database, as the server's start would store its own (src/domain/keys/key-rotation.ts).
// The keys are made once per run even (test/helpers/temp-cache.ts): some 0.4 s of CPU in each of twenty processes.
let signingKeys: Promise<GeneratedKey[]> | undefined;
const hashes = new Map<string, Promise<string>>();

/** The first start's keys, active at `now`, sealed as the config says (encrypted under KEYS_ENCRYPTION_SECRET). */
async function presetSigningKeys(db: Db, config: Config, now: Date): Promise<void> {
  const keys = await (signingKeys ??= madeOncePerRun(`signing-keys-${SIGNING_ALGS.join('-')}-v1`, DAY_MS, () =>
    Promise.all(SIGNING_ALGS.map(generateSigningKey)),
  ));
  const cipher = await openKeyCipher(db, config.keysEncryptionSecret, [], now);
  for (const key of keys) {
    await insertSigningKey(db, { ...key, privateJwk: cipher.seal(key.kid, key.privateJwk), createdAt: now, activatesAt: now });
  }
}

// The identity provider's SAML key (issue 39) is made on first use in each database (src/domain/keys/saml-keys.ts):
// an RSA key pair and a certificate, some 0.2 s of CPU, which the SAML tests paid for nearly every app they built. A
// key is made once per run and issuer host instead (the certificate names the host, not the port), and stored in
// a database that has none on its first use, as the first use would have stored its own; a database that has keys
// already (a test rotated first, say) is left as it is.
const samlKeys = new Map<string, Promise<GeneratedSamlKey>>();

/** The database's SAML credentials, as buildApp makes them unless told, with the process's key as the first one. */
function presetSamlCredentials(ctx: SamlKeyContext): SamlCredentials {
  const stored = new StoredSamlCredentials(ctx);
  let preset: Promise<void> | undefined;
  const presetOnce = () =>
    (preset ??= (async () => {
      if ((await listSamlKeys(ctx.db)).length > 0) return;
      const { issuer } = ctx.config;
      const host = new URL(issuer).hostname;
      if (!samlKeys.has(host)) {
        const make = () => generateSamlKey(issuer, new Date());
        samlKeys.set(host, madeOncePerRun(`saml-idp-key-${host.replace(/[^\w.-]/g, '_')}-v1`, DAY_MS, make));
      }
      const key = await samlKeys.get(host)!;
      const now = ctx.clock();
      const privateKey = await sealSecret(ctx, 'saml-key', key.id, Buffer.from(key.privateKeyPem, 'utf8'));
      await withSamlKeysLock(ctx.db, async (trx) => {
        if ((await listSamlKeys(trx)).length > 0) return;
        await insertSamlKey(trx, { id: key.id, privateKey, certificatePem: key.certificatePem, createdAt: now, activatesAt: now });
      });
    })());
  return {
    signing: async () => (await presetOnce(), stored.signing()),
    published: async () => (await presetOnce(), stored.published()),
    decryption: async () => (await presetOnce(), stored.decryption()),
  };
}

/** A hasher that hashes each seeded password once per process (a salted argon2id hash verifies in any database). */
function rememberingHasher(config: Config): PasswordHasher {
  const hasher = new PasswordHasher(config.argon2);
  const hash = hasher.hash.bind(hasher);
  hasher.hash = (plain: string) => {
    const key = `${JSON.stringify(config.argon2)}\n${plain}`;
    if (!hashes.has(key)) hashes.set(key, hash(plain));
    return hashes.get(key)!;
  };
  return hasher;
}

/** Applies a seed file's entries to a database from this process, as `npm run seed` would. */
export async function seedDatabase(db: Db, seed: SeedFile): Promise<void> {
  await applySeed(db, rememberingHasher(testConfig()), seed);
}

/**
 * Seeds a migrated PGlite data folder (migratedDataFolder) from this process, before a child opens it: spawning
 * `npm run seed` costs some three seconds of CPU, and test/storage/seed.test.ts runs the script itself.
 */
export async function seedDataFolder(dir: string, seed: SeedFile): Promise<void> {
  const handle = await openDatabase({ dataDir: dir, poolMax: 1 });
  try {
    await seedDatabase(handle.db, seed);
  } finally {
    await handle.close();
  }
}

export async function buildTestApp(t: Test, options: TestAppOptions = {}): Promise<TestApp> {
  const config = testConfig(options.env);
  const database = await createTestDatabase();
  let offsetMs = 0;
  const clock: Clock = options.clock ?? (() => new Date(Date.now() + offsetMs));
  await applySeed(database.handle.db, rememberingHasher(config), options.seed ?? FIXTURES, new Date(), {
    keysEncryptionSecret: config.keysEncryptionSecret,
  });
  await presetSigningKeys(database.handle.db, config, clock());
  const metrics = createMetrics();
  const app = await buildApp(config, {
    db: database.handle.db,
    logger: options.logger ?? pino({ level: 'silent' }),
    clock,
    notifier: options.notifier,
    metrics,
    outbound: options.outbound,
    schemaCompilers: options.schemaCompilers,
    samlCredentials: options.samlCredentials ?? presetSamlCredentials({ db: database.handle.db, clock, config }),
  });
  await app.ready();
  t.teardown(async () => {
    await app.close();
    await database.drop();
  });
  return {
    app,
    db: database.handle.db,
    config,
    database,
    metrics,
    advance(seconds: number) {
      offsetMs += seconds * 1000;
    },
  };
}
