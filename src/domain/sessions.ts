// Browser sign-in sessions: a random id in a cookie, its digest in the sessions table.
import { insertSession, findActiveSession, type ActiveSession } from '../storage/sessions.js';
import { addSeconds } from './clock.js';
import type { ProviderContext } from './context.js';
import { randomToken, sha256 } from './secrets.js';

/** A new session: the cookie value (secret) and the session as the domain sees it. */
export async function createSession(ctx: ProviderContext, userId: string, authTime: Date): Promise<{ cookie: string; session: ActiveSession }> {
  const id = randomToken();
  // The sid goes to every client in ID and logout tokens: random, unrelated to the cookie.
  const sid = randomToken(16);
  const now = ctx.clock();
  await insertSession(ctx.db, {
    idHash: sha256(id),
    sid,
    userId,
    authTime,
    createdAt: now,
    expiresAt: addSeconds(now, ctx.config.sessionTtlSeconds),
  });
  return { cookie: id, session: { sid, userId, authTime } };
}

export async function resolveSession(ctx: ProviderContext, cookieValue: string | undefined): Promise<ActiveSession | undefined> {
  if (!cookieValue) return undefined;
  return findActiveSession(ctx.db, sha256(cookieValue), ctx.clock());
}
