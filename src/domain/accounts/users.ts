// Users: password sign-in and the claims released to clients.
import type { Locale } from '../../i18n/catalog.js';
import type { UserRow } from '../../storage/schema.js';
import type { ClaimsUser } from '../../storage/user-claim-columns.js';
import { findUserById, rememberLocale } from '../../storage/users.js';
import { epochSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import type { UserClaim } from '../claims.js';
import { claimNamesFor } from '../scope.js';
import { checkDirectoryLogin, checkDirectoryUser, isDirectoryUser } from '../directories/directory-sign-in.js';

/** The longest login or password we hash; longer input is refused before any work is spent. */
export const MAX_CREDENTIAL_LENGTH = 1024;

/**
 * The user if the password is theirs; undefined otherwise. The user is the one the login named (looked up with the
 * attempt's risk statement), or none: an unknown login spends the same argon2 work as a known one, so that timing
 * does not reveal which accounts exist. A directory user's password is checked by their directory; with `login`
 * (the password form), a login no local user has is looked for in the directories (src/domain/directories/), and
 * a refusal there spends the argon2 work too. Throws DirectoryUnavailable when a directory cannot answer.
 */
export async function checkPassword(
  ctx: ProviderContext,
  user: UserRow | undefined,
  password: string,
  login?: string,
): Promise<UserRow | undefined> {
  if (password.length > MAX_CREDENTIAL_LENGTH) return undefined;
  if (user && user.disabled_at === null && !isDirectoryUser(user))
    return (await ctx.passwords.verify(user.password_hash, password)) ? user : undefined;
  const found = await directoryPassword(ctx, user, password, login);
  if (!found) await ctx.passwords.verifyNothing(password);
  return found;
}

/** A directory user's password, or a login no local user has looked for in the directories. */
function directoryPassword(ctx: ProviderContext, user: UserRow | undefined, password: string, login: string | undefined) {
  if (user) return user.disabled_at === null ? checkDirectoryUser(ctx, user, password) : undefined;
  return login === undefined ? undefined : checkDirectoryLogin(ctx, login.trim(), password);
}

/** A user as stored (the vocabulary the pages and the admin's actions share). */
export type User = UserRow;

/** The user with this id; undefined once deleted. */
export function findUser(ctx: Pick<ProviderContext, 'db'>, userId: string): Promise<User | undefined> {
  return findUserById(ctx.db, userId);
}

/** The username of a signed-in user, for pages that say who is acting (the consent page); undefined once deleted. */
export async function usernameOf(ctx: ProviderContext, userId: string): Promise<string | undefined> {
  return (await findUserById(ctx.db, userId))?.username;
}

/** The language the user asked a page in, remembered for the mails no page of theirs queues (and the `locale` claim). */
export async function rememberUserLocale(ctx: ProviderContext, userId: string, locale: Locale | undefined): Promise<void> {
  if (locale) await rememberLocale(ctx.db, userId, locale);
}

/**
 * One OIDC Core 5.1 claim of a user, or undefined when they have none. The stored claims (seeded, or mapped from an
 * upstream provider or directory) give most; these few come from the user's own columns.
 */
function claimValue(user: ClaimsUser, name: UserClaim): unknown {
  const stored = user.claims as Record<string, unknown>;
  switch (name) {
    case 'preferred_username':
      return stored.preferred_username ?? user.username;
    case 'email':
      return user.email ?? undefined;
    case 'email_verified':
      return user.email === null ? undefined : user.email_verified;
    case 'updated_at':
      return epochSeconds(user.updated_at);
    case 'locale':
      // OIDC Core 5.1 locale: a claim an admin seeded wins; else the language the user last chose a page in, as
      // Keycloak's "locale" mapper releases its locale attribute in the profile scope.
      return stored.locale ?? user.locale ?? undefined;
    case 'groups':
      return groupsOf(stored, user.local_groups);
    default:
      return Object.hasOwn(stored, name) ? stored[name] : undefined;
  }
}

/** The most group names one user's `groups` claim carries: a directory with thousands would bloat every token. */
export const MAX_GROUPS = 100;

const isGroupName = (g: unknown): g is string => typeof g === 'string' && g.length > 0;

/**
 * The user's groups (the `groups` scope): the sorted union of their groups here (`local`, read with the token when
 * the scope was granted) and the names an upstream provider or directory mapped into their claims, at most
 * MAX_GROUPS. Both are read back from the database, so their shape is checked here, not trusted: upstream names are
 * taken only when the stored claim is a list of names.
 */
export function groupsOf(claims: Record<string, unknown>, local?: unknown): string[] | undefined {
  const groups = claims.groups;
  const upstream = Array.isArray(groups) && groups.every(isGroupName) ? groups : [];
  const here = Array.isArray(local) ? local.filter(isGroupName) : [];
  const names = [...new Set([...upstream, ...here])].sort();
  return names.length === 0 ? undefined : names.slice(0, MAX_GROUPS);
}

/** `sub` plus the claims the granted scopes release (OIDC Core 5.4), omitting those the user lacks. */
export function claimsForScopes(user: ClaimsUser, scopes: readonly string[]): Record<string, unknown> {
  return { sub: user.id, ...scopeClaims(user, scopes) };
}

/** The claims the granted scopes release (OIDC Core 5.4), without `sub`, omitting those the user lacks. */
export function scopeClaims(user: ClaimsUser, scopes: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Only the released claims are worked out (the groups list is sorted only when the scope asks for it): this runs
  // for every ID token and every userinfo request.
  for (const name of claimNamesFor(scopes)) {
    if (name === 'sub') continue;
    const value = claimValue(user, name);
    if (value !== undefined && value !== null) out[name] = value;
  }
  return out;
}
