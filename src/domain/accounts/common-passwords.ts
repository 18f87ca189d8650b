// The bundled list of common breached passwords (NIST SP 800-63B 5.1.1.2: "passwords obtained from previous breach
// corpuses"), checked offline. assets/common-passwords.txt holds them sorted, lower-cased and NFKC-normalised, one per
// line (scripts/common-passwords.ts builds it; assets/README.md names the sources). In memory the list is that one
// string plus a Uint32Array of where each line starts: about 1.3 MB for 112,000 entries, where a Set of strings
// takes several times that. A lookup is a binary search over the lines, without slicing more than one entry per step.
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../project-root.js';

const LIST_FILE = path.join(PROJECT_ROOT, 'assets', 'common-passwords.txt');

/** How a password is compared with the list: NFKC (NIST SP 800-63B 5.1.1.2), then lower case. */
export function normalisedPassword(password: string): string {
  return password.normalize('NFKC').toLowerCase();
}

export class CommonPasswordList {
  private constructor(
    private readonly text: string,
    private readonly starts: Uint32Array,
  ) {}

  /** The list in a file made by scripts/common-passwords.ts (sorted, one entry per line, ending with a newline). */
  static load(file: URL | string = LIST_FILE): CommonPasswordList {
    const text = fs.readFileSync(file, 'utf8');
    let count = 0;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
    const starts = new Uint32Array(count + 1);
    let line = 0;
    starts[0] = 0;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts[++line] = i + 1;
    return new CommonPasswordList(text, starts);
  }

  get size(): number {
    return this.starts.length - 1;
  }

  /** True when the password, normalised and lower-cased, is on the list. */
  has(password: string): boolean {
    const wanted = normalisedPassword(password);
    let low = 0;
    let high = this.size - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const entry = this.text.slice(this.starts[mid], this.starts[mid + 1]! - 1);
      if (entry === wanted) return true;
      if (entry < wanted) low = mid + 1;
      else high = mid - 1;
    }
    return false;
  }
}
