// "Forgot your password?": a link by email that lets the person set a new password. The answer to a request is the
// same whether or not an account matches (OWASP Forgot Password Cheat Sheet: "return a consistent message for both
// existent and non-existent accounts"), and so is its work: one statement that writes only when a user matches.
// The link holds 256 random bits, stored as a digest; it works once, for PASSWORD_RESET_TTL_SECONDS, while it is
// the newest, while the user is enabled and while the password is the one it was issued against. Requests are
// counted per network and per login in the database before any work. Setting the password asks first for the
// authenticator app's code when the user has one, and then signs the user out everywhere.
import type { Locale } from '../../i18n/catalog.js';
import type { ThrottlePolicy } from '../../config.js';
import { claimAttempt } from '../../storage/sign-in-throttle.js';
import { completePasswordReset, findUsableReset, issuePasswordReset, type UsableReset } from '../../storage/password-resets.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { claimNetworkCounter } from '../network-counter.js';
import { randomToken, sha256 } from '../secrets.js';
import { checkAuthenticatorCode } from './authenticator.js';
import type { PasswordProblem } from './password-policy.js';
import { lockRule, retryAfterSeconds } from './sign-in-throttle.js';
import { MAX_CREDENTIAL_LENGTH } from './users.js';
import type { Db } from '../../storage/database.js';
import { emitSessionsEnded, emitUserEventById } from '../webhooks/emit.js';

/** Requests from one network (IPv6: a /64): 20 free, then 1 minute, doubling up to an hour between requests. */
export const RESET_NETWORK_POLICY: ThrottlePolicy = Object.freeze({ freeAttempts: 20, lockBaseSeconds: 60, lockMaxSeconds: 3600 });
/** Requests naming one login, known or not: 3 free, then 5 minutes, doubling up to an hour (no mail flood). */
export const RESET_ACCOUNT_POLICY: ThrottlePolicy = Object.freeze({ freeAttempts: 3, lockBaseSeconds: 300, lockMaxSeconds: 3600 });

/** A link's token: 256 bits in base64url, nothing else. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const INTERACTION_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

export type ResetRequestResult = { kind: 'accepted' } | { kind: 'throttled'; retryAfterSeconds: number };

export function resetLinkUrl(issuer: string, token: string): string {
  return `${issuer}/account/reset?token=${token}`;
}

/**
 * Counts the request (network, then the login as typed), then issues a link and queues its mail when a user
 * matches. `accepted` says nothing about whether one did. Behind a proxy, where SIGN_IN_IP_FREE_ATTEMPTS is 0
 * because every request has the proxy's address, only the login is counted.
 */
export async function requestPasswordReset(
  ctx: ProviderContext,
  input: {
    login: string;
    ip: string;
    interactionId?: string | undefined;
    /** The page's language: the link's mail speaks it. */
    locale?: Locale | undefined;
  },
): Promise<ResetRequestResult> {
  const now = ctx.clock();
  const login = input.login.trim().toLowerCase();
  const network = await claimNetworkCounter(ctx, 'reset-ip', input.ip, ctx.config.signInThrottle.ip && RESET_NETWORK_POLICY);
  if (network.kind === 'throttled') return network;
  const accountKey = `reset-account:${sha256(login)}`;
  const count = await claimAttempt(ctx.db, {
    key: accountKey,
    now,
    expiresAt: addSeconds(now, ctx.config.signInThrottle.windowSeconds),
    rule: lockRule(RESET_ACCOUNT_POLICY),
  });
  if (count === undefined) return { kind: 'throttled', retryAfterSeconds: await retryAfterSeconds(ctx, accountKey, now) };
  if (login === '' || login.length > MAX_CREDENTIAL_LENGTH) return { kind: 'accepted' };
  const token = randomToken();
  const interactionId = input.interactionId && INTERACTION_PATTERN.test(input.interactionId) ? input.interactionId : null;
  await issuePasswordReset(ctx.db, {
    who: { login },
    tokenDigest: sha256(token),
    interactionId,
    now,
    expiresAt: addSeconds(now, ctx.config.passwordResetTtlSeconds),
    message: {
      kind: 'password-reset',
      payload: { url: resetLinkUrl(ctx.config.issuer, token), ...(input.locale ? { locale: input.locale } : {}) },
    },
  });
  return { kind: 'accepted' };
}

/** An admin's link for a user (sso-admin users reset-link): mailed when `send`, else returned to be handed over. */
export async function issueResetLink(
  ctx: Pick<ProviderContext, 'db' | 'clock' | 'config'>,
  userId: string,
  send: boolean,
): Promise<{ url: string } | undefined> {
  const now = ctx.clock();
  const token = randomToken();
  const url = resetLinkUrl(ctx.config.issuer, token);
  const issued = await issuePasswordReset(ctx.db, {
    who: { userId },
    tokenDigest: sha256(token),
    interactionId: null,
    now,
    expiresAt: addSeconds(now, ctx.config.passwordResetTtlSeconds),
    ...(send ? { message: { kind: 'password-reset' as const, payload: { url } } } : {}),
  });
  return issued && { url };
}

/** The link's reset if it may be used now; a malformed token is not looked up. */
export async function openReset(ctx: ProviderContext, token: string | undefined): Promise<UsableReset | undefined> {
  if (!token || !TOKEN_PATTERN.test(token)) return undefined;
  return findUsableReset(ctx.db, sha256(token), ctx.clock());
}

export type ResetResult =
  | { kind: 'invalid-link' }
  | { kind: 'mismatch'; reset: UsableReset }
  | { kind: 'weak'; reset: UsableReset; problem: PasswordProblem }
  | { kind: 'code-refused'; reset: UsableReset; retryAfterSeconds?: number }
  /** The user's directory holds their password (Keycloak's READ_ONLY edit mode): nothing is set here. */
  | { kind: 'directory-managed' }
  | { kind: 'done'; interactionId: string | null; sessionsEnded: number; logoutsQueued: number };

/**
 * Sets the new password through the link: the two entries must match and pass the policy, the authenticator's
 * code must be right when the user has an app; then one statement uses the link and ends every session.
 */
export async function resetPassword(
  ctx: ProviderContext,
  input: {
    token: string | undefined;
    password: string;
    repeat: string;
    code?: string | undefined;
    /** The page's language: the notice mail speaks it. */
    locale?: Locale | undefined;
  },
): Promise<ResetResult> {
  const reset = await openReset(ctx, input.token);
  if (!reset) return { kind: 'invalid-link' };
  if (reset.directoryManaged) return { kind: 'directory-managed' };
  if (input.password !== input.repeat) return { kind: 'mismatch', reset };
  const problem = ctx.passwordPolicy.problem(input.password, reset);
  if (problem) return { kind: 'weak', reset, problem };
  if (reset.hasAuthenticator) {
    const code = input.code ?? '';
    const check = await ctx.db.transaction().execute((trx) => checkAuthenticatorCode(ctx, trx, reset.userId, code, 'enrolled'));
    if (check.kind === 'locked') return { kind: 'code-refused', reset, retryAfterSeconds: check.retryAfterSeconds };
    // 'none': the app was removed since the page was shown; the link alone then suffices, as for any user without one.
    if (check.kind === 'wrong-code') return { kind: 'code-refused', reset };
  }
  const passwordHash = await ctx.passwords.hash(input.password);
  const now = ctx.clock();
  const done = await ctx.db.transaction().execute(async (trx: Db) => {
    const reset = await completePasswordReset(trx, {
      tokenDigest: sha256(input.token!),
      passwordHash,
      now,
      notice: { at: now.toISOString(), ...(input.locale ? { locale: input.locale } : {}) },
    });
    if (reset) {
      await emitUserEventById(ctx, trx, 'user.updated', reset.userId, { changes: ['password'], via: 'reset' });
      await emitSessionsEnded(ctx, trx, reset.userId, 'revoked', { count: reset.sessionsEnded });
    }
    return reset;
  });
  if (!done) return { kind: 'invalid-link' };
  ctx.log.info({ event: 'password_reset', userId: done.userId, sessionsEnded: done.sessionsEnded }, 'password reset');
  return { kind: 'done', interactionId: done.interactionId, sessionsEnded: done.sessionsEnded, logoutsQueued: done.logoutsQueued };
}
