// What every console route shares: its cookies, the signed-in person of a request, the admin context its changes
// run with (the person as actor, the request's address as origin), and how a page is sent.
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { AdminContext } from '../../domain/admin/admin.js';
import { actorOf } from '../../domain/admin/principal.js';
import { consoleFormToken, CONSOLE_ABSOLUTE_SECONDS, type ConsolePerson } from '../../domain/console/console-sessions.js';
import type { ProviderContext } from '../../domain/context.js';
import type { SafeHtml } from '../../html.js';
import { translator, type Translate } from '../../i18n/translate.js';
import { consoleLayout } from './views/layout.js';
import { PAGE_HEADERS } from '../views/layout.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Under /admin: a page that changes something (its form, its POST), for the admin role only. */
    consoleWrite?: boolean;
  }
  interface FastifyRequest {
    /** Under /admin, once the console session is resolved; else null. */
    consolePerson: ConsolePerson | null;
    /** Under /admin: the language of the pages, chosen as the sign-in pages choose it (index.ts). */
    consoleText: Translate | null;
  }
}

/** Where the console is mounted (src/app.ts). */
export const CONSOLE_PREFIX = '/admin';

export interface CookieSpec {
  name: string;
  options: CookieSerializeOptions;
}

/**
 * The console's cookies: HttpOnly, SameSite=Lax, under the console's path. On https they are Secure and carry the
 * "__Secure-" prefix (RFC 6265bis 4.1.3.1; "__Host-" would need Path=/).
 */
function consoleCookie(config: Config, name: string, subPath: string, maxAge: number): CookieSpec {
  const path = `${new URL(config.baseUrl).pathname.replace(/\/$/, '')}${CONSOLE_PREFIX}${subPath}`;
  const secure = config.secureCookies;
  return { name: secure ? `__Secure-${name}` : name, options: { httpOnly: true, sameSite: 'lax', path, secure, maxAge } };
}

/** The console session (its digest is the console_sessions row). */
export const consoleSessionCookie = (config: Config) => consoleCookie(config, 'sso_console', '', CONSOLE_ABSOLUTE_SECONDS);

/** The sign-in under way: the value state, nonce and PKCE verifier derive from, sent back to the callback only. */
export const consoleBindingCookie = (config: Config) =>
  consoleCookie(config, 'sso_console_sign_in', '/callback', config.interactionTtlSeconds);

/** The signed-in person of a route behind the console's hook (index.ts). */
export function personOf(request: FastifyRequest): ConsolePerson {
  const person = request.consolePerson;
  if (!person) throw new Error('console route reached without a signed-in person');
  return person;
}

/** The context of an admin action taken through the console: the person acts, from the request's address. */
export function adminContextOf(ctx: ProviderContext, request: FastifyRequest): AdminContext {
  return {
    config: ctx.config,
    db: ctx.db,
    clock: ctx.clock,
    log: request.log,
    passwords: ctx.passwords,
    passwordPolicy: ctx.passwordPolicy,
    actor: actorOf(personOf(request).principal),
    origin: request.ip,
  };
}

/** The language of a console page: the request's (index.ts), English before it is chosen. */
export const textOf = (request: FastifyRequest): Translate => request.consoleText ?? translator('en');

export const mayWrite = (request: FastifyRequest): boolean => request.consolePerson?.principal.role === 'admin';

/** Sends a console page framed for the signed-in person (or for nobody, on a refusal before sign-in). */
export function sendPage(
  reply: FastifyReply,
  base: string,
  page: { status?: number; title: string; section: string; body: SafeHtml },
  person: ConsolePerson | null,
): FastifyReply {
  const frame = {
    base,
    t: textOf(reply.request),
    title: page.title,
    section: page.section,
    ...(person ? { person: { username: person.username, role: person.principal.role, csrf: consoleFormToken(person.cookie) } } : {}),
  };
  return reply
    .code(page.status ?? 200)
    .headers(PAGE_HEADERS)
    .send(consoleLayout(frame, page.body));
}
