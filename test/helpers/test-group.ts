// Runs the test files of a folder in one process. A test process costs about 2 s of CPU before its first test
// (node, the TypeScript loader, tap and its process tracking, the app's modules), more than most unit and http files
// spend testing; test/groups/*.test.ts gather those folders so that tap starts a few processes instead of a hundred.
// Every file still runs on its own too: `npx tap test/http/cors.test.ts`.
//
// The files load one after another, each once the one before has finished: a file that builds an app at its top
// level holds its database (a PGlite of some 2 s of CPU) only while its own tests run, and hands it on to the next.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';

export const TEST_DIR = path.resolve(import.meta.dirname, '..');

/** The test files under `folder` (relative to test/), sorted; `recursive: false` keeps to the folder itself. */
export function testFiles(folder: string, options: { recursive?: boolean } = {}): string[] {
  const dir = path.join(TEST_DIR, folder);
  return readdirSync(dir, { recursive: options.recursive ?? true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => path.join(dir, file))
    .sort();
}

/**
 * What a file costs, in seconds of a run of its group on a loaded two-core machine (each figure beside the others
 * measured under the same load: they weigh files against each other, they time nothing), for the files far from the
 * rest of their folder. A file not named here weighs DEFAULT_WEIGHT.
 */
const WEIGHTS: Readonly<Record<string, number>> = {
  // test/e2e/browser/ (7 December 2026, late: each share run on its own on a two-core machine that other test runs
  // kept at a load of 6 to 8, the console's German and French pages checked in one scheme each; the figures before
  // had device-flow at 28 and account at 58, which their runs no longer take, and left one share 90 s, another 73 s)
  'e2e/browser/accessibility-browser.test.ts': 39,
  'e2e/browser/browser.test.ts': 37,
  'e2e/browser/console-browser.test.ts': 34,
  'e2e/browser/upstream-oidc-browser.test.ts': 31,
  'e2e/browser/second-factor-browser.test.ts': 20,
  'e2e/browser/passkeys-browser.test.ts': 17,
  'e2e/browser/relying-party-libraries-browser.test.ts': 14,
  'e2e/browser/logout-browser.test.ts': 12,
  'e2e/browser/form-post-browser.test.ts': 11,
  'e2e/browser/account-browser.test.ts': 9,
  'e2e/browser/signup-browser.test.ts': 8,
  'e2e/browser/password-browser.test.ts': 7,
  'e2e/browser/device-flow-browser.test.ts': 5,
  'e2e/browser/self-registered-browser.test.ts': 2,
};

/**
 * On the embedded database only (TEST_DATABASE_URL unset, as test/helpers/database.ts reads it), in the same units:
 * the child-process files, some of which run only there (the admin socket) and some only on PostgreSQL (several
 * instances on one database, skipped here). On PostgreSQL they are not weighed yet, and are dealt in turn.
 */
const EMBEDDED_WEIGHTS: Readonly<Record<string, number>> = {
  // test/e2e/process/ (7 December 2026, late: each file run on its own, wall seconds on a two-core machine that other
  // test runs kept at a load of 6 to 8; npm-start's at a load of 11, rounded down). webhook-kill waits on deliveries
  // more than it computes (17 s of CPU), eval-risk computes all along (21 s). The three that need PostgreSQL skip here.
  'e2e/process/webhook-kill.test.ts': 58,
  'e2e/process/npm-start.test.ts': 45,
  'e2e/process/seed-script.test.ts': 35,
  'e2e/process/admin-cli-beside-server.test.ts': 34,
  'e2e/process/shutdown.test.ts': 33,
  'e2e/process/eval-risk.test.ts': 31,
  'e2e/process/server-process.test.ts': 29,
  'e2e/process/previous-release-on-new-schema.test.ts': 29,
  'e2e/process/admin-cli-process.test.ts': 26,
  'e2e/process/migrate-cli.test.ts': 20,
  'e2e/process/keys-server.test.ts': 19,
  'e2e/process/admin-npm-script.test.ts': 19,
  'e2e/process/multi-instance.test.ts': 1,
  'e2e/process/rolling-restart.test.ts': 1,
  'e2e/process/workers.test.ts': 1,
};
const DEFAULT_WEIGHT = 5;

function weightOf(file: string): number {
  const name = path.relative(TEST_DIR, file).split(path.sep).join('/');
  const embedded = (process.env.TEST_DATABASE_URL ?? '') === '';
  return (embedded ? EMBEDDED_WEIGHTS[name] : undefined) ?? WEIGHTS[name] ?? DEFAULT_WEIGHT;
}

/**
 * The `n`th of `of` shares of `files` (1-based), each share of about the same weight: the heaviest file first, each
 * to the share that weighs least so far (the lower one on a tie), so that no group waits on two slow files while
 * another has none. Files of equal weight are dealt in turn, in name order. Each share runs its files in name order.
 */
export function share(files: readonly string[], n: number, of: number): string[] {
  const loads = Array.from({ length: of }, () => 0);
  const owner = new Map<string, number>();
  const heaviestFirst = [...files].sort((a, b) => weightOf(b) - weightOf(a));
  for (const file of heaviestFirst) {
    const lightest = loads.indexOf(Math.min(...loads));
    loads[lightest]! += weightOf(file);
    owner.set(file, lightest);
  }
  return files.filter((file) => owner.get(file) === n - 1);
}

type Teardown = Parameters<typeof t.teardown>[0];
const rootTeardown = t.teardown.bind(t);

/** For what lives as long as the process (kept PGlite instances): torn down when the last file has finished. */
export function teardownAtProcessEnd(fn: Teardown): void {
  rootTeardown(fn);
}

/**
 * Runs each file in turn, as a subtest that imports it and a subtest that tears down what its top level set up. A
 * file's top-level `t` is tap's root: while the file loads, what it registers with `t.teardown` is kept for its own
 * tear-down subtest, which runs after the file's tests (they were queued before it) and then loads the next file.
 * There is always a subtest queued until the last file has finished, so tap does not end the run early.
 */
export async function runTestFiles(files: readonly string[]): Promise<void> {
  const runFrom = (index: number): void => {
    const file = files[index];
    if (file === undefined) return;
    const name = path.relative(TEST_DIR, file);
    const teardowns: Teardown[] = [];
    t.test(`${name} loads`, async () => {
      t.teardown = (fn: Teardown) => void teardowns.push(fn);
      try {
        await import(pathToFileURL(file).href);
      } finally {
        t.teardown = rootTeardown;
      }
      t.test(`${name} tears down`, async () => {
        for (const fn of teardowns.reverse()) await fn();
        runFrom(index + 1);
      });
    });
  };
  runFrom(0);
}
