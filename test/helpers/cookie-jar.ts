// A browser's cookie jar for scripted flows across several loopback servers (RFC 6265): cookies belong to a host,
// not to a port, as browsers keep them, so an SP, an IdP and the provider on 127.0.0.1 share one jar as they would
// in a real browser. Path, Domain, Max-Age, Expires and Secure are honoured; HttpOnly and SameSite change nothing
// for a script that sends every request itself.

interface Cookie {
  name: string;
  value: string;
  /** The host the cookie was set by (host-only), or the Domain attribute's value. */
  domain: string;
  hostOnly: boolean;
  path: string;
  secure: boolean;
  /** Milliseconds since the epoch, or undefined for a session cookie. */
  expires: number | undefined;
}

/** RFC 6265 5.1.4: the directory of the request's path, the path a cookie without Path gets. */
function defaultPath(url: URL): string {
  const pathname = url.pathname;
  if (!pathname.startsWith('/') || pathname.lastIndexOf('/') === 0) return '/';
  return pathname.slice(0, pathname.lastIndexOf('/'));
}

/** RFC 6265 5.1.4: path-match. */
function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

/** RFC 6265 5.1.3: domain-match (an IP address matches only itself). */
function domainMatches(host: string, cookie: Cookie): boolean {
  if (cookie.hostOnly || /^[\d.]+$/.test(host) || host.startsWith('[')) return host === cookie.domain;
  return host === cookie.domain || host.endsWith(`.${cookie.domain}`);
}

export class CookieJar {
  private cookies: Cookie[] = [];

  /** Keeps the Set-Cookie headers of a response to a request for `url`. */
  store(url: URL | string, response: Response): void {
    const from = new URL(url);
    for (const line of response.headers.getSetCookie()) this.storeOne(from, line);
  }

  private storeOne(from: URL, line: string): void {
    const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
    const eq = pair.indexOf('=');
    if (eq <= 0) return;
    const cookie: Cookie = {
      name: pair.slice(0, eq).trim(),
      value: pair.slice(eq + 1).trim(),
      domain: from.hostname,
      hostOnly: true,
      path: defaultPath(from),
      secure: false,
      expires: undefined,
    };
    let maxAge: number | undefined;
    for (const attribute of attributes) {
      const at = attribute.indexOf('=');
      const key = (at < 0 ? attribute : attribute.slice(0, at)).trim().toLowerCase();
      const value = at < 0 ? '' : attribute.slice(at + 1).trim();
      if (key === 'path' && value.startsWith('/')) cookie.path = value;
      else if (key === 'domain' && value !== '') {
        const domain = value.replace(/^\./, '').toLowerCase();
        // A server may not set a cookie for another site (RFC 6265 5.3 step 6).
        if (from.hostname !== domain && !from.hostname.endsWith(`.${domain}`)) return;
        cookie.domain = domain;
        cookie.hostOnly = false;
      } else if (key === 'max-age' && /^-?\d+$/.test(value)) maxAge = Number(value);
      else if (key === 'expires' && !Number.isNaN(Date.parse(value))) cookie.expires ??= Date.parse(value);
      else if (key === 'secure') cookie.secure = true;
    }
    // Max-Age wins over Expires (RFC 6265 5.3 step 3).
    if (maxAge !== undefined) cookie.expires = maxAge <= 0 ? 0 : Date.now() + maxAge * 1000;
    this.cookies = this.cookies.filter((c) => !(c.name === cookie.name && c.domain === cookie.domain && c.path === cookie.path));
    if (cookie.expires === undefined || cookie.expires > Date.now()) this.cookies.push(cookie);
  }

  /** The Cookie header for a request to `url` (longer paths first, RFC 6265 5.4), or '' when none applies. */
  header(url: URL | string): string {
    const to = new URL(url);
    const now = Date.now();
    this.cookies = this.cookies.filter((c) => c.expires === undefined || c.expires > now);
    return this.cookies
      .filter((c) => domainMatches(to.hostname, c) && pathMatches(to.pathname, c.path) && (!c.secure || to.protocol === 'https:'))
      .sort((a, b) => b.path.length - a.path.length)
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  /** The names of the cookies held for `url`, for a test's checks (a session cookie gone after logout). */
  names(url: URL | string): string[] {
    return this.header(url)
      .split('; ')
      .filter(Boolean)
      .map((pair) => pair.slice(0, pair.indexOf('=')));
  }

  /** Forgets every cookie: a fresh browser. */
  clear(): void {
    this.cookies = [];
  }
}
