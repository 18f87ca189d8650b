// The signing keys as an operator handles them: a store of the test's own for server processes (a migrated data
// folder on PGlite, or an unmigrated database on TEST_DATABASE_URL's server) and `sso-admin keys` run on it.
import type { Test } from 'tap';
import { runAdmin } from './admin-cli.js';
import { createTestDatabase, migratedDataFolder, onServer } from './database.js';

export const KEYS_SECRET = 'operator-secret-0123456789-ABCDEFGHIJ';
export const WRONG_KEYS_SECRET = 'not-the-operator-secret-0123456789-xyz';

/** The environment that points a child process at a key store of this test's own; removed in teardown. */
export async function keyStore(t: Test): Promise<Record<string, string>> {
  if (onServer) {
    const database = await createTestDatabase({ migrate: false });
    await database.handle.close();
    t.teardown(() => database.drop());
    return { DATABASE_URL: database.url! };
  }
  return { DATA_DIR: await migratedDataFolder(t) };
}

/** `sso-admin keys rotate ...args --yes` with `env` (in this process, which opens and closes the store). */
export function rotateKeys(args: string[], env: Record<string, string>) {
  return runAdmin(['keys', 'rotate', ...args, '--yes'], { LOG_LEVEL: 'warn', ...env });
}
