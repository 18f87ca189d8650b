// npm run migrate takes no arguments: --help answers without touching a database, anything else is refused.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { runTs } from '../../helpers/child-process.js';

// An embedded database in a folder of its own: whether the script opened it shows on disk.
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sso-migrate-cli-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
const env = { DATA_DIR: dataDir, DATABASE_URL: '' };

t.test('--help prints the usage and exits 0 without opening the database', async (t) => {
  const run = await runTs('scripts/migrate.ts', ['--help'], env);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /^usage: npm run migrate/);
  t.notOk(existsSync(path.join(dataDir, 'pglite')), 'no database was created');
});

t.test('an argument it does not take is refused with exit 2, and nothing is migrated', async (t) => {
  const run = await runTs('scripts/migrate.ts', ['--dry-run'], env);
  t.equal(run.code, 2);
  t.match(run.stderr, /unknown argument: --dry-run/);
  t.notOk(existsSync(path.join(dataDir, 'pglite')), 'no database was created');
});

t.test('without arguments it migrates the embedded database', async (t) => {
  const run = await runTs('scripts/migrate.ts', [], env);
  t.equal(run.code, 0, run.stderr);
  t.ok(existsSync(path.join(dataDir, 'pglite')), 'the database is there');
});
