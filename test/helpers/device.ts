// The device authorization grant (RFC 8628) in tests: device clients, the device's requests, and a browser on
// the verification page (app.inject with a cookie jar).
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { DEVICE_CODE_GRANT } from '../../src/domain/device-flow/device-authorization.js';
import type { SeedFile } from '../../src/domain/admin/seed.js';
import { ALICE, FIXTURES } from './app.js';
import { basicAuth, Browser, formAction, hiddenField, localPath, tokenRequest } from './flow.js';

export { DEVICE_CODE_GRANT };

/** A confidential device client that may refresh; no redirect URI (it never uses the code flow). */
export const TV = {
  client_id: 'tv',
  client_secret: 'tv-secret-0123456789',
  client_name: 'Living Room TV',
  grant_types: [DEVICE_CODE_GRANT, 'refresh_token'],
};
/** A public device client (a command line tool): no secret. */
export const CLI = {
  client_id: 'cli',
  client_name: 'Command Line Tool',
  token_endpoint_auth_method: 'none' as const,
  grant_types: [DEVICE_CODE_GRANT],
};

export const DEVICE_FIXTURES: SeedFile = { clients: [...FIXTURES.clients, TV, CLI], users: FIXTURES.users };

export const TV_BASIC = basicAuth(TV.client_id, TV.client_secret);
export const SMART_TV_UA =
  'Mozilla/5.0 (Linux; Android 12; BRAVIA 4K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

export interface DeviceAuthorizationBody {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** POST /sso/device_authorization, by TV with Basic unless told otherwise. */
export function deviceAuthorizationRequest(
  app: FastifyInstance,
  form: Record<string, string> = { scope: 'openid profile offline_access' },
  options: { auth?: string; userAgent?: string } = {},
): Promise<LightMyRequestResponse> {
  const auth = options.auth ?? TV_BASIC;
  return app.inject({
    method: 'POST',
    url: '/sso/device_authorization',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'user-agent': options.userAgent ?? SMART_TV_UA,
      ...(auth ? { authorization: auth } : {}),
    },
    payload: new URLSearchParams(form).toString(),
  });
}

/** A device authorization that must succeed. */
export async function startDevice(
  app: FastifyInstance,
  form?: Record<string, string>,
  options?: { auth?: string; userAgent?: string },
): Promise<DeviceAuthorizationBody> {
  const res = await deviceAuthorizationRequest(app, form, options);
  if (res.statusCode !== 200) throw new Error(`device authorization failed: ${res.statusCode} ${res.body}`);
  return res.json() as DeviceAuthorizationBody;
}

/** One poll of the token endpoint with the device code, by TV with Basic unless told otherwise. */
export function poll(app: FastifyInstance, deviceCode: string, auth: string = TV_BASIC, extra: Record<string, string> = {}) {
  return tokenRequest(app, { grant_type: DEVICE_CODE_GRANT, device_code: deviceCode, ...extra }, auth);
}

export interface VerifyOptions {
  browser?: Browser;
  user?: { username: string; password: string };
  decision?: 'approve' | 'deny';
  remoteAddress?: string;
}

/** A page request from the browser, optionally from another address. */
export async function pageRequest(
  app: FastifyInstance,
  browser: Browser,
  method: 'GET' | 'POST',
  url: string,
  form?: Record<string, string>,
  remoteAddress = '127.0.0.1',
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {};
  const cookie = browser.header(url);
  if (cookie) headers.cookie = cookie;
  if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
  const response = await app.inject({
    method,
    url,
    headers,
    remoteAddress,
    payload: form ? new URLSearchParams(form).toString() : undefined,
  });
  browser.store(response);
  return response;
}

/** Opens the verification page and types `userCode`; returns the answer to the typed code. */
export async function enterCode(
  app: FastifyInstance,
  browser: Browser,
  userCode: string,
  remoteAddress?: string,
): Promise<LightMyRequestResponse> {
  const entry = await pageRequest(app, browser, 'GET', '/sso/device', undefined, remoteAddress);
  if (entry.statusCode !== 200) throw new Error(`no verification page: ${entry.statusCode}`);
  return pageRequest(
    app,
    browser,
    'POST',
    formAction(entry.body),
    { csrf: hiddenField(entry.body, 'csrf'), user_code: userCode },
    remoteAddress,
  );
}

/**
 * The whole verification page in a browser: type the code, sign in when asked (ALICE by default), then approve or
 * deny. Returns the last page (the outcome) and the browser.
 */
export async function verify(app: FastifyInstance, userCode: string, options: VerifyOptions = {}) {
  const browser = options.browser ?? new Browser();
  const user = options.user ?? ALICE;
  let res = await enterCode(app, browser, userCode, options.remoteAddress);
  for (let step = 0; step < 6; step += 1) {
    if (res.statusCode === 303) {
      res = await pageRequest(app, browser, 'GET', localPath(String(res.headers.location)), undefined, options.remoteAddress);
      continue;
    }
    if (res.statusCode !== 200) throw new Error(`verification stopped at HTTP ${res.statusCode}: ${res.body.slice(0, 400)}`);
    if (!res.body.includes('<form')) return { res, browser };
    const csrf = hiddenField(res.body, 'csrf');
    const action = formAction(res.body);
    res = res.body.includes('type="password"')
      ? await pageRequest(app, browser, 'POST', action, { csrf, login: user.username, password: user.password }, options.remoteAddress)
      : await pageRequest(app, browser, 'POST', action, { csrf, decision: options.decision ?? 'approve' }, options.remoteAddress);
  }
  throw new Error('verification did not finish');
}
