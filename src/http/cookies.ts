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

/**
 * One provider cookie: HttpOnly, sent on top-level navigations from other sites (Lax) and for `maxAge` seconds.
 * On https it is "__Host-" prefixed with Path=/; on http it travels under `subPath` of the issuer's own path
 * (BASE_URL's path, then /sso, the prefix the routes are mounted under in src/app.ts).
 */
function providerCookie(config: Config, name: string, subPath: string, maxAge: number): CookieSpec {
  const options: CookieSerializeOptions = { httpOnly: true, sameSite: 'lax', maxAge };
  if (config.secureCookies) return { name: `${HOST_PREFIX}${name}`, options: { ...options, path: '/', secure: true } };
  return { name, options: { ...options, path: `${config.issuerPath}${subPath}`, secure: false } };
}

/** The browser's sign-in session. */
export const sessionCookie = (config: Config): CookieSpec => providerCookie(config, 'sso_session', '', config.sessionTtlSeconds);

/**
 * A SAML AuthnRequest waiting for its person to sign in (src/domain/saml/idp/pending-sign-in.ts): set by
 * {issuer}/saml/sso, read by the account sign-in (which then returns the browser to {issuer}/saml/resume).
 */
export const samlPendingCookie = (config: Config): CookieSpec =>
  providerCookie(config, 'sso_saml_pending', '', config.interactionTtlSeconds);

/**
 * A single logout on its way through the SAML SPs of the session (src/domain/saml/idp/front-channel-logout.ts): set
 * by {issuer}/saml/slo or the end-session endpoint, read at {issuer}/saml/slo as each SP's LogoutResponse returns.
 * An SP that answers over HTTP-POST does so with a cross-site POST (SAML Bindings §3.5), which a Lax cookie does not
 * go with: on https it is SameSite=None, as samlUpstreamCookie is; on http (one site) Lax like the others.
 */
export function samlLogoutCookie(config: Config): CookieSpec {
  const cookie = providerCookie(config, 'sso_saml_logout', '', config.interactionTtlSeconds);
  return config.secureCookies ? { ...cookie, options: { ...cookie.options, sameSite: 'none' } } : cookie;
}

/**
 * Binds one pending interaction to the browser that started it; one cookie per interaction, so that
 * sign-ins in several tabs do not disturb each other: scoped by path on http, and, since a "__Host-"
 * cookie must have Path=/, by name on https.
 */
export function interactionCookie(config: Config, interactionId: string): CookieSpec {
  const name = config.secureCookies ? `${INTERACTION_NAME}${interactionId}` : 'sso_interaction';
  return providerCookie(config, name, `/interaction/${interactionId}`, config.interactionTtlSeconds);
}

/** Pending sign-ins a browser keeps bound at once; starting one more forgets one of them (issue 16, finding 5). */
export const MAX_PENDING_INTERACTIONS = 5;
const INTERACTION_NAME = 'sso_interaction_';
const INTERACTION_PREFIX = `${HOST_PREFIX}${INTERACTION_NAME}`;

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
export const deviceCookie = (config: Config): CookieSpec => providerCookie(config, 'sso_device', '', config.deviceCookieTtlSeconds);

/** A sign-in waiting for its second factor: the challenge id, for as long as the code is valid. */
export const challengeCookie = (config: Config): CookieSpec =>
  providerCookie(config, 'sso_challenge', '/sign-in', config.secondFactorTtlSeconds);

/**
 * The device verification page (RFC 8628 3.3) in one browser: a random secret, echoed in its forms as the CSRF
 * token, whose digest binds the device authorization request whose user code this browser typed.
 */
export const deviceFlowCookie = (config: Config): CookieSpec =>
  providerCookie(config, 'sso_device_flow', '/device', config.deviceFlow.codeTtlSeconds);

/**
 * Binds the account page's sign-in form to the browser that opened it (the form echoes the value as its CSRF
 * token): a sign-in with no client, so no interaction to carry the binding.
 */
export const accountSignInCookie = (config: Config): CookieSpec =>
  providerCookie(config, 'sso_account_sign_in', '/account', config.interactionTtlSeconds);

/**
 * An organization's invitation waiting for its person to sign in (src/http/pages/invitation.ts): the link's token,
 * set by {issuer}/invitations/{token}, read by the account sign-in, which then returns the browser to the link.
 */
export const invitationPendingCookie = (config: Config): CookieSpec =>
  providerCookie(config, 'sso_invitation', '', config.interactionTtlSeconds);

/**
 * A sign-up waiting for its email to be verified, in the browser that signed up: its id, so that the code typed
 * on the page finds it (the code alone names nothing). Lives as long as the verification.
 */
export const signupCookie = (config: Config): CookieSpec =>
  providerCookie(config, 'sso_signup', '/account/signup', config.signup.verificationTtlSeconds);

/**
 * Binds sign-ins sent to an upstream provider (src/domain/connections/) to this browser: the state's row keeps the
 * digest of this random value, and its callback is honoured only where the cookie comes back (RFC 6749 10.12).
 */
export const upstreamCookie = (config: Config): CookieSpec =>
  providerCookie(config, 'sso_upstream', '/connections', config.interactionTtlSeconds);

/**
 * The upstream cookie's twin for SAML connections (issue 39), holding the same value: an IdP answers with a
 * cross-site POST to the ACS (SAML Bindings §3.5), which a Lax cookie does not go with. On https it is SameSite=None
 * (with Secure, as the prefix demands); on http (development, one site) Lax like the others.
 */
export function samlUpstreamCookie(config: Config): CookieSpec {
  const cookie = providerCookie(config, 'sso_saml_upstream', '/connections', config.interactionTtlSeconds);
  return config.secureCookies ? { ...cookie, options: { ...cookie.options, sameSite: 'none' } } : cookie;
}
