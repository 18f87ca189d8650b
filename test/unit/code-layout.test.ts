// docs/layout.md names every folder of src/: a folder added without a line there fails here.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { TEST_DIR } from '../helpers/test-group.js';

const ROOT = path.join(TEST_DIR, '..');
const layout = readFileSync(path.join(ROOT, 'docs', 'layout.md'), 'utf8');

function folders(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const folder = `${dir}/${entry.name}`;
      return [folder, ...folders(folder)];
    });
}

t.test('docs/layout.md names every folder of src/', async (t) => {
  const all = folders('src');
  t.ok(all.length > 30, `${all.length} folders`);
  for (const folder of all) t.ok(layout.includes(`${folder}/`), `${folder}/ is in docs/layout.md`);
});

t.test('docs/layout.md names no folder src/ does not have', async (t) => {
  const all = new Set(folders('src'));
  for (const [named] of layout.matchAll(/\bsrc\/[a-z0-9/-]+\//g)) {
    const folder = named.slice(0, -1);
    t.ok(all.has(folder), `${named} exists`);
  }
});
