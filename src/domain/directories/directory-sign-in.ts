// The password check for directory users, as Keycloak's user federation does it: a user provisioned from a
// directory is checked by a bind as their entry (found again by its stable identifier, so a moved entry still
// signs in); a login no local user has is searched in the directories in order, and a found entry whose bind
// succeeds becomes a local user, linked. Each sign-in refreshes the mapped attributes.
import { emitEmailChanged, endPendingEmailChanges } from '../accounts/email-change.js';
import { randomUUID } from 'node:crypto';
import type { Entry } from 'ldapts';
import { findLink, findLinkOfUser, insertLink, touchLink, findDirectory } from '../../storage/directories.js';
import type { UserRow } from '../../storage/schema.js';
import { findUserByEmail, findUserById, insertUserIfAbsent, updateUser } from '../../storage/users.js';
import type { ProviderContext } from '../context.js';
import { emitUserEvent } from '../webhooks/emit.js';
import type { Db } from '../../storage/database.js';
import { directoryFromRow, enabledDirectories } from './directories.js';
import { DIRECTORY_CLAIMS, type DirectoryEntry } from './directory-settings.js';
import { entryProfile, externalIdValue, isBinaryId, requestedAttributes, type EntryProfile } from './entry-profile.js';
import { groupSearchFilter, idFilter, userSearchFilter } from './filters.js';
import { withDirectory, type Directory, type LdapSession } from './ldap-session.js';

/**
 * The local password hash of a directory user: not an argon2 encoding, so argon2 can never verify it (its parser
 * refuses it); it also marks the user as one whose password the directory holds.
 */
export const DIRECTORY_PASSWORD_HASH = '!directory';

/** The user's password is their directory's to check and to change. */
export function isDirectoryUser(user: Pick<UserRow, 'password_hash'>): boolean {
  return user.password_hash === DIRECTORY_PASSWORD_HASH;
}

type Check = { kind: 'found'; profile: EntryProfile } | { kind: 'absent' } | { kind: 'refused' };

/** The entry's groups by the directory's group search, if it has one: names from name_attribute. */
async function searchedGroups(session: LdapSession, directory: DirectoryEntry, dn: string): Promise<string[]> {
  const search = directory.group_search;
  if (!search) return [];
  const found = await session.search(search.base, groupSearchFilter(search.filter, dn), [search.name_attribute], [], 1000);
  if (found === 'too-many') return [];
  return found.flatMap((group) => {
    const key = Object.keys(group).find((k) => k.toLowerCase() === search.name_attribute.toLowerCase());
    const value = key === undefined ? undefined : group[key];
    return (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(String);
  });
}

/** Binds as the one entry found, after reading its groups (the service account's reads, before the bind). */
async function bindAsEntry(session: LdapSession, directory: DirectoryEntry, entry: Entry, password: string): Promise<Check> {
  const profile = entryProfile(directory, entry, await searchedGroups(session, directory, entry.dn));
  if (!profile) return { kind: 'absent' };
  return (await session.bindAs(entry.dn, password)) ? { kind: 'found', profile } : { kind: 'refused' };
}

/** The one entry a filter finds; several are as none (the login would be ambiguous). */
async function oneEntry(session: LdapSession, directory: DirectoryEntry, filter: string): Promise<Entry | undefined> {
  const mapping = directory.attributes;
  const binary = isBinaryId(mapping.id_attribute) ? [mapping.id_attribute] : [];
  const found = await session.search(directory.user_base, filter, requestedAttributes(mapping), binary, 1);
  return found !== 'too-many' && found.length === 1 ? found[0] : undefined;
}

/** A typed login searched in one directory, and the password bound with when one entry has it. */
function checkLogin(directory: Directory, login: string, password: string): Promise<Check> {
  return withDirectory(directory, async (session) => {
    const entry = await oneEntry(session, directory.entry, userSearchFilter(directory.entry.user_filter, login));
    return entry ? bindAsEntry(session, directory.entry, entry, password) : { kind: 'absent' };
  });
}

/** The entry of a linked user (by its identifier, else by their username), and the password bound with. */
function checkLinked(directory: Directory, externalId: string, username: string, password: string): Promise<Check> {
  const entry = directory.entry;
  const idAttribute = entry.attributes.id_attribute;
  return withDirectory(directory, async (session) => {
    const byId = await oneEntry(session, entry, idFilter(idAttribute, externalIdValue(externalId, idAttribute)));
    const found = byId ?? (await oneEntry(session, entry, userSearchFilter(entry.user_filter, username)));
    if (!found) return { kind: 'absent' };
    const check = await bindAsEntry(session, entry, found, password);
    // Found by username, it must still be the entry the user was provisioned from.
    return check.kind === 'found' && check.profile.externalId !== externalId ? { kind: 'absent' } : check;
  });
}

/**
 * What a directory says of a login, as a sign-in would find it (service bind, user search, group search) but
 * without any password: for `sso-admin directories test`. Undefined when no single entry matches.
 */
export function lookUpLogin(directory: Directory, login: string): Promise<EntryProfile | undefined> {
  return withDirectory(directory, async (session) => {
    const entry = await oneEntry(session, directory.entry, userSearchFilter(directory.entry.user_filter, login));
    return entry && entryProfile(directory.entry, entry, await searchedGroups(session, directory.entry, entry.dn));
  });
}

/** The user's columns from the entry; the username stays what it was provisioned as. */
async function refresh(ctx: ProviderContext, user: UserRow, directoryId: string, profile: EntryProfile): Promise<UserRow> {
  const now = ctx.clock();
  const claims = { ...withoutMapped(user.claims), ...profile.claims };
  const email = await emailFor(ctx, profile.email, user.id);
  const emailVerified = email !== null && profile.emailVerified;
  await touchLink(ctx.db, directoryId, profile.externalId, profile.dn, now);
  // Written only when the entry changed: updated_at is the OIDC Core 5.1 claim of when the profile last changed.
  if (email === user.email && emailVerified === user.email_verified && sameClaims(claims, user.claims)) return user;
  await ctx.db.transaction().execute(async (trx: Db) => {
    await updateUser(trx, user.id, { email, email_verified: emailVerified, claims: JSON.stringify(claims), updated_at: now });
    // Issue 38: an address the directory changed ends the pending changes (as an admin's does) and is announced. It
    // counts as verified only when the admin said the directory's addresses are (attributes.email_verified): the
    // directory holds this user's password already, so trusting its address gives it nothing more.
    if (email !== user.email) {
      await endPendingEmailChanges(ctx, trx, user.id);
      await emitEmailChanged(ctx, trx, user, { email, previous: user.email, verified: emailVerified, via: 'directory' });
    }
    await emitUserEvent(
      ctx,
      trx,
      'user.updated',
      { ...user, email },
      { changes: changedFields(user, email, emailVerified, claims), via: 'directory' },
    );
  });
  return (await findUserById(ctx.db, user.id)) ?? user;
}

/** The names of the fields a directory refresh changed, for user.updated. */
function changedFields(user: UserRow, email: string | null, emailVerified: boolean, claims: Record<string, unknown>): string[] {
  const claimNames = new Set([...Object.keys(claims), ...Object.keys(user.claims)]);
  return [
    ...(email !== user.email ? ['email'] : []),
    ...(emailVerified !== user.email_verified ? ['email_verified'] : []),
    ...[...claimNames].filter((k) => JSON.stringify(claims[k]) !== JSON.stringify(user.claims[k])).sort(),
  ];
}

/** Equal claims whatever their key order (values are strings and lists of strings). */
function sameClaims(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a).sort();
  return JSON.stringify(keys) === JSON.stringify(Object.keys(b).sort()) && keys.every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));
}

const MAPPED_CLAIMS = new Set<string>([...DIRECTORY_CLAIMS, 'groups']);

/** The claims a directory maps, dropped before the entry's are written (an attribute removed is a claim removed). */
function withoutMapped(claims: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(claims).filter(([name]) => !MAPPED_CLAIMS.has(name)));
}

/**
 * The entry's address, unless another user has it: a directory must never take over a local account by naming its
 * address (the local account's owner has not proven anything here), so the user is kept without one.
 */
async function emailFor(ctx: ProviderContext, email: string | null, userId: string | null): Promise<string | null> {
  if (email === null) return null;
  const holder = await findUserByEmail(ctx.db, email);
  if (holder && holder.id !== userId) {
    ctx.log.warn({ event: 'directory_email_taken', userId }, 'a directory entry names an address another user has: not copied');
    return null;
  }
  return email;
}

/** A new local user from the entry, linked to it; undefined when its username is another user's. */
async function provision(ctx: ProviderContext, directoryId: string, profile: EntryProfile): Promise<UserRow | undefined> {
  const linked = await findLink(ctx.db, directoryId, profile.externalId);
  if (linked) {
    const user = await findUserById(ctx.db, linked.user_id);
    return user && user.disabled_at === null ? refresh(ctx, user, directoryId, profile) : undefined;
  }
  const now = ctx.clock();
  const id = randomUUID();
  const email = await emailFor(ctx, profile.email, null);
  const created = await ctx.db.transaction().execute(async (trx) => {
    const inserted = await insertUserIfAbsent(trx, {
      id,
      username: profile.username,
      password_hash: DIRECTORY_PASSWORD_HASH,
      email,
      email_verified: email !== null && profile.emailVerified,
      claims: JSON.stringify(profile.claims),
      created_at: now,
      updated_at: now,
    });
    if (!inserted) return false;
    await emitUserEvent(ctx, trx, 'user.created', { id, username: profile.username, email }, { via: 'directory' });
    const row = { directory_id: directoryId, external_id: profile.externalId, user_id: id, dn: profile.dn, last_synced_at: now };
    if (!(await insertLink(trx, row))) throw new LinkRace();
    return true;
  });
  if (!created) {
    // The username (or, at the same moment, the address) is a local user's who is not this entry's.
    ctx.log.warn({ event: 'directory_username_taken', directory: directoryId }, 'a directory entry names a username another user has');
    return undefined;
  }
  ctx.log.info({ event: 'directory_user_provisioned', directory: directoryId, userId: id }, 'user provisioned from a directory');
  return findUserById(ctx.db, id);
}

/** Two first sign-ins of one entry at once: the other one linked it; its user is used. */
class LinkRace extends Error {}

/**
 * The password of a user provisioned from a directory, checked by a bind as their entry. Undefined for a wrong
 * password, an entry gone, a directory removed or disabled. Throws DirectoryUnavailable when the directory cannot
 * answer.
 */
export async function checkDirectoryUser(ctx: ProviderContext, user: UserRow, password: string): Promise<UserRow | undefined> {
  const link = await findLinkOfUser(ctx.db, user.id);
  const row = link && (await findDirectory(ctx.db, link.directory_id));
  if (!link || !row || !row.enabled) return undefined;
  const directory = await directoryFromRow(ctx, row);
  const check = await checkLinked(directory, link.external_id, user.username, password);
  return check.kind === 'found' ? refresh(ctx, user, row.id, check.profile) : undefined;
}

/**
 * A login no local user has, searched in the enabled directories in order: the first to hold it decides. Its
 * entry's user when the bind as the entry succeeds (provisioned the first time); undefined otherwise. Throws
 * DirectoryUnavailable when a directory searched cannot answer: an absent login cannot be told from one held by
 * the directory that did not answer.
 */
export async function checkDirectoryLogin(ctx: ProviderContext, login: string, password: string): Promise<UserRow | undefined> {
  for (const directory of await enabledDirectories(ctx)) {
    const check = await checkLogin(directory, login, password);
    if (check.kind === 'absent') continue;
    if (check.kind === 'refused') return undefined;
    try {
      return await provision(ctx, directory.entry.id, check.profile);
    } catch (err) {
      if (!(err instanceof LinkRace)) throw err;
      return provision(ctx, directory.entry.id, check.profile);
    }
  }
  return undefined;
}
