// An AdminContext for tests that call the admin services directly (groups, organizations, connections): the
// configuration, the database, a silent log, and a stand-in for argon2 that keeps seed runs quick (each verifies every
// password); nobody signs in with its hashes.
import pino from 'pino';
import type { Config } from '../../src/config.js';
import { PasswordPolicy } from '../../src/domain/accounts/password-policy.js';
import type { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import type { AdminContext } from '../../src/domain/admin/admin.js';
import type { Db } from '../../src/storage/database.js';

/** Hashes a password as `plain:PASSWORD`; for seed files applied in tests that never sign in. */
export const PLAIN_PASSWORDS = {
  hash: async (plain: string) => `plain:${plain}`,
  verify: async (hash: string, plain: string) => hash === `plain:${plain}`,
} as unknown as PasswordHasher;

/** A provider-wide admin context on `db` (the `system` actor unless `overrides` name one). */
export function adminContext(db: Db, config: Config, overrides: Partial<AdminContext> = {}): AdminContext {
  return {
    config,
    db,
    clock: () => new Date(),
    log: pino({ level: 'silent' }),
    passwords: PLAIN_PASSWORDS,
    passwordPolicy: new PasswordPolicy(config.passwordPolicy),
    ...overrides,
  };
}
