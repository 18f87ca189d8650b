// Browser sign-in sessions: a random id in a cookie, its digest in the sessions table.
import { insertSession, findActiveSession, type ActiveSession } from '../../storage/sessions.js';
import type { Db } from '../../storage/database.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { sha256 } from '../secrets.js';

export interface SessionOrigin {
  /** The device record the user signed in from (src/domain/risk/), when known. */
  deviceId?: string | null;
  /** How the user signed in (OIDC Core 2 `amr`); a password alone by default. */
  amr?: string[];
  /** Its authentication context class (OIDC Core 2 `acr`), when one is known (an upstream's, passed on). */
  acr?: string | null;
}

/** A new session: the cookie value (secret) and the session as the domain sees it. */
export async function createSession(
  ctx: ProviderContext,
  userId: string,
  authTime: Date,
  origin: SessionOrigin = {},
  db: Db = ctx.db,
): Promise<{ cookie: string; session: ActiveSession }> {
  const deviceId = origin.deviceId ?? null;
  const amr = origin.amr ?? ['pwd'];
  const acr = origin.acr ?? null;
  const id = ctx.random.token();
  // The sid goes to every client in ID and logout tokens: random, unrelated to the cookie.
  const sid = ctx.random.token(16);
  const now = ctx.clock();
  await insertSession(db, {
    idHash: sha256(id),
    sid,
    userId,
    authTime,
    createdAt: now,
    expiresAt: addSeconds(now, ctx.config.sessionTtlSeconds),
    deviceId,
    amr,
    acr,
  });
  return { cookie: id, session: { sid, userId, authTime, deviceId, amr, acr } };
}

export async function resolveSession(ctx: ProviderContext, cookieValue: string | undefined): Promise<ActiveSession | undefined> {
  if (!cookieValue) return undefined;
  return findActiveSession(ctx.db, sha256(cookieValue), ctx.clock());
}
