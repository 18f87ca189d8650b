// Browser sign-in sessions: a random id in a cookie, its stored key (the moment, then its digest) in the sessions table.
import { insertSession, findActiveSession, type ActiveSession } from '../../storage/sessions.js';
import type { Db } from '../../storage/database.js';
import { addSeconds } from '../clock.js';

export type { ActiveSession };
import type { ProviderContext } from '../context.js';
import { storedKey } from '../secrets.js';

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
  const now = ctx.clock();
  // Both lead with the moment, so that each new session lands at the right edge of the sessions' indexes (and its
  // sid at that of session_clients' and refresh_tokens'), as codes and tokens do (RandomSource.timedToken).
  const id = ctx.random.timedToken(now);
  // The sid goes to every client in ID and logout tokens: random bits unrelated to the cookie's.
  const sid = ctx.random.timedToken(now, 16);
  await insertSession(db, {
    idHash: sessionKey(id),
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
  return findActiveSession(ctx.db, sessionKey(cookieValue), ctx.clock());
}

/**
 * The key a session's row is stored and found under, from the cookie's value: the moment and the digest for a timed
 * value, the plain digest for a cookie made before sessions were timed (it still finds its session).
 */
export function sessionKey(cookieValue: string): string {
  return storedKey(cookieValue);
}
