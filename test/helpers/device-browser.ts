// A browser for app.inject that looks like a device: its own user agent, headers and client address, its cookie
// jar, and the sign-in steps the risk tests take (sign-in page, password, one-time code, consent, token).
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { ALICE, CONFIDENTIAL } from './app.js';
import { FIREFOX_LINUX } from './device-signals.js';
import { authorizePath, Browser, formAction, hiddenField, localPath, pkcePair, secondFactorForm, tokenRequest } from './flow.js';

export interface DeviceOptions {
  userAgent?: string;
  ip?: string;
  /** Extra request headers: client hints, Accept-Language. */
  headers?: Record<string, string>;
}

export interface LoginPage {
  response: LightMyRequestResponse;
  csrf: string;
  action: string;
  /** The sign-in page's path, where the browser returns after a second factor. */
  path: string;
  verifier: string;
  nonce: string;
}

export class DeviceBrowser {
  readonly jar = new Browser();
  userAgent: string;
  ip: string;
  headers: Record<string, string>;

  constructor(options: DeviceOptions = {}) {
    this.userAgent = options.userAgent ?? FIREFOX_LINUX;
    this.ip = options.ip ?? '192.0.2.1';
    this.headers = { 'accept-language': 'en-GB,en;q=0.9', ...options.headers };
  }

  async request(app: FastifyInstance, method: 'GET' | 'POST', url: string, form?: Record<string, string>): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = { ...this.headers, 'user-agent': this.userAgent };
    const cookie = this.jar.header(url);
    if (cookie) headers.cookie = cookie;
    let payload: string | undefined;
    if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      payload = new URLSearchParams(form).toString();
    }
    const response = await app.inject({ method, url, headers, payload, remoteAddress: this.ip });
    this.jar.store(response);
    return response;
  }

  cookie(name: string): string | undefined {
    return this.jar.get(name);
  }

  /** An authorization request of the confidential test client (with `extra` parameters), up to its sign-in page. */
  async openLogin(app: FastifyInstance, extra: Record<string, string> = {}): Promise<LoginPage> {
    const { verifier, challenge } = pkcePair();
    const nonce = `n-${Math.random().toString(36).slice(2)}`;
    const started = await this.request(
      app,
      'GET',
      authorizePath({
        response_type: 'code',
        client_id: CONFIDENTIAL.client_id,
        redirect_uri: CONFIDENTIAL.redirect_uris[0],
        scope: 'openid',
        nonce,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        ...extra,
      }),
    );
    if (started.statusCode !== 303) throw new Error(`authorize answered ${started.statusCode}: ${started.body.slice(0, 200)}`);
    const path = localPath(String(started.headers.location));
    const response = await this.request(app, 'GET', path);
    if (response.statusCode !== 200 || !response.body.includes('type="password"'))
      throw new Error(`no sign-in page: ${response.statusCode}`);
    return { response, csrf: hiddenField(response.body, 'csrf'), action: formAction(response.body), path, verifier, nonce };
  }

  /** Posts the sign-in form; `fields` adds the page script's fields (none: as without JavaScript). */
  login(app: FastifyInstance, page: LoginPage, user: { username: string; password: string } = ALICE, fields: Record<string, string> = {}) {
    return this.request(app, 'POST', page.action, { csrf: page.csrf, login: user.username, password: user.password, ...fields });
  }

  /** Posts a code on the second-factor page. */
  answer(app: FastifyInstance, code: string) {
    return this.request(app, 'POST', '/sso/sign-in/verify', secondFactorForm(this.cookie('sso_challenge'), code));
  }

  /** From a signed-in redirect on: the consent page allowed, until the client gets its code. */
  async finish(app: FastifyInstance, response: LightMyRequestResponse): Promise<string> {
    let res = response;
    for (let step = 0; step < 6; step += 1) {
      if (res.statusCode === 303 || res.statusCode === 302) {
        const location = String(res.headers.location);
        if (!location.startsWith('http://localhost:3000/sso/')) {
          const code = new URL(location).searchParams.get('code');
          if (!code) throw new Error(`no code in ${location}`);
          return code;
        }
        res = await this.request(app, 'GET', localPath(location));
        continue;
      }
      if (res.statusCode === 200 && res.body.includes('name="decision"')) {
        res = await this.request(app, 'POST', formAction(res.body), { csrf: hiddenField(res.body, 'csrf'), decision: 'allow' });
        continue;
      }
      throw new Error(`sign-in stopped at HTTP ${res.statusCode}: ${res.body.slice(0, 300)}`);
    }
    throw new Error('sign-in did not finish');
  }
}

/** The claims of the ID token the client gets for `code` (the token endpoint, as a relying party would). */
export async function idTokenClaims(app: FastifyInstance, code: string, page: LoginPage): Promise<Record<string, unknown>> {
  const res = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: CONFIDENTIAL.redirect_uris[0],
    code_verifier: page.verifier,
  });
  if (res.statusCode !== 200) throw new Error(`token endpoint: ${res.statusCode} ${res.body}`);
  const idToken = (res.json() as { id_token: string }).id_token;
  return JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}
