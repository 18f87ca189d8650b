// Browser sign-in sessions: a random id in a cookie, its digest in the sessions table.
import { insertSession, findActiveSession, type ActiveSession } from '../storage/sessions.js';
import { addSeconds } from './clock.js';
import type { ProviderContext } from './context.js';
import { randomToken, sha256 } from './secrets.js';

export async function createSession(ctx: ProviderContext, userId: string, authTime: Date): Promise<string> {
  const id = randomToken();
  const now = ctx.clock();
  await insertSession(ctx.db, {
    idHash: sha256(id),
    userId,
    authTime,
    createdAt: now,
    expiresAt: addSeconds(now, ctx.config.sessionTtlSeconds),
  });
  return id;
}

export async function resolveSession(ctx: ProviderContext, cookieValue: string | undefined): Promise<ActiveSession | undefined> {
  if (!cookieValue) return undefined;
  return findActiveSession(ctx.db, sha256(cookieValue), ctx.clock());
}
