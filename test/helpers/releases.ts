// The releases as CHANGELOG.md names them and the migrations' verdicts in migrations/compatibility.txt, read for the
// test that runs the previous release's code on the new schema (docs/upgrading.md).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_DIR } from './child-process.js';

export const CHANGELOG = path.join(PROJECT_DIR, 'CHANGELOG.md');
export const COMPATIBILITY = path.join(PROJECT_DIR, 'migrations', 'compatibility.txt');

const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?$/;

export interface Release {
  version: string;
  commit: string;
}

/** The `## x.y.z` sections of the changelog, newest first, each with the `Commit: <40 hex>` line it must carry. */
export function releases(changelog = readFileSync(CHANGELOG, 'utf8')): Release[] {
  const found: Release[] = [];
  for (const section of changelog.split(/^## /m).slice(1)) {
    const heading = section.slice(0, section.indexOf('\n'));
    if (heading.trim() === 'Unreleased') continue;
    const version = /^(\S+)/.exec(heading)![1]!;
    if (!SEMVER.test(version)) throw new Error(`CHANGELOG.md: "## ${heading}" is not a semantic version`);
    const commit = /^Commit: ([0-9a-f]{40})$/m.exec(section)?.[1];
    if (!commit) throw new Error(`CHANGELOG.md: release ${version} names no "Commit: <40 hex digits>" line`);
    found.push({ version, commit });
  }
  return found;
}

/** [major, minor, patch] of a semantic version. */
export function versionParts(version: string): [number, number, number] {
  const match = SEMVER.exec(version);
  if (!match) throw new Error(`${version} is not a semantic version`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

export type Verdict = 'compatible' | 'breaking';

/** migrations/compatibility.txt: migration name -> verdict. A line of any other shape is an error. */
export function verdicts(text = readFileSync(COMPATIBILITY, 'utf8')): Map<string, Verdict> {
  const found = new Map<string, Verdict>();
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(\d{14}_[a-z0-9_]+)\s+(compatible|breaking)$/.exec(line);
    if (!match) throw new Error(`migrations/compatibility.txt line ${i + 1}: "${line}" is not "<migration> compatible|breaking"`);
    if (found.has(match[1]!)) throw new Error(`migrations/compatibility.txt: ${match[1]} has two lines`);
    found.set(match[1]!, match[2] as Verdict);
  }
  return found;
}

/** git, in the project's folder; its output. */
export function git(args: string[]): string {
  return execFileSync('git', args, { cwd: PROJECT_DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024 });
}

/** Whether this clone holds the commit (a shallow clone may not). */
export function hasCommit(commit: string): boolean {
  try {
    git(['cat-file', '-e', `${commit}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

/** The migration names (without .sql) in the tree of a commit. */
export function migrationsAt(commit: string): string[] {
  return git(['ls-tree', '--name-only', `${commit}:migrations`])
    .split('\n')
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => f.replace(/\.sql$/, ''));
}
