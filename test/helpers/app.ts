// Builds the app on a test database with a test config and seeded fixtures; torn down with the test.
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Test } from 'tap';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Clock } from '../../src/domain/clock.js';
import type { Notifier } from '../../src/domain/notifications/notifier.js';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { applySeed, type SeedFile } from '../../src/domain/admin/seed.js';
import { createMetrics, type Metrics } from '../../src/metrics.js';
import type { OutboundDeps } from '../../src/outbound/guarded-fetch.js';
import type { Db } from '../../src/storage/database.js';
import { createTestDatabase, type TestDatabase } from './database.js';

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
}

export async function buildTestApp(t: Test, options: TestAppOptions = {}): Promise<TestApp> {
  const config = testConfig(options.env);
  const database = await createTestDatabase();
  let offsetMs = 0;
  const clock: Clock = options.clock ?? (() => new Date(Date.now() + offsetMs));
  await applySeed(database.handle.db, new PasswordHasher(config.argon2), options.seed ?? FIXTURES);
  const metrics = createMetrics();
  const app = await buildApp(config, {
    db: database.handle.db,
    logger: options.logger ?? pino({ level: 'silent' }),
    clock,
    notifier: options.notifier,
    metrics,
    outbound: options.outbound,
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
