// The directories as stored: each row's settings validated again when read (JSON read back is never trusted as
// is), its service account's password opened from its sealed envelope, in the order sign-ins search them.
import { findDirectory, listDirectories, upsertDirectory } from '../../storage/directories.js';
import { FREE_FORM_V1, readVersioned, type VersionedShapes } from '../../storage/json-shape.js';
import type { DirectoryRow } from '../../storage/schema.js';
import { openSecret, sealSecret, type SealingContext } from '../keys/sealed-secrets.js';
import { directoryProblems, normaliseDirectory, type DirectoryEntry, type DirectoryInput } from './directory-settings.js';
import { DirectoryUnavailable } from './directory-unavailable.js';
import type { Directory } from './ldap-session.js';

/**
 * Version 1 of directories.settings: the checked entry's fields but its id, name, order and state, stored without
 * `v` as before versions were kept (an older instance refuses a field it does not know); checked again in full by
 * directoryProblems once read. A row that does not fit is a directory that cannot answer a sign-in (503, logged with
 * the reason), and that `directories show` and `list` refuse, saying why.
 */
export const DIRECTORY_SETTINGS: VersionedShapes<Record<string, unknown>> = { 1: FREE_FORM_V1 };

/** A stored row that no longer passes the checks (edited by hand, written by another version). */
export class StoredDirectoryInvalid extends Error {
  constructor(
    readonly directoryId: string,
    readonly reason: string,
  ) {
    super(`directory "${directoryId}" is stored with settings that are not valid (${reason}): add it again`);
    this.name = 'StoredDirectoryInvalid';
  }
}

/** The checked entry of a row (its bind password stays sealed). */
export function entryFromRow(row: DirectoryRow): DirectoryEntry {
  const settings = readVersioned(row.settings, DIRECTORY_SETTINGS, 'settings');
  if (!settings.ok) throw new StoredDirectoryInvalid(row.id, settings.reason);
  const raw = { ...settings.value, id: row.id, display_name: row.display_name, enabled: row.enabled, order: row.position };
  const problems = directoryProblems(raw, false);
  if (problems.length > 0) throw new StoredDirectoryInvalid(row.id, problems.join('; '));
  return normaliseDirectory(raw);
}

/**
 * The row's entry and its opened bind password: what a connection needs. A row that does not fit is a directory
 * that cannot answer (DirectoryUnavailable), never a 500.
 */
export async function directoryFromRow(ctx: SealingContext, row: DirectoryRow): Promise<Directory> {
  let entry: DirectoryEntry;
  try {
    entry = entryFromRow(row);
  } catch (err) {
    if (err instanceof StoredDirectoryInvalid) throw new DirectoryUnavailable(row.id, `StoredDirectoryInvalid: ${err.reason}`);
    throw err;
  }
  const password = await openSecret(ctx, 'directory-bind', row.id, row.bind_password_sealed);
  return { entry, bindPassword: password.toString('utf8') };
}

/** The enabled directories, in the order a sign-in searches them. */
export async function enabledDirectories(ctx: SealingContext): Promise<Directory[]> {
  const rows = (await listDirectories(ctx.db)).filter((row) => row.enabled);
  return Promise.all(rows.map((row) => directoryFromRow(ctx, row)));
}

/** One directory by id, enabled or not; undefined when there is none. */
export async function directoryById(ctx: SealingContext, id: string): Promise<Directory | undefined> {
  const row = await findDirectory(ctx.db, id);
  return row && directoryFromRow(ctx, row);
}

/**
 * Stores a checked entry (the caller ran directoryProblems), its bind password sealed with the directory's id as
 * authenticated data; replaces every field of an existing one. True when it was new.
 */
export async function saveDirectory(ctx: SealingContext, input: DirectoryInput, now: Date): Promise<boolean> {
  const { bind_password, ...rest } = input;
  const entry = normaliseDirectory(rest);
  const { id, display_name, enabled, order, ...settings } = entry;
  const sealed = await sealSecret(ctx, 'directory-bind', id, Buffer.from(bind_password, 'utf8'));
  return upsertDirectory(
    ctx.db,
    id,
    {
      display_name,
      enabled,
      position: order,
      settings: settings as unknown as Record<string, unknown>,
      bind_password_sealed: sealed,
    },
    now,
  );
}
