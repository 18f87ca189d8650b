// Every relative link in README.md and docs/*.md points at a file that exists, and every #anchor at a heading of
// that file (as GitHub makes heading anchors: lower case, punctuation dropped, spaces to hyphens, -1, -2 for repeats).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGES = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced code blocks, where links and headings are markdown. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && !line.startsWith('```');
  });
}

export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(text)) {
    const heading = /^#{1,6} (.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

export function brokenLinks(page: string, text: string, read: (file: string) => string | undefined): string[] {
  const broken: string[] = [];
  for (const line of prose(text)) {
    for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // https:, mailto: ...
      const [file, anchor] = target!.split('#', 2) as [string, string | undefined];
      const resolved = file === '' ? page : path.normalize(path.join(path.dirname(page), file));
      const content = read(resolved);
      if (content === undefined) broken.push(`${page}: ${target} (no file ${resolved})`);
      else if (anchor !== undefined && resolved.endsWith('.md') && !headingAnchors(content).has(anchor)) {
        broken.push(`${page}: ${target} (no heading #${anchor} in ${resolved})`);
      }
    }
  }
  return broken;
}

function readProjectFile(file: string): string | undefined {
  const full = path.join(ROOT, file);
  if (!existsSync(full)) return undefined;
  return file.endsWith('.md') ? readFileSync(full, 'utf8') : '';
}

t.test('every relative link and anchor in README.md and docs/ resolves', async (t) => {
  t.ok(PAGES.length > 5, 'docs/ holds the reference pages');
  for (const page of PAGES) t.same(brokenLinks(page, readFileSync(path.join(ROOT, page), 'utf8'), readProjectFile), [], page);
});

t.test('the check finds a missing file, a missing anchor and a repeated heading anchor', async (t) => {
  const pages: Record<string, string> = { 'docs/a.md': '# A\n## Same\n## Same\n```\n## Not a heading\n```\n' };
  const read = (file: string) => pages[file];
  t.same(brokenLinks('README.md', '[x](docs/a.md#same-1) [y](docs/a.md#a)', read), []);
  t.equal(brokenLinks('README.md', '[x](docs/b.md)', read).length, 1, 'a missing file');
  t.equal(brokenLinks('README.md', '[x](docs/a.md#same-2)', read).length, 1, 'a missing anchor');
  t.equal(brokenLinks('README.md', '[x](docs/a.md#not-a-heading)', read).length, 1, 'a heading inside a code block is none');
  t.same(brokenLinks('README.md', '[x](https://example.com/#nothing)', read), [], 'external links are not checked');
});

t.test('README.md is a landing page of at most 300 lines', async (t) => {
  t.ok(readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length <= 300);
});
