// A minimal browser over fetch for e2e tests against a listening provider: a cookie jar, the sign-in and
// consent forms, redirects, and the point where the provider answers the client (redirect or form_post page).
import { ALICE } from './app.js';
import { decodeEntities, readFormPost, type FormPost } from './form-post.js';
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

interface Seen {
  /** The provider's pages shown on the way, in order. */
  pages: Array<'login' | 'second-factor' | 'consent'>;
  /** The consent page's HTML, when one was shown. */
  consentPage: string | undefined;
}

export type ClientAnswer = Seen & ({ mode: 'query'; callback: URL } | { mode: 'form_post'; form: FormPost });

/**
 * Follows an authorization URL like a browser with redirect: 'manual', posting the sign-in and consent
 * forms, until the provider answers the client; nothing is ever sent off `origin`.
 */
export async function visitToClient(
  origin: string,
  authorizationUrl: URL,
  options: {
    user?: { username: string; password: string };
    jar?: CookieJar;
    /** Answers the second-factor page of a challenged sign-in, when one is shown. */
    secondFactor?: () => string;
  } = {},
): Promise<ClientAnswer> {
  const user = options.user ?? ALICE;
  const jar = options.jar ?? new CookieJar();
  const seen: Seen = { pages: [], consentPage: undefined };
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
    if (response.status === 303 || response.status === 302) {
      const location = new URL(response.headers.get('location') ?? '', url);
      await response.body?.cancel();
      if (location.origin !== origin) return { mode: 'query', callback: location, ...seen };
      url = location;
      response = await send(url);
      continue;
    }
    const body = await response.text();
    if (response.status !== 200) throw new Error(`sign-in stopped at HTTP ${response.status}: ${body.slice(0, 300)}`);
    const form = readFormPost(body);
    if (form) return { mode: 'form_post', form, ...seen };
    const action = /<form method="post" action="([^"]+)"/.exec(body)?.[1];
    if (action && options.secondFactor && body.includes('name="code"')) {
      seen.pages.push('second-factor');
      url = new URL(decodeEntities(action));
      const token = /<input type="hidden" name="csrf" value="([^"]*)">/.exec(body)?.[1] ?? '';
      response = await send(url, { csrf: decodeEntities(token), code: options.secondFactor() });
      continue;
    }
    const csrf = /<input type="hidden" name="csrf" value="([^"]*)">/.exec(body)?.[1];
    if (!action || !csrf) throw new Error(`no form in page: ${body.slice(0, 300)}`);
    url = new URL(decodeEntities(action));
    if (body.includes('type="password"')) {
      seen.pages.push('login');
      response = await send(url, { csrf: decodeEntities(csrf), login: user.username, password: user.password });
    } else {
      seen.pages.push('consent');
      seen.consentPage = body;
      response = await send(url, { csrf: decodeEntities(csrf), decision: 'allow' });
    }
  }
  throw new Error('sign-in did not finish in 10 steps');
}

export interface Visit extends Seen {
  /** Where the provider finally sent the browser: never fetched. */
  callback: URL;
}

/** Follows an authorization URL on `server` until the provider redirects the browser to the client. */
export async function visit(
  server: ListeningApp,
  authorizationUrl: URL,
  user: { username: string; password: string } = ALICE,
  jar = new CookieJar(),
): Promise<Visit> {
  const answer = await visitToClient(new URL(server.baseUrl).origin, authorizationUrl, { user, jar });
  if (answer.mode !== 'query') throw new Error(`expected a redirect to the client, got a form_post page for ${answer.form.action}`);
  return { pages: answer.pages, consentPage: answer.consentPage, callback: answer.callback };
}

/** The POST a browser makes when it submits a form_post page: what the client's callback receives. */
export function formPostRequest(form: FormPost): Request {
  return new Request(form.action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form.params).toString(),
  });
}
