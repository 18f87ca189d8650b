// The suite's own layout: tap runs test/groups/*.test.ts, each of which runs the files of a folder (or a share of
// them) in one process, so a test file that no group runs would never run. Each file must be in exactly one group's
// share, but test/ha/, which needs Patroni, etcd and HAProxy and runs on its own (npm run test:ha).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { share, TEST_DIR, testFiles } from '../helpers/test-group.js';

const relative = (file: string) => path.relative(TEST_DIR, file);
const GROUP = /runTestFiles\((?:share\(testFiles\('([\w/-]+)'\), (\d+), (\d+)\)|testFiles\('([\w/-]+)'\))\)/;

const pkg = JSON.parse(readFileSync(path.join(TEST_DIR, '..', 'package.json'), 'utf8')) as {
  tap: { include: string[] };
  scripts: Record<string, string>;
};
const OWN_COMMAND = 'ha/';

t.test('tap runs test/groups/ and nothing else', async (t) => {
  t.same(pkg.tap.include, ['test/groups/*.test.ts']);
});

t.test('npm run test:ha runs test/ha/, which npm test leaves out', async (t) => {
  t.equal(pkg.scripts['test:ha'], 'tap test/ha/*.test.ts');
  t.ok(testFiles('ha').length > 0, 'test/ha/ has tests');
});

t.test('every test file runs in exactly one group', async (t) => {
  const runs = new Map<string, string[]>();
  for (const group of readdirSync(path.join(TEST_DIR, 'groups')).filter((f) => f.endsWith('.test.ts'))) {
    const match = GROUP.exec(readFileSync(path.join(TEST_DIR, 'groups', group), 'utf8'));
    if (!match) throw new Error(`test/groups/${group} runs no folder`);
    const [, sharedFolder, n, of, wholeFolder] = match;
    const files = sharedFolder ? share(testFiles(sharedFolder), Number(n), Number(of)) : testFiles(wholeFolder!);
    for (const file of files) runs.set(relative(file), [...(runs.get(relative(file)) ?? []), group]);
  }
  const grouped = testFiles('.').filter((file) => !relative(file).startsWith('groups/') && !relative(file).startsWith(OWN_COMMAND));
  t.ok(grouped.length > 50, `${grouped.length} files to group`);
  for (const file of grouped)
    t.same(runs.get(relative(file))?.length, 1, `${relative(file)} runs in one group: ${runs.get(relative(file))}`);
  t.same(
    [...runs.keys()].filter((f) => !grouped.map(relative).includes(f)),
    [],
    'no group runs anything else',
  );
});
