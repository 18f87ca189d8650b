// The provider's cookies: names and attributes in one place.
//
// On an https issuer every cookie carries the "__Host-" prefix (RFC 6265bis 4.1.3.2): the browser then
// accepts it only when it is Secure, has Path=/ and no Domain, so no sibling or parent domain, and no
// plain-http page, can plant or overwrite it. On an http issuer (local development) the names and paths
// stay unprefixed, since browsers refuse "__Host-" cookies without Secure.
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { Config } from '../config.js';

export interface CookieSpec {
  name: string;
  options: CookieSerializeOptions;
}

const HOST_PREFIX = '__Host-';

/** The browser's sign-in session. */
export function sessionCookie(config: Config): CookieSpec {
  const options: CookieSerializeOptions = { httpOnly: true, sameSite: 'lax', maxAge: config.sessionTtlSeconds };
  if (config.secureCookies) return { name: `${HOST_PREFIX}sso_session`, options: { ...options, path: '/', secure: true } };
  return { name: 'sso_session', options: { ...options, path: '/sso', secure: false } };
}

/**
 * Binds one pending interaction to the browser that started it; one cookie per interaction, so that
 * sign-ins in several tabs do not disturb each other: scoped by path on http, and, since a "__Host-"
 * cookie must have Path=/, by name on https.
 */
export function interactionCookie(config: Config, interactionId: string): CookieSpec {
  const options: CookieSerializeOptions = { httpOnly: true, sameSite: 'lax', maxAge: config.interactionTtlSeconds };
  if (config.secureCookies) {
    return { name: `${INTERACTION_PREFIX}${interactionId}`, options: { ...options, path: '/', secure: true } };
  }
  return { name: 'sso_interaction', options: { ...options, path: `/sso/interaction/${interactionId}`, secure: false } };
}

/** Pending sign-ins a browser keeps bound at once; starting one more forgets one of them (issue 16, finding 5). */
export const MAX_PENDING_INTERACTIONS = 5;
const INTERACTION_PREFIX = `${HOST_PREFIX}sso_interaction_`;

/**
 * The interaction cookies to expire before one more is set, so that a browser never holds more than
 * MAX_PENDING_INTERACTIONS of them. On https every one has Path=/ and travels with every request: a page that
 * steers a popup through /authorize again and again would otherwise grow the Cookie header until every request of
 * that browser is refused (431). On http each has the path of its own interaction and is sent there only.
 */
export function interactionCookiesToForget(config: Config, cookies: Record<string, string | undefined>): CookieSpec[] {
  if (!config.secureCookies) return [];
  const pending = Object.keys(cookies)
    .filter((name) => name.startsWith(INTERACTION_PREFIX))
    .sort();
  const excess = pending.length - (MAX_PENDING_INTERACTIONS - 1);
  return pending.slice(0, Math.max(0, excess)).map((name) => ({ name, options: { path: '/', secure: true } }));
}

/**
 * The device cookie: a random id that lets the provider recognise a browser it has seen (src/domain/risk/).
 * Long-lived, HttpOnly, and sent only on top-level navigations from other sites (Lax), like the session.
 */
export function deviceCookie(config: Config): CookieSpec {
  const options: CookieSerializeOptions = { httpOnly: true, sameSite: 'lax', maxAge: config.deviceCookieTtlSeconds };
  if (config.secureCookies) return { name: `${HOST_PREFIX}sso_device`, options: { ...options, path: '/', secure: true } };
  return { name: 'sso_device', options: { ...options, path: '/sso', secure: false } };
}

/** A sign-in waiting for its second factor: the challenge id, for as long as the code is valid. */
export function challengeCookie(config: Config): CookieSpec {
  const options: CookieSerializeOptions = { httpOnly: true, sameSite: 'lax', maxAge: config.secondFactorTtlSeconds };
  if (config.secureCookies) return { name: `${HOST_PREFIX}sso_challenge`, options: { ...options, path: '/', secure: true } };
  return { name: 'sso_challenge', options: { ...options, path: '/sso/sign-in', secure: false } };
}

/**
 * The device verification page (RFC 8628 3.3) in one browser: a random secret, echoed in its forms as the CSRF
 * token, whose digest binds the device authorization request whose user code this browser typed.
 */
export function deviceFlowCookie(config: Config): CookieSpec {
  const options: CookieSerializeOptions = { httpOnly: true, sameSite: 'lax', maxAge: config.deviceFlow.codeTtlSeconds };
  if (config.secureCookies) return { name: `${HOST_PREFIX}sso_device_flow`, options: { ...options, path: '/', secure: true } };
  return { name: 'sso_device_flow', options: { ...options, path: '/sso/device', secure: false } };
}

/**
 * Binds the account page's sign-in form to the browser that opened it (the form echoes the value as its CSRF
 * token): a sign-in with no client, so no interaction to carry the binding.
 */
export function accountSignInCookie(config: Config): CookieSpec {
  const options: CookieSerializeOptions = { httpOnly: true, sameSite: 'lax', maxAge: config.interactionTtlSeconds };
  if (config.secureCookies) return { name: `${HOST_PREFIX}sso_account_sign_in`, options: { ...options, path: '/', secure: true } };
  return { name: 'sso_account_sign_in', options: { ...options, path: '/sso/account', secure: false } };
}
