// Runs the test files of a folder in one process. A test process costs about 2 s of CPU before its first test
// (node, the TypeScript loader, tap and its process tracking, the app's modules), more than most unit and http files
// spend testing; test/groups/*.test.ts gather those folders so that tap starts a few processes instead of a hundred.
// Every file still runs on its own too: `npx tap test/http/cors.test.ts`.
//
// A file's top-level `t` is tap's root, so what a file tears down at its top level (an app it builds once) is torn
// down when the group ends, not when the file does.
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

/** The `n`th of `of` shares of `files` (1-based), dealt in turn so that each share gets slow and quick files alike. */
export function share(files: readonly string[], n: number, of: number): string[] {
  return files.filter((_, i) => i % of === n - 1);
}

/**
 * Imports each file in turn: its tests join this process's run, in file order. tap ends a run as soon as no test
 * is pending, which a quick file would let happen while the next one still loads: a first test stays pending until
 * every file has added its own (so each file's top-level code runs before any test does).
 */
export async function runTestFiles(files: readonly string[]): Promise<void> {
  let loaded!: () => void;
  t.test(`${files.length} test files load`, () => new Promise<void>((resolve) => (loaded = resolve)));
  try {
    for (const file of files) await import(pathToFileURL(file).href);
  } finally {
    loaded();
  }
}
