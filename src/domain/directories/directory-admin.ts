// Adding, showing, testing and removing directories by hand (`sso-admin directories`): the seed file's entry and
// rules (directory-settings.ts). A removed directory's users stay, unlinked, with no password they can sign in with.
import { countLinks, deleteDirectory, findDirectory, listDirectories } from '../../storage/directories.js';
import { inAdminTransaction, logAdminAction, NOT_RECORDED, type AdminContext } from '../admin/admin.js';
import { AdminError } from '../admin-error.js';
import { directoryById, entryFromRow as readEntry, saveDirectory, StoredDirectoryInvalid } from './directories.js';
import { directoryProblems, type DirectoryEntry, type DirectoryInput } from './directory-settings.js';
import { lookUpLogin } from './directory-sign-in.js';
import { DirectoryUnavailable } from './directory-unavailable.js';
import type { EntryProfile } from './entry-profile.js';

/** The row's entry; one stored unreadably is refused with its reason (an AdminError, never a 500). */
function entryFromRow(row: Parameters<typeof readEntry>[0]): DirectoryEntry {
  try {
    return readEntry(row);
  } catch (err) {
    if (err instanceof StoredDirectoryInvalid) throw new AdminError(err.message, 'conflict');
    throw err;
  }
}

/** An entry as the admin sees it: never its bind password; how many users it provisioned. */
export type DirectorySummary = DirectoryEntry & { linked_users: number };

/** Refuses an entry that the seed file would refuse; for checking a command line before the database opens. */
export function checkDirectoryInput(input: unknown): asserts input is DirectoryInput {
  const problems = directoryProblems(input);
  const id = (input as { id?: unknown } | null)?.id;
  if (problems.length > 0) throw new AdminError(`directory "${String(id)}" was refused: ${problems.join('; ')}`);
}

export async function listDirectorySummaries(ctx: AdminContext): Promise<DirectorySummary[]> {
  const [rows, links] = await Promise.all([listDirectories(ctx.db), countLinks(ctx.db)]);
  return rows.map((row) => ({ ...entryFromRow(row), linked_users: links.get(row.id) ?? 0 }));
}

export async function showDirectory(ctx: AdminContext, id: string): Promise<DirectorySummary> {
  const row = await findDirectory(ctx.db, id);
  if (!row) throw new AdminError(`no directory "${id}"`, 'not_found');
  return { ...entryFromRow(row), linked_users: (await countLinks(ctx.db)).get(id) ?? 0 };
}

/** Adds the directory, or replaces every field of the one of that id (its bind password sealed anew). */
export async function addDirectory(ctx: AdminContext, input: DirectoryInput): Promise<{ entry: DirectorySummary; created: boolean }> {
  checkDirectoryInput(input);
  return inAdminTransaction(ctx, async (trx, tctx) => {
    const created = await saveDirectory(tctx, input, ctx.clock());
    const { bind_password: _secret, ...fields } = input;
    await logAdminAction(ctx, trx, {
      event: created ? 'admin.directory.added' : 'admin.directory.replaced',
      target: { type: 'directory', id: input.id },
      changes: { ...fields, bind_password: NOT_RECORDED },
      log: { directory: input.id },
    });
    return { entry: await showDirectory(tctx, input.id), created };
  });
}

export async function removeDirectory(ctx: AdminContext, id: string): Promise<void> {
  await inAdminTransaction(ctx, async (trx) => {
    if (!(await deleteDirectory(trx, id))) throw new AdminError(`no directory "${id}"`, 'not_found');
    await logAdminAction(ctx, trx, { event: 'admin.directory.removed', target: { type: 'directory', id }, log: { directory: id } });
  });
}

/**
 * Binds as the service account and searches the login as a sign-in would; what the entry maps to, or undefined
 * when no single entry matches. No password is asked or sent. A directory that does not answer is an AdminError
 * naming the failure's class (never the directory's message, which can hold DNs and filters).
 */
export async function testDirectory(ctx: AdminContext, id: string, login: string): Promise<EntryProfile | undefined> {
  const directory = await directoryById(ctx, id);
  if (!directory) throw new AdminError(`no directory "${id}"`);
  try {
    return await lookUpLogin(directory, login);
  } catch (err) {
    if (err instanceof DirectoryUnavailable) throw new AdminError(`directory "${id}" did not answer (${err.errorClass})`);
    throw err;
  }
}
