// Drives the sign-in pages with app.inject like a browser would: a cookie jar, forms, redirects.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { ALICE, CONFIDENTIAL } from './app.js';

export function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, '+');
}

/** RFC 6749 2.3.1: id and secret form-url-encoded, then joined and base64-encoded. */
export function basicAuth(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${formEncode(clientId)}:${formEncode(secret)}`).toString('base64')}`;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A cookie jar keyed by name and path; enough for one host. */
export class Browser {
  private readonly cookies = new Map<string, { name: string; value: string; path: string }>();

  store(response: LightMyRequestResponse): void {
    for (const c of response.cookies as Array<{ name: string; value: string; path?: string; maxAge?: number; expires?: Date }>) {
      const key = `${c.path ?? '/'}\t${c.name}`;
      const expired = c.maxAge === 0 || (c.expires !== undefined && c.expires.getTime() <= Date.now());
      if (expired || c.value === '') this.cookies.delete(key);
      else this.cookies.set(key, { name: c.name, value: c.value, path: c.path ?? '/' });
    }
  }

  header(url: string): string {
    const path = new URL(url, 'http://localhost').pathname;
    return [...this.cookies.values()]
      .filter((c) => path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  get(name: string): string | undefined {
    return [...this.cookies.values()].find((c) => c.name === name)?.value;
  }

  async request(app: FastifyInstance, method: 'GET' | 'POST', url: string, form?: Record<string, string>): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = {};
    const cookie = this.header(url);
    if (cookie) headers.cookie = cookie;
    let payload: string | undefined;
    if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      payload = new URLSearchParams(form).toString();
    }
    const response = await app.inject({ method, url, headers, payload });
    this.store(response);
    return response;
  }
}

/**
 * The second-factor form as its page posts it: the code and the CSRF token, which the page echoes from the challenge
 * cookie (src/http/pages/second-factor.ts); tests that post without opening the page read the cookie the same way.
 */
export function secondFactorForm(challengeCookie: string | undefined, code: string): Record<string, string> {
  return { csrf: challengeCookie ?? '', code };
}

/** A value that is a list is sent once per item (RFC 8707 2: resource may be repeated). */
export function authorizePath(params: Record<string, string | string[] | undefined>): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const item of v === undefined ? [] : Array.isArray(v) ? v : [v]) query.append(k, item);
  return `/sso/authorize?${query}`;
}

/** CONFIDENTIAL's authorization request for `openid` (RFC 6749 4.1.1), before any other parameter. */
export const CONFIDENTIAL_REQUEST = {
  response_type: 'code',
  client_id: CONFIDENTIAL.client_id,
  redirect_uri: CONFIDENTIAL.redirect_uris[0],
  scope: 'openid',
};

/**
 * OIDC Core 3.1.2.1: prompt=none for CONFIDENTIAL with `sessionCookie` as the browser's session; where the answer sends
 * the browser (a code for a live session, error=login_required otherwise).
 */
export async function silentAuthorize(app: FastifyInstance, sessionCookie: string): Promise<URL> {
  const res = await app.inject({
    method: 'GET',
    url: authorizePath({
      ...CONFIDENTIAL_REQUEST,
      prompt: 'none',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }),
    headers: { cookie: `sso_session=${sessionCookie}` },
  });
  return new URL(String(res.headers.location));
}

/** Path of an absolute URL on the test issuer, for app.inject. */
export function localPath(location: string): string {
  const url = new URL(location, 'http://localhost:3000');
  return `${url.pathname}${url.search}`;
}

export function hiddenField(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!match?.[1]) throw new Error(`no ${name} field in page`);
  return match[1];
}

export function formAction(html: string): string {
  const match = /<form method="post" action="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error('no form in page');
  return localPath(match[1].replace(/&amp;/g, '&'));
}

export interface SignInOptions {
  browser?: Browser;
  user?: { username: string; password: string };
  decision?: 'allow' | 'deny';
}

export interface SignInResult {
  browser: Browser;
  /** Where the provider finally sent the browser (the client's redirect URI with its parameters). */
  location: URL;
}

/** Follows authorize -> sign-in page -> consent page until the provider redirects to the client. */
export async function signIn(
  app: FastifyInstance,
  params: Record<string, string | string[] | undefined>,
  options: SignInOptions = {},
): Promise<SignInResult> {
  const browser = options.browser ?? new Browser();
  const user = options.user ?? ALICE;
  let response = await browser.request(app, 'GET', authorizePath(params));
  for (let step = 0; step < 8; step += 1) {
    if (response.statusCode === 303 || response.statusCode === 302) {
      const location = String(response.headers.location);
      if (!location.startsWith('http://localhost:3000/sso/')) return { browser, location: new URL(location) };
      response = await browser.request(app, 'GET', localPath(location));
      continue;
    }
    if (response.statusCode !== 200) throw new Error(`sign-in stopped at HTTP ${response.statusCode}: ${response.body.slice(0, 300)}`);
    const csrf = hiddenField(response.body, 'csrf');
    const action = formAction(response.body);
    if (response.body.includes('type="password"')) {
      response = await browser.request(app, 'POST', action, { csrf, login: user.username, password: user.password });
    } else {
      response = await browser.request(app, 'POST', action, { csrf, decision: options.decision ?? 'allow' });
    }
  }
  throw new Error('sign-in did not finish');
}

/** A fresh code for the confidential test client with PKCE and a nonce. */
export async function obtainCode(
  app: FastifyInstance,
  overrides: Record<string, string | string[] | undefined> = {},
  options: SignInOptions = {},
) {
  const { verifier, challenge } = pkcePair();
  const nonce = randomBytes(8).toString('hex');
  const state = randomBytes(8).toString('hex');
  const params = {
    response_type: 'code',
    client_id: CONFIDENTIAL.client_id,
    redirect_uri: CONFIDENTIAL.redirect_uris[0],
    scope: 'openid profile email',
    state,
    nonce,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...overrides,
  };
  const { location, browser } = await signIn(app, params, options);
  const code = location.searchParams.get('code');
  if (!code) throw new Error(`no code in ${location.href}`);
  return { code, verifier, nonce, state, location, browser, redirectUri: params.redirect_uri };
}

export function tokenRequest(
  app: FastifyInstance,
  form: Record<string, string | undefined>,
  auth: string | undefined = basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret),
) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) if (v !== undefined) body.append(k, v);
  return app.inject({
    method: 'POST',
    url: '/sso/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(auth ? { authorization: auth } : {}) },
    payload: body.toString(),
  });
}
