// Hardening over real HTTP with openid-client v6 as the relying party: a throttled sign-in that completes once
// its lock has run out, nosniff on every answer the library reads, and CORS for a browser-based public client.
import * as oidc from 'openid-client';
import t from 'tap';
import { ALICE, CONFIDENTIAL, PUBLIC } from '../../helpers/app.js';
import { listenTestApp, type ListeningApp } from '../../helpers/listening.js';

/** Cookies of one loopback origin, by name; enough here since every request goes to the same issuer. */
class Jar {
  private readonly cookies = new Map<string, string>();
  store(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(pair.indexOf('=') + 1);
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

const unescape = (v: string) =>
  v
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");

function formOf(page: string) {
  const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
  const csrf = /name="csrf" value="([^"]*)"/.exec(page)?.[1];
  if (!action || !csrf) throw new Error(`no form in page: ${page.slice(0, 200)}`);
  return { action: new URL(unescape(action)), csrf: unescape(csrf) };
}

/** A browser on the loopback issuer only: never follows a redirect, never leaves the server. */
function browser(server: ListeningApp) {
  const jar = new Jar();
  return async (url: URL, form?: Record<string, string>) => {
    if (url.origin !== new URL(server.baseUrl).origin) throw new Error(`not sending off the loopback server: ${url.href}`);
    const headers: Record<string, string> = { cookie: jar.header() };
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(url, {
      method: form ? 'POST' : 'GET',
      headers,
      body: form && new URLSearchParams(form).toString(),
      redirect: 'manual',
    });
    jar.store(response);
    return { response, body: await response.text() };
  };
}

/** Records the headers of every response openid-client reads. */
function recording(): { seen: Array<{ url: string; headers: Headers }>; fetch: typeof fetch } {
  const seen: Array<{ url: string; headers: Headers }> = [];
  return {
    seen,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      seen.push({ url: String(input instanceof Request ? input.url : input), headers: response.headers });
      return response;
    },
  };
}

t.test(
  'openid-client completes a sign-in whose account was locked once the lock has run out; a locked attempt shows 429 (RFC 6749 10.10)',
  async (t) => {
    let offsetMs = 0;
    const server = await listenTestApp(t, {
      clock: () => new Date(Date.now() + offsetMs),
      // The throttle alone: the failures would otherwise make the risk evaluation ask for a second factor.
      env: {
        SIGN_IN_ACCOUNT_FREE_ATTEMPTS: '2',
        SIGN_IN_LOCK_BASE_SECONDS: '30',
        SIGN_IN_IP_FREE_ATTEMPTS: '0',
        RISK_WEIGHTS: 'FAILED_ATTEMPTS_USER=0',
      },
    });
    const rp = recording();
    const config = await oidc.discovery(
      new URL(server.issuer),
      CONFIDENTIAL.client_id,
      CONFIDENTIAL.client_secret,
      oidc.ClientSecretBasic(CONFIDENTIAL.client_secret),
      {
        execute: [oidc.allowInsecureRequests],
        [oidc.customFetch]: rp.fetch as oidc.CustomFetch,
      },
    );
    config[oidc.customFetch] = rp.fetch as oidc.CustomFetch;
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: CONFIDENTIAL.redirect_uris[0]!,
      scope: 'openid email',
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });

    const go = browser(server);
    const started = await go(url);
    const page = await go(new URL(started.response.headers.get('location')!));
    const { action, csrf } = formOf(page.body);
    for (let i = 0; i < 2; i += 1) t.equal((await go(action, { csrf, login: ALICE.username, password: 'not-it' })).response.status, 401);
    const locked = await go(action, { csrf, login: ALICE.username, password: ALICE.password });
    t.equal(locked.response.status, 429);
    t.equal(locked.response.headers.get('retry-after'), '30');
    t.match(locked.body, /Too many attempts\. Try again in 30 seconds\./);

    offsetMs += 30_000;
    let step = await go(action, { csrf, login: ALICE.username, password: ALICE.password });
    t.equal(step.response.status, 303, 'after the lock the right password signs in');
    step = await go(new URL(step.response.headers.get('location')!));
    const consent = formOf(step.body);
    step = await go(consent.action, { csrf: consent.csrf, decision: 'allow' });
    const callback = new URL(step.response.headers.get('location')!);
    t.equal(callback.searchParams.get('state'), state);

    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    t.equal(info.email, ALICE.email);

    t.same(
      rp.seen.map((r) => new URL(r.url).pathname),
      ['/sso/.well-known/openid-configuration', '/sso/token', '/sso/userinfo'],
      'discovery, token and userinfo were read (the ID token came over TLS from the token endpoint: no JWKS needed)',
    );
    for (const r of rp.seen) t.equal(r.headers.get('x-content-type-options'), 'nosniff', `${new URL(r.url).pathname}: nosniff`);
  },
);

t.test(
  'a browser-based public client: the preflight and every cross-origin answer it reads allow any origin, without credentials (Fetch 3.2)',
  async (t) => {
    const server = await listenTestApp(t);
    const origin = 'http://localhost:5173';
    for (const path of ['/token', '/userinfo', '/revoke']) {
      const preflight = await fetch(`${server.issuer}${path}`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      });
      t.equal(preflight.status, 204, path);
      t.equal(preflight.headers.get('access-control-allow-origin'), '*');
      t.equal(preflight.headers.get('access-control-allow-headers'), 'Authorization, Content-Type');
      t.equal(preflight.headers.get('access-control-allow-credentials'), null);
    }
    const authorizePreflight = await fetch(`${server.issuer}/authorize`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'GET' },
    });
    t.equal(authorizePreflight.status, 404, 'no preflight on the authorization endpoint');
    t.equal(authorizePreflight.headers.get('access-control-allow-origin'), null);

    const rp = recording();
    const withOrigin: typeof fetch = (input, init) =>
      rp.fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), origin } });
    const config = await oidc.discovery(new URL(server.issuer), PUBLIC.client_id, undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
      [oidc.customFetch]: withOrigin as oidc.CustomFetch,
    });
    config[oidc.customFetch] = withOrigin as oidc.CustomFetch;
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: PUBLIC.redirect_uris[0]!,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const go = browser(server);
    let step = await go(url);
    for (let i = 0; i < 6 && step.response.headers.get('location')?.startsWith(server.issuer) !== false; i += 1) {
      if (step.response.status === 303) {
        step = await go(new URL(step.response.headers.get('location')!));
        continue;
      }
      const form = formOf(step.body);
      step = await go(
        form.action,
        step.body.includes('type="password"')
          ? { csrf: form.csrf, login: ALICE.username, password: ALICE.password }
          : { csrf: form.csrf, decision: 'allow' },
      );
    }
    const tokens = await oidc.authorizationCodeGrant(config, new URL(step.response.headers.get('location')!), {
      pkceCodeVerifier: verifier,
      idTokenExpected: true,
    });
    await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
    t.same(
      rp.seen.map((r) => new URL(r.url).pathname),
      ['/sso/.well-known/openid-configuration', '/sso/token', '/sso/userinfo'],
    );
    for (const r of rp.seen) {
      t.equal(r.headers.get('access-control-allow-origin'), '*', `${new URL(r.url).pathname}: any origin`);
      t.equal(r.headers.get('access-control-allow-credentials'), null, `${new URL(r.url).pathname}: never with credentials`);
    }
  },
);
