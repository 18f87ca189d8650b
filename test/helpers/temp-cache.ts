// Test material that costs CPU to make and is the same for every test process of a run (RSA keys, say): the first
// process to make it leaves it in the temp folder, as test/helpers/database.ts leaves its PGlite dump, and the others
// read it. Test keys only, never kept in the repository; made anew once the file is older than `maxAgeMs`.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** What `make` returns (JSON), read from `sso-test-<name>.json` in the temp folder when a process made it lately. */
export async function madeOncePerRun<T>(name: string, maxAgeMs: number, make: () => Promise<T>): Promise<T> {
  const file = path.join(tmpdir(), `sso-test-${name}.json`);
  try {
    if (Date.now() - (await fs.stat(file)).mtimeMs <= maxAgeMs) return JSON.parse(await fs.readFile(file, 'utf8')) as T;
  } catch {
    // Not made yet (or being made by another process: both make it, the last rename wins, both are whole).
  }
  const made = await make();
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await fs.writeFile(partial, JSON.stringify(made), { mode: 0o600 });
  await fs.rename(partial, file);
  return made;
}
