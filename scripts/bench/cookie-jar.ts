// A browser's cookies on one host (the bench server on 127.0.0.1): kept by name and path, sent where the
// path matches (RFC 6265 5.1.4), dropped when Max-Age or Expires says so.
import type http from 'node:http';

interface Cookie {
  name: string;
  value: string;
  path: string;
  expiresAt: number | undefined;
}

function defaultPath(requestPath: string): string {
  const pathname = requestPath.split('?')[0] ?? '/';
  const slash = pathname.lastIndexOf('/');
  return slash <= 0 ? '/' : pathname.slice(0, slash);
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

export class CookieJar {
  private readonly cookies = new Map<string, Cookie>();

  store(headers: http.IncomingHttpHeaders, requestPath: string): void {
    const lines = headers['set-cookie'];
    if (!lines) return;
    for (const line of lines) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq < 1) continue;
      const cookie: Cookie = {
        name: pair.slice(0, eq).trim(),
        value: pair.slice(eq + 1).trim(),
        path: defaultPath(requestPath),
        expiresAt: undefined,
      };
      for (const attribute of attributes) {
        const [key = '', ...rest] = attribute.split('=');
        const value = rest.join('=').trim();
        const name = key.trim().toLowerCase();
        if (name === 'path' && value.startsWith('/')) cookie.path = value;
        else if (name === 'max-age') cookie.expiresAt = Date.now() + Number(value) * 1000;
        else if (name === 'expires' && cookie.expiresAt === undefined) cookie.expiresAt = Date.parse(value);
      }
      const key = `${cookie.path}\t${cookie.name}`;
      if (cookie.value === '' || (cookie.expiresAt !== undefined && cookie.expiresAt <= Date.now())) this.cookies.delete(key);
      else this.cookies.set(key, cookie);
    }
  }

  /** The Cookie header for a request to `path`, or undefined when no cookie applies. */
  header(path: string): string | undefined {
    const now = Date.now();
    const pathname = path.split('?')[0] ?? '/';
    const matching = [...this.cookies.values()]
      .filter((c) => (c.expiresAt === undefined || c.expiresAt > now) && pathMatches(pathname, c.path))
      .sort((a, b) => b.path.length - a.path.length);
    return matching.length === 0 ? undefined : matching.map((c) => `${c.name}=${c.value}`).join('; ');
  }

  names(): string[] {
    return [...this.cookies.values()].map((c) => `${c.name} (path ${c.path})`);
  }
}
