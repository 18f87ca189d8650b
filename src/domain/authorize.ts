// The authorization endpoint's decisions: answer at once with a code, or hand over to the sign-in
// and consent pages through an interaction bound to this browser.
import { ConsentRequired, LoginRequired, OAuthError } from '../errors/oauth-error.js';
import { insertCodeForConsentedSession, type NewCode } from '../storage/authorization-codes.js';
import { findConsentedScopes } from '../storage/consents.js';
import { findInteraction, insertInteraction } from '../storage/interactions.js';
import type { ActiveSession } from '../storage/sessions.js';
import type { AuthorizationRequest } from './authorization-request.js';
import { addSeconds } from './clock.js';
import type { ProviderContext } from './context.js';
import { withResponseParams } from './redirect-uri.js';
import { randomToken, safeEqual, sha256 } from './secrets.js';
import { resolveSession } from './sessions.js';

export type AuthorizeOutcome =
  | { kind: 'redirect'; location: string }
  | { kind: 'interaction'; interactionId: string; bindingSecret: string };

export function newCode(ctx: ProviderContext, request: AuthorizationRequest): { code: string; row: NewCode } {
  const code = randomToken();
  const now = ctx.clock();
  return {
    code,
    row: {
      codeHash: sha256(code),
      clientId: request.clientId,
      redirectUri: request.redirectUri,
      redirectUriInRequest: request.redirectUriInRequest,
      scope: request.scopes.join(' '),
      nonce: request.nonce,
      codeChallenge: request.codeChallenge,
      issuedAt: now,
      expiresAt: addSeconds(now, ctx.config.codeTtlSeconds),
    },
  };
}

/** RFC 6749 4.1.2 with RFC 9207's iss. */
export function successRedirect(ctx: ProviderContext, request: AuthorizationRequest, code: string): string {
  return withResponseParams(request.redirectUri, {
    code,
    state: request.state ?? undefined,
    iss: ctx.config.issuer,
  });
}

/** RFC 6749 4.1.2.1 with RFC 9207's iss. */
export function errorRedirect(
  ctx: ProviderContext,
  target: { redirectUri: string; state: string | null | undefined },
  err: OAuthError,
): string {
  return withResponseParams(target.redirectUri, {
    error: err.error,
    error_description: err.description,
    state: target.state ?? undefined,
    iss: ctx.config.issuer,
  });
}

/** Can this session answer the request without a new sign-in? */
export function sessionIsFreshEnough(session: ActiveSession, minAuthTime: Date | null): boolean {
  return minAuthTime === null || session.authTime >= minAuthTime;
}

/**
 * With a live session, fresh enough, whose user has already consented to every requested scope,
 * the code is issued in one statement; otherwise the user is sent to the interaction pages (or,
 * with prompt=none, the client is told which interaction was needed).
 */
export async function authorize(
  ctx: ProviderContext,
  request: AuthorizationRequest,
  sessionCookie: string | undefined,
): Promise<AuthorizeOutcome> {
  const now = ctx.clock();
  // OIDC Core 3.1.2.1: prompt=login (and select_account, with one account per browser) wants a sign-in
  // after this request arrived; max_age one within that many seconds of it.
  const forceLogin = request.prompts.includes('login') || request.prompts.includes('select_account');
  const minAuthTime = forceLogin ? now : request.maxAge !== null ? new Date(now.getTime() - request.maxAge * 1000) : null;
  const forceConsent = request.prompts.includes('consent');
  if (sessionCookie && !forceLogin && !forceConsent) {
    const { code, row } = newCode(ctx, request);
    const issued = await insertCodeForConsentedSession(ctx.db, row, {
      idHash: sha256(sessionCookie),
      scopes: request.scopes,
      now,
      minAuthTime,
    });
    if (issued) return { kind: 'redirect', location: successRedirect(ctx, request, code) };
  }
  if (request.prompts.includes('none')) {
    // OIDC Core 3.1.2.6: prompt=none never shows a page; say which interaction would have been needed.
    const session = await resolveSession(ctx, sessionCookie);
    const err = session && sessionIsFreshEnough(session, minAuthTime)
      ? new ConsentRequired('the user has not consented to this request')
      : new LoginRequired('the user is not signed in, or not recently enough');
    return { kind: 'redirect', location: errorRedirect(ctx, request, err) };
  }
  return { kind: 'interaction', ...(await startInteraction(ctx, request, { minAuthTime: minAuthTime?.getTime() ?? null, forceConsent })) };
}

interface StoredInteraction {
  request: AuthorizationRequest;
  /** Epoch milliseconds; a session signed in before this cannot serve the request. */
  minAuthTime: number | null;
  forceConsent: boolean;
}

async function startInteraction(
  ctx: ProviderContext,
  request: AuthorizationRequest,
  flags: { minAuthTime: number | null; forceConsent: boolean },
): Promise<{ interactionId: string; bindingSecret: string }> {
  const interactionId = randomToken(16);
  const bindingSecret = randomToken();
  const now = ctx.clock();
  const stored: StoredInteraction = { request, ...flags };
  await insertInteraction(ctx.db, {
    id: interactionId,
    bindingHash: sha256(bindingSecret),
    clientId: request.clientId,
    request: stored as unknown as Record<string, unknown>,
    createdAt: now,
    expiresAt: addSeconds(now, ctx.config.interactionTtlSeconds),
  });
  return { interactionId, bindingSecret };
}

/** Why an interaction page cannot go on: shown to the user, never redirected. */
export class InteractionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InteractionError';
  }
}

export interface Interaction extends StoredInteraction {
  id: string;
  createdAt: Date;
}

/**
 * Loads a pending interaction for the browser that started it: the binding secret (from its
 * cookie, echoed in every form as the CSRF token) must hash to what the interaction stored.
 */
export async function loadInteraction(ctx: ProviderContext, id: string, bindingSecret: string | undefined): Promise<Interaction> {
  const row = await findInteraction(ctx.db, id);
  if (!row || !bindingSecret || !safeEqual(row.binding_hash, sha256(bindingSecret))) {
    throw new InteractionError('This sign-in link is not valid in this browser. Go back to the application and start again.');
  }
  if (row.completed_at !== null || row.expires_at <= ctx.clock()) {
    throw new InteractionError('This sign-in has expired or was already completed. Go back to the application and start again.');
  }
  const stored = row.request as unknown as StoredInteraction;
  return { ...stored, id: row.id, createdAt: row.created_at };
}

/** Has the user already granted every scope this request asks for? */
export async function hasConsent(ctx: ProviderContext, userId: string, request: AuthorizationRequest): Promise<boolean> {
  const granted = new Set(await findConsentedScopes(ctx.db, userId, request.clientId));
  return request.scopes.every((s) => granted.has(s));
}
