// The seed file's `directories` section: each entry checked as `sso-admin directories add` checks it (every problem
// named with its index), then stored with its bind password sealed; an unchanged entry is not written again.
import { findDirectory } from '../../storage/directories.js';
import { KeyEncryptionError } from '../keys/key-encryption.js';
import type { SealingContext } from '../keys/sealed-secrets.js';
import { directoryFromRow, saveDirectory } from './directories.js';
import { directoryProblems, normaliseDirectory, type DirectoryInput } from './directory-settings.js';
import { DirectoryUnavailable } from './directory-unavailable.js';

export interface DirectorySeedCounts {
  created: number;
  updated: number;
  unchanged: number;
}

/** The section's entries when it is there (problems pushed onto `problems`); undefined when the file has none. */
export function checkDirectories(raw: unknown, problems: string[]): DirectoryInput[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) {
    problems.push('"directories" must be an array');
    return undefined;
  }
  const ids = new Set<string>();
  raw.forEach((entry, i) => {
    const label = typeof entry?.id === 'string' ? `directories[${i}] (id "${entry.id}")` : `directories[${i}]`;
    for (const problem of directoryProblems(entry)) problems.push(`${label}: ${problem}`);
    if (typeof entry?.id === 'string') {
      if (ids.has(entry.id)) problems.push(`directory "${entry.id}" appears more than once`);
      ids.add(entry.id);
    }
  });
  return raw as DirectoryInput[];
}

/** True when the stored directory is the entry already, bind password included. */
async function unchanged(sealing: SealingContext, input: DirectoryInput): Promise<boolean> {
  const row = await findDirectory(sealing.db, input.id);
  if (!row) return false;
  try {
    const stored = await directoryFromRow(sealing, row);
    const { bind_password, ...entry } = input;
    return stored.bindPassword === bind_password && JSON.stringify(stored.entry) === JSON.stringify(normaliseDirectory(entry));
  } catch (err) {
    // A password sealed under another secret, or settings no longer valid (DirectoryUnavailable): written anew.
    if (err instanceof KeyEncryptionError || err instanceof DirectoryUnavailable) return false;
    throw err;
  }
}

/** Stores each entry (in the seed's transaction: `sealing.db`); directories missing from the file are left alone. */
export async function seedDirectories(sealing: SealingContext, entries: DirectoryInput[], now: Date): Promise<DirectorySeedCounts> {
  const counts: DirectorySeedCounts = { created: 0, updated: 0, unchanged: 0 };
  for (const input of entries) {
    if (await unchanged(sealing, input)) counts.unchanged += 1;
    else if (await saveDirectory(sealing, input, now)) counts.created += 1;
    else counts.updated += 1;
  }
  return counts;
}
