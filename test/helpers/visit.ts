// A browser over real HTTP for e2e tests: follows an authorization URL on a listening server through the sign-in
// and consent pages (posting their forms) and stops at the first redirect that leaves the provider.
import { ALICE } from './app.js';
import type { ListeningApp } from './listening.js';

/** A cookie jar for one origin, honouring Path, Max-Age and Expires. */
export class CookieJar {
  private readonly cookies = new Map<string, { name: string; value: string; path: string }>();

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let path = '/';
      let expired = value === '';
      for (const attribute of attributes) {
        const [key = '', val = ''] = attribute.split('=');
        if (key.toLowerCase() === 'path') path = val;
        if (key.toLowerCase() === 'max-age' && Number(val) <= 0) expired = true;
        if (key.toLowerCase() === 'expires' && Date.parse(val) <= Date.now()) expired = true;
      }
      const key = `${path}\t${name}`;
      if (expired) this.cookies.delete(key);
      else this.cookies.set(key, { name, value, path });
    }
  }

  header(url: URL): string {
    return [...this.cookies.values()]
      .filter((c) => url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }
}

function decodeAttribute(value: string): string {
  return value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

function formOf(page: string): { action: string; csrf: string } {
  const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
  const csrf = /<input type="hidden" name="csrf" value="([^"]*)">/.exec(page)?.[1];
  if (!action || !csrf) throw new Error(`no form with a csrf field in page: ${page.slice(0, 300)}`);
  return { action: decodeAttribute(action), csrf: decodeAttribute(csrf) };
}

export interface Visit {
  /** The provider's pages seen on the way, in order. */
  pages: Array<'login' | 'consent'>;
  /** The consent page's text, when one was shown. */
  consentPage: string | undefined;
  /** Where the provider finally sent the browser: never fetched. */
  callback: URL;
}

export async function visit(
  server: ListeningApp,
  authorizationUrl: URL,
  user: { username: string; password: string } = ALICE,
  jar = new CookieJar(),
): Promise<Visit> {
  const origin = new URL(server.baseUrl).origin;
  const pages: Visit['pages'] = [];
  let consentPage: string | undefined;
  const send = async (url: URL, form?: Record<string, string>) => {
    if (url.origin !== origin) throw new Error(`refusing to send a request off the loopback server: ${url.href}`);
    const headers: Record<string, string> = {};
    const cookie = jar.header(url);
    if (cookie) headers.cookie = cookie;
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(url, {
      method: form ? 'POST' : 'GET',
      headers,
      body: form ? new URLSearchParams(form).toString() : undefined,
      redirect: 'manual',
    });
    jar.store(response);
    return response;
  };

  let url = authorizationUrl;
  let response = await send(url);
  for (let step = 0; step < 10; step += 1) {
    if (response.status === 302 || response.status === 303) {
      const location = new URL(response.headers.get('location') ?? '', url);
      await response.body?.cancel();
      if (location.origin !== origin) return { pages, consentPage, callback: location };
      url = location;
      response = await send(url);
      continue;
    }
    const body = await response.text();
    if (response.status !== 200) throw new Error(`sign-in stopped at HTTP ${response.status}: ${body.slice(0, 300)}`);
    const { action, csrf } = formOf(body);
    url = new URL(action);
    if (body.includes('type="password"')) {
      pages.push('login');
      response = await send(url, { csrf, login: user.username, password: user.password });
    } else {
      pages.push('consent');
      consentPage = body;
      response = await send(url, { csrf, decision: 'allow' });
    }
  }
  throw new Error('sign-in did not finish in 10 steps');
}
