// What the account page's plugins share: its addresses, its language, the person signed in, the page itself, the
// recent sign-in some steps ask for, and the schemas of its forms.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { accountFormToken } from '../../../domain/accounts/account-forms.js';
import { authenticatorState } from '../../../domain/accounts/authenticator.js';
import { MAX_PASSKEY_RESPONSE_LENGTH, passkeysOffered } from '../../../domain/accounts/passkey-ceremony.js';
import { passkeysOf } from '../../../domain/accounts/passkeys.js';
import { accountLinks, linkableConnections } from '../../../domain/connections/account-links.js';
import { liveConsoleSessionsOf } from '../../../domain/console/console-sessions.js';
import type { ProviderContext } from '../../../domain/context.js';
import { listDevices } from '../../../domain/risk/devices.js';
import { deviceCookie } from '../../cookies.js';
import { pageLanguage, type PageLanguage } from '../../page-language.js';
import { seeOther } from '../../redirect.js';
import { PAGE_HEADERS } from '../../views/layout.js';
import { accountPage } from '../views/account-pages.js';
import { accountSession, type AccountSession, type SignedIn } from './account-session.js';

export interface AccountRoutesOptions {
  ctx: ProviderContext;
  /** A revoked device's sessions queued back-channel logouts: deliver them now. */
  onLogoutsQueued?: () => void;
  /** A sign-in queued a message (one-time code, new-device notice): deliver it now. */
  onMessagesQueued?: () => void;
}

/**
 * Setting up an authenticator app asks for a recent sign-in, as Keycloak's "maximum authentication age" of
 * credential setup does (300 s by default): a session left open on a shared computer cannot bind someone else's
 * app to the account. Starting needs a sign-in of the last 5 minutes; showing the secret and confirming it, of
 * the last 15, so that a user scanning the code is not sent back. Removing the app asks for one of its codes.
 */
export const ENROLMENT_START_MAX_AUTH_AGE_SECONDS = 300;
export const ENROLMENT_FINISH_MAX_AUTH_AGE_SECONDS = 900;

/** Every form of the account page and its sign-in. */
export const formSchema = {
  type: 'object',
  properties: {
    csrf: { type: 'string' },
    code: { type: 'string', maxLength: 32 },
    login: { type: 'string' },
    password: { type: 'string' },
    name: { type: 'string', maxLength: 256 },
    credential: { type: 'string', maxLength: MAX_PASSKEY_RESPONSE_LENGTH },
  },
} as const;

export const querySchema = {
  type: 'object',
  properties: { done: { type: 'string', maxLength: 32 }, notice: { type: 'string', maxLength: 32 } },
} as const;

/** A passkey's or a console session's id: a UUID (anything else finds nothing, and is refused before the database sees it). */
export const uuidParamsSchema = {
  type: 'object',
  properties: { id: { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' } },
  required: ['id'],
} as const;

export interface AccountKit extends AccountSession {
  ctx: ProviderContext;
  /** The account page's address, and its sign-in's. */
  base: string;
  signInUrl: string;
  /** Sends a page of the account with its headers. */
  page(reply: FastifyReply, status: number, body: string): FastifyReply;
  /** Pages outside an authorization request speak the browser's language (Accept-Language), else DEFAULT_LOCALE. */
  language(request: FastifyRequest): PageLanguage;
  /** The account page of the person signed in, with a notice or an error. */
  renderAccount(
    request: FastifyRequest,
    reply: FastifyReply,
    who: SignedIn,
    status: number,
    extra?: { notice?: string; error?: string },
  ): Promise<FastifyReply>;
  /** Whether the session's sign-in is at most maxAgeSeconds old. */
  isRecent(who: SignedIn, maxAgeSeconds: number): boolean;
  /** Whether the session's sign-in is at most maxAgeSeconds old; if not, the browser is sent to sign in again. */
  recentSignIn(reply: FastifyReply, who: SignedIn, maxAgeSeconds: number, notice?: string): boolean;
}

export function accountKit(ctx: ProviderContext): AccountKit {
  const base = `${ctx.config.issuer}/account`;
  const signInUrl = `${base}/sign-in`;
  const page = (reply: FastifyReply, status: number, body: string) => reply.code(status).headers(PAGE_HEADERS).send(body);
  const language = (request: FastifyRequest) => pageLanguage(request, ctx.config);
  const isRecent = (who: SignedIn, maxAgeSeconds: number) => ctx.clock().getTime() - who.session.authTime.getTime() <= maxAgeSeconds * 1000;

  async function renderAccount(
    request: FastifyRequest,
    reply: FastifyReply,
    who: SignedIn,
    status: number,
    extra: { notice?: string; error?: string } = {},
  ) {
    const [devices, authenticator, passkeys, connections, consoleSessions] = await Promise.all([
      listDevices(ctx, who.user.id, { deviceId: who.session.deviceId, deviceCookie: request.cookies[deviceCookie(ctx.config).name] }),
      authenticatorState(ctx, who.user.id),
      passkeysOf(ctx, who.user.id),
      accountLinks(ctx, who.user),
      liveConsoleSessionsOf(ctx, who.user.id),
    ]);
    const linkable = await linkableConnections(ctx, connections);
    const claims = who.user.claims as Record<string, unknown>;
    return page(
      reply,
      status,
      accountPage(language(request), {
        base,
        csrfToken: accountFormToken(who.cookie),
        displayName: typeof claims.name === 'string' && claims.name ? claims.name : who.user.username,
        email: who.user.email,
        emailVerified: who.user.email_verified,
        devices,
        authenticator,
        passkeys,
        passkeysOffered: passkeysOffered(ctx),
        signOutUrl: `${ctx.config.issuer}/session/end`,
        connections,
        linkable,
        consoleSessions,
        ...extra,
      }),
    );
  }

  function recentSignIn(reply: FastifyReply, who: SignedIn, maxAgeSeconds: number, notice = 'reauth'): boolean {
    if (isRecent(who, maxAgeSeconds)) return true;
    seeOther(reply, `${signInUrl}?notice=${notice}`);
    return false;
  }

  return { ...accountSession(ctx), ctx, base, signInUrl, page, language, renderAccount, isRecent, recentSignIn };
}
