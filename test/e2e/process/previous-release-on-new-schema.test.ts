// A rolling upgrade runs the previous release's code on the schema the new code migrated (docs/upgrading.md). The
// previous release is the newest one CHANGELOG.md names, by its commit; its tree comes from this clone's history
// (never the network), with migrations/ replaced by this tree's migrations up to the first one marked `breaking` in
// migrations/compatibility.txt. A few of that release's own test files then run on it: each migrates a database of
// its own with those files (the new schema) and signs in, redeems codes, refreshes, introspects and revokes with the
// old code. Also checked: every migration since that release has a verdict, and no landed migration was edited.
import { execFileSync, spawn } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { shippedMigrations } from '../../../src/storage/migrate.js';
import { PROJECT_DIR, TEST_NODE_FLAGS } from '../../helpers/child-process.js';
import { CHANGELOG, git, hasCommit, migrationsAt, releases, verdicts, versionParts } from '../../helpers/releases.js';

/** The previous release's tests run on the new schema: the code flow through openid-client, and the token lifecycle. */
const OLD_TESTS = ['test/e2e/in-process/openid-client.test.ts', 'test/e2e/in-process/token-lifecycle.test.ts'];
/** What the old tests need of the old tree (its migrations/ is replaced). */
const OLD_TREE = ['src', 'test', 'assets', 'package.json', 'tsconfig.json'];
const RUN_MS = 400_000;

const previous = releases()[0];
const shipped = shippedMigrations();
const marked = verdicts();

t.test('CHANGELOG.md names the previous release by a commit this clone holds', async (t) => {
  t.ok(previous, 'CHANGELOG.md names at least one release (## x.y.z with a "Commit:" line)');
  if (!previous) return;
  t.ok(
    hasCommit(previous.commit),
    `commit ${previous.commit} of release ${previous.version} is in this clone: in a shallow clone run \`git fetch --unshallow\``,
  );
});

t.test("package.json's version is the newest release; a breaking migration is announced as such", async (t) => {
  const pkg = JSON.parse(readFileSync(path.join(PROJECT_DIR, 'package.json'), 'utf8')) as { version: string };
  t.doesNotThrow(() => versionParts(pkg.version), `${pkg.version} is a semantic version`);
  t.equal(pkg.version, previous?.version, 'package.json says the version CHANGELOG.md released last (it changes when a release is cut)');
  const unreleased = /^## Unreleased\n([\s\S]*?)(?=^## )/m.exec(readFileSync(CHANGELOG, 'utf8'))?.[1] ?? '';
  const breaking = /^### Breaking\n([\s\S]*?)(?=^##|$(?![\s\S]))/m.exec(unreleased)?.[1] ?? '';
  const landed = previous && hasCommit(previous.commit) ? migrationsAt(previous.commit) : [];
  for (const [name, verdict] of marked)
    if (verdict === 'breaking' && !landed.includes(name))
      t.match(breaking, name, `the Unreleased section's "### Breaking" names ${name}: the next release is a major one`);
});

t.test('every migration since the previous release is marked, and the landed ones are untouched', async (t) => {
  if (!previous || !hasCommit(previous.commit)) return t.fail('no previous release in this clone (see above)');
  const landed = migrationsAt(previous.commit);
  t.same(
    landed.filter((name) => !shipped.includes(name)),
    [],
    'no migration of the previous release was removed',
  );
  for (const name of landed) {
    const then = git(['show', `${previous.commit}:migrations/${name}.sql`]);
    const now = readFileSync(path.join(PROJECT_DIR, 'migrations', `${name}.sql`), 'utf8');
    if (then !== now) t.fail(`migrations/${name}.sql changed since ${previous.version}: a landed migration is never edited`);
  }
  const since = shipped.filter((name) => !landed.includes(name));
  t.same(
    since.filter((name) => !marked.has(name)),
    [],
    `each migration since ${previous.version} has a line in migrations/compatibility.txt (compatible or breaking)`,
  );
  t.same(
    [...marked.keys()].filter((name) => !shipped.includes(name)),
    [],
    'migrations/compatibility.txt names only migrations that exist',
  );
});

t.test("the previous release's code passes its own tests on the schema of the compatible migrations", async (t) => {
  if (!previous || !hasCommit(previous.commit)) return t.fail('no previous release in this clone (see above)');
  const landed = new Set(migrationsAt(previous.commit));
  const firstBreaking = shipped.findIndex((name) => !landed.has(name) && marked.get(name) === 'breaking');
  const schema = firstBreaking === -1 ? shipped : shipped.slice(0, firstBreaking);
  t.comment(`${previous.version} (${previous.commit.slice(0, 12)}) on ${schema.length} migrations, ${schema.length - landed.size} new`);

  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sso-previous-release-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const archive = path.join(dir, 'tree.tar');
  git(['archive', '--format=tar', '-o', archive, previous.commit, ...OLD_TREE]);
  execFileSync('tar', ['-xf', archive, '-C', dir]);
  await fs.rm(archive);
  await fs.mkdir(path.join(dir, 'migrations'));
  for (const name of schema)
    await fs.copyFile(path.join(PROJECT_DIR, 'migrations', `${name}.sql`), path.join(dir, 'migrations', `${name}.sql`));
  await fs.symlink(path.join(PROJECT_DIR, 'node_modules'), path.join(dir, 'node_modules'), 'dir');

  // The child is a plain node process running a tap file: none of this runner's own tap or loader settings.
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('TAP') && name !== 'NODE_OPTIONS') env[name] = value;
  env.TAP_TIMEOUT = String(RUN_MS / 1000);
  const results = await Promise.all(
    OLD_TESTS.map(async (file) => {
      await fs.access(path.join(dir, file)).catch(() => {
        throw new Error(`${file} is not in release ${previous.version}: name test files that release has`);
      });
      return runOld(dir, file, env);
    }),
  );
  for (const [i, result] of results.entries())
    t.equal(result.code, 0, `${previous.version}'s ${OLD_TESTS[i]} passes on the new schema (${result.seconds} s)`, {
      output: result.code === 0 ? undefined : result.tail,
    });
});

/** Runs one old test file with node (tsx), in the old tree; its exit code and the end of its output. */
function runOld(dir: string, file: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; tail: string; seconds: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TEST_NODE_FLAGS, '--import', 'tsx', file], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const started = Date.now();
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_MS);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, tail: output.split('\n').slice(-60).join('\n'), seconds: Math.round((Date.now() - started) / 1000) });
    });
  });
}
