// The web console's own session (docs/console.md): a random cookie value whose sha256 digest is the row's key,
// alive for CONSOLE_IDLE_SECONDS between uses and CONSOLE_ABSOLUTE_SECONDS in all (OWASP Session Management: idle
// and absolute timeouts), and the CSRF token its forms carry, derived from the cookie (so it needs no storage).
import { createHash } from 'node:crypto';
import {
  deleteConsoleSession,
  deleteDeadConsoleSessions,
  deleteUserConsoleSession,
  insertConsoleSession,
  listLiveConsoleSessions,
  touchConsoleSession,
  type LiveConsoleSessionRow,
} from '../../storage/console-sessions.js';
import type { AdminPrincipal } from '../admin/principal.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { randomToken, safeEqual, sha256 } from '../secrets.js';

/** An admin tool is left idle for no more than 30 minutes (OWASP ASVS 3.3.2 for higher-risk applications). */
export const CONSOLE_IDLE_SECONDS = 30 * 60;
/** However busy, a console session lasts a working day at most; then the person signs in again. */
export const CONSOLE_ABSOLUTE_SECONDS = 8 * 60 * 60;

/** Who is signed in to the console, as the management API's principal, with the names the pages show. */
export interface ConsolePerson {
  principal: Extract<AdminPrincipal, { kind: 'person' }>;
  username: string;
  /** The session cookie's value, from which the forms' CSRF token is derived. */
  cookie: string;
}

type SessionContext = Pick<ProviderContext, 'db' | 'clock'>;

/** Console sessions last used before this moment are idle, so ended (for the session lists' filter). */
export const consoleIdleSince = (now: Date): Date => addSeconds(now, -CONSOLE_IDLE_SECONDS);

/** The user's live console sessions, for the account page's list (the admin lists take them with the others). */
export async function liveConsoleSessionsOf(ctx: SessionContext, userId: string): Promise<LiveConsoleSessionRow[]> {
  const now = ctx.clock();
  return listLiveConsoleSessions(ctx.db, userId, now, consoleIdleSince(now));
}

/**
 * Starts a session for the user; returns the cookie value (the database keeps its digest only). Sessions past their
 * lifetimes are removed first: console sign-ins are rare, so the table stays small without a job of its own.
 */
export async function startConsoleSession(ctx: SessionContext, userId: string): Promise<string> {
  const value = randomToken();
  const now = ctx.clock();
  await deleteDeadConsoleSessions(ctx.db, now, consoleIdleSince(now));
  await insertConsoleSession(ctx.db, { idHash: sha256(value), userId, now, expiresAt: addSeconds(now, CONSOLE_ABSOLUTE_SECONDS) });
  return value;
}

/**
 * The person behind a cookie, when its session is alive, the user not disabled and still holding a role: a role
 * taken away (or changed to auditor) counts from the next request on.
 */
export async function resolveConsoleSession(ctx: SessionContext, cookie: string | undefined): Promise<ConsolePerson | undefined> {
  if (!cookie) return undefined;
  const now = ctx.clock();
  const holder = await touchConsoleSession(ctx.db, sha256(cookie), now, consoleIdleSince(now));
  if (!holder || holder.disabled_at !== null || (holder.role !== 'admin' && holder.role !== 'auditor')) return undefined;
  return { principal: { kind: 'person', userId: holder.user_id, role: holder.role }, username: holder.username, cookie };
}

/** The person ends one of their console sessions from the account page, by its public id; false: no such session. */
export async function endOwnConsoleSession(ctx: SessionContext, userId: string, sid: string): Promise<boolean> {
  return deleteUserConsoleSession(ctx.db, userId, sid);
}

export async function endConsoleSession(ctx: SessionContext, cookie: string | undefined): Promise<void> {
  if (cookie) await deleteConsoleSession(ctx.db, sha256(cookie));
}

export function consoleFormToken(cookie: string): string {
  return createHash('sha256').update('console-form\0').update(cookie).digest('base64url');
}

export function isConsoleFormToken(cookie: string, presented: string | undefined): boolean {
  return presented !== undefined && safeEqual(presented, consoleFormToken(cookie));
}
