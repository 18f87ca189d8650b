// npm run common-passwords -- LIST...: rebuilds assets/common-passwords.txt, the breached-password list that
// src/domain/accounts/common-passwords.ts searches. Each input is a text file, one password per line (blank lines
// skipped). The output holds every entry once, NFKC-normalised and lower-cased (the check is case-insensitive),
// sorted by UTF-16 code units, one per line: the order a binary search with `<` expects. assets/README.md says
// which lists the shipped file was built from and under which licences.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalisedPassword } from '../src/domain/accounts/common-passwords.js';

const inputs = process.argv.slice(2);
if (inputs.length === 0) {
  process.stderr.write('usage: npm run common-passwords -- list.txt [more.txt ...]\n');
  process.exit(2);
}
const entries = new Set<string>();
for (const file of inputs) {
  for (const line of fs.readFileSync(file, 'utf8').split(/\r?\n/)) {
    const entry = normalisedPassword(line);
    if (entry.length > 0) entries.add(entry);
  }
}
const sorted = [...entries].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const out = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'assets', 'common-passwords.txt');
fs.writeFileSync(out, `${sorted.join('\n')}\n`);
process.stdout.write(`${sorted.length} passwords written to ${out}\n`);
