// An app whose database statements are counted, for tests that pin how many round trips a request costs.
import type { FastifyInstance } from 'fastify';
import type { KyselyPlugin } from 'kysely';
import pino from 'pino';
import type { Test } from 'tap';
import { buildApp } from '../../src/app.js';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { applySeed, type SeedFile } from '../../src/domain/admin/seed.js';
import { testConfig } from './app.js';
import { createTestDatabase } from './database.js';
import type { Db } from '../../src/storage/database.js';

/** Counts the statements the app sends to its database (each one result). */
export function countingPlugin(): KyselyPlugin & { count: number } {
  const plugin = {
    count: 0,
    transformQuery: (args: { node: never }) => args.node,
    transformResult: async (args: { result: never }) => {
      plugin.count += 1;
      return args.result;
    },
  };
  return plugin as unknown as KyselyPlugin & { count: number };
}

/** An app on a database of its own, seeded with `seed`, with no periodic job that could send a statement meanwhile. */
export async function buildCountingApp(
  t: Test,
  seed: SeedFile,
): Promise<{ app: FastifyInstance; counter: KyselyPlugin & { count: number }; db: Db; advance(seconds: number): void }> {
  const config = testConfig({ PURGE_INTERVAL_SECONDS: '0', BACKCHANNEL_LOGOUT_POLL_SECONDS: '3600', WEBHOOK_POLL_SECONDS: '0' });
  const database = await createTestDatabase();
  t.teardown(() => database.drop());
  await applySeed(database.handle.db, new PasswordHasher(config.argon2), seed);
  const counter = countingPlugin();
  let offsetMs = 0;
  const app = await buildApp(config, {
    db: database.handle.db.withPlugin(counter),
    logger: pino({ level: 'silent' }),
    clock: () => new Date(Date.now() + offsetMs),
    notifier: null,
  });
  t.teardown(() => app.close());
  await app.ready();
  return {
    app,
    counter,
    /** The database without the counter: what a test reads or changes beside the app. */
    db: database.handle.db,
    advance(seconds: number) {
      offsetMs += seconds * 1000;
    },
  };
}
