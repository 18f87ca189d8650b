// The provider's cookies: names and attributes in one place.
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { Config } from '../config.js';

export const SESSION_COOKIE = 'sso_session';
export const INTERACTION_COOKIE = 'sso_interaction';

export function sessionCookieOptions(config: Config): CookieSerializeOptions {
  return {
    path: '/sso',
    httpOnly: true,
    sameSite: 'lax',
    secure: config.secureCookies,
    maxAge: config.sessionTtlSeconds,
  };
}

/** Scoped to one interaction's pages, so that sign-ins in several tabs do not disturb each other. */
export function interactionCookieOptions(config: Config, interactionId: string): CookieSerializeOptions {
  return {
    path: `/sso/interaction/${interactionId}`,
    httpOnly: true,
    sameSite: 'lax',
    secure: config.secureCookies,
    maxAge: config.interactionTtlSeconds,
  };
}
