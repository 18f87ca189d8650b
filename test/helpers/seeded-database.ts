// A database of its own for a storage test, migrated and seeded with FIXTURES (test/helpers/app.ts), dropped after it.
import type { Test } from 'tap';
import type { Config } from '../../src/config.js';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { applySeed } from '../../src/domain/admin/seed.js';
import type { Db } from '../../src/storage/database.js';
import { findUserByUsername } from '../../src/storage/users.js';
import { ALICE, FIXTURES, testConfig } from './app.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export interface SeededDatabase {
  config: Config;
  database: TestDatabase;
  db: Db;
  /** ALICE's user id. */
  aliceId: string;
}

export async function seededTestDatabase(t: Test): Promise<SeededDatabase> {
  const config = testConfig();
  const database = await createTestDatabase();
  t.teardown(() => database.drop());
  const db = database.handle.db;
  await applySeed(db, new PasswordHasher(config.argon2), FIXTURES);
  const aliceId = (await findUserByUsername(db, ALICE.username))!.id;
  return { config, database, db, aliceId };
}
