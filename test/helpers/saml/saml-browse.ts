// A scripted browser for SAML flows over fetch: follows redirects with a cookie jar shared by every loopback server
// (test/helpers/cookie-jar.ts), submits the HTML forms that carry SAMLRequest or SAMLResponse as a browser's script
// would (HTTP-POST binding), and fills a sign-in form (a password field) with the given user. It keeps every SAML
// message it carried, decoded, and lets a test replace one on the way (a forged or altered message). Nothing is sent
// off the loopback interface. For the same flows in Chromium, see chromiumSamlVisit below.
import { inflateRawSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { CookieJar } from '../cookie-jar.js';

export type SamlMessageName = 'SAMLRequest' | 'SAMLResponse';

export interface SamlMessage {
  name: SamlMessageName;
  /** HTTP-Redirect (in the query, deflated) or HTTP-POST (in a form, base64 only). SAML 2.0 Bindings 3.4 and 3.5. */
  binding: 'redirect' | 'post';
  /** Where it was sent. */
  destination: string;
  /** The XML of the message. */
  xml: string;
  relayState: string | undefined;
}

export interface BrowsedPage {
  /** The URL of the page where the flow stopped. */
  url: URL;
  status: number;
  body: string;
  /** The requests made, in order (METHOD URL STATUS). */
  steps: string[];
  /** The SAML messages carried on the way, in order. */
  messages: SamlMessage[];
}

export interface SamlBrowseOptions {
  /** Who fills a sign-in form (a form with a password field) on the way; without it, such a page ends the flow. */
  user?: { username: string; password: string };
  /**
   * Called with each SAML message before the browser carries it on; a returned string replaces the message's value
   * on the wire (base64 for POST; base64 of the deflated XML for Redirect, whose signature then no longer matches).
   */
  alter?: (message: SamlMessage, wireValue: string) => string | undefined;
  /** At most this many requests (default 20). */
  maxSteps?: number;
}

interface Form {
  action: URL;
  method: 'GET' | 'POST';
  fields: Array<[string, string]>;
  /** The name of the first input of type password, if any. */
  password: string | undefined;
  /** The name of the first visible text or email input, if any: where a sign-in form takes the username. */
  text: string | undefined;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** HTML character references in attribute values: the named ones a server escapes with, and numeric ones. */
export function decodeHtml(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function attributes(tag: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of tag.matchAll(/([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/g)) {
    found.set(match[1]!.toLowerCase(), decodeHtml(match[2] ?? match[3] ?? match[4] ?? ''));
  }
  return found;
}

/** The page's forms, with the values a browser would submit (hidden and prefilled inputs; no button). */
export function readForms(html: string, pageUrl: URL): Form[] {
  const forms: Form[] = [];
  for (const match of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const formAttributes = attributes(match[1]!);
    const form: Form = {
      action: new URL(formAttributes.get('action') ?? '', pageUrl),
      method: (formAttributes.get('method') ?? 'get').toUpperCase() === 'POST' ? 'POST' : 'GET',
      fields: [],
      password: undefined,
      text: undefined,
    };
    for (const input of match[2]!.matchAll(/<input\b([^>]*)>/gi)) {
      const field = attributes(input[1]!);
      const name = field.get('name');
      const type = (field.get('type') ?? 'text').toLowerCase();
      if (!name || ['submit', 'button', 'image', 'reset'].includes(type)) continue;
      if (type === 'password') form.password ??= name;
      if (['text', 'email'].includes(type)) form.text ??= name;
      if ((type === 'checkbox' || type === 'radio') && !field.has('checked')) continue;
      form.fields.push([name, field.get('value') ?? '']);
    }
    forms.push(form);
  }
  return forms;
}

function decodeMessage(binding: 'redirect' | 'post', value: string): string {
  const bytes = Buffer.from(value, 'base64');
  // SAML 2.0 Bindings 3.4.4.1: the Redirect binding's DEFLATE encoding (raw, no zlib header).
  return binding === 'redirect' ? inflateRawSync(bytes).toString('utf8') : bytes.toString('utf8');
}

/**
 * Follows `start` like a browser until a page that is neither a redirect, nor a SAML form, nor a sign-in form it can
 * fill: that page is returned. Cookies go to and come from `jar` (a new, empty jar by default).
 */
export async function samlBrowse(
  start: URL | string,
  jar: CookieJar = new CookieJar(),
  options: SamlBrowseOptions = {},
): Promise<BrowsedPage> {
  const steps: string[] = [];
  const messages: SamlMessage[] = [];
  const send = async (url: URL, method: 'GET' | 'POST', body?: URLSearchParams) => {
    if (!LOOPBACK.has(url.hostname)) throw new Error(`refusing to send a request off the loopback interface: ${url.href}`);
    const headers: Record<string, string> = { accept: 'text/html,*/*' };
    const cookie = jar.header(url);
    if (cookie) headers.cookie = cookie;
    if (body) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(url, { method, headers, body: body?.toString(), redirect: 'manual' });
    jar.store(url, response);
    steps.push(`${method} ${url.href} ${response.status}`);
    return response;
  };
  /** Records the SAML message in a URL's query (Redirect binding), replacing it if the test says so. */
  const carryRedirect = (url: URL): URL => {
    for (const name of ['SAMLRequest', 'SAMLResponse'] as const) {
      const value = url.searchParams.get(name);
      if (value === null) continue;
      const message: SamlMessage = {
        name,
        binding: 'redirect',
        destination: `${url.origin}${url.pathname}`,
        xml: decodeMessage('redirect', value),
        relayState: url.searchParams.get('RelayState') ?? undefined,
      };
      messages.push(message);
      const replaced = options.alter?.(message, value);
      if (replaced !== undefined) url.searchParams.set(name, replaced);
    }
    return url;
  };

  let url = carryRedirect(new URL(start));
  let method: 'GET' | 'POST' = 'GET';
  let body: URLSearchParams | undefined;
  let signedIn = false;
  for (let step = 0; step < (options.maxSteps ?? 20); step += 1) {
    const response = await send(url, method, body);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      // 307 and 308 repeat the request as it was; 301, 302 and 303 turn it into a GET (as browsers do).
      if (response.status !== 307 && response.status !== 308) {
        method = 'GET';
        body = undefined;
      }
      url = carryRedirect(new URL(location, url));
      continue;
    }
    const html = await response.text();
    const forms = readForms(html, url);
    const samlForm = forms.find((form) => form.fields.some(([name]) => name === 'SAMLRequest' || name === 'SAMLResponse'));
    if (samlForm) {
      const fields = samlForm.fields.map(([name, value]): [string, string] => {
        if (name !== 'SAMLRequest' && name !== 'SAMLResponse') return [name, value];
        const message: SamlMessage = {
          name,
          binding: 'post',
          destination: samlForm.action.href,
          xml: decodeMessage('post', value),
          relayState: samlForm.fields.find(([field]) => field === 'RelayState')?.[1],
        };
        messages.push(message);
        return [name, options.alter?.(message, value) ?? value];
      });
      [url, method, body] = [samlForm.action, samlForm.method, new URLSearchParams(fields)];
      if (method === 'GET') [url, body] = [withQuery(url, fields), undefined];
      continue;
    }
    const signInForm = forms.find((form) => form.password !== undefined && form.text !== undefined);
    if (signInForm && options.user && !signedIn) {
      signedIn = true;
      const fields = signInForm.fields.map(([name, value]): [string, string] => {
        if (name === signInForm.password) return [name, options.user!.password];
        if (name === signInForm.text) return [name, options.user!.username];
        return [name, value];
      });
      [url, method, body] = [signInForm.action, signInForm.method, new URLSearchParams(fields)];
      if (method === 'GET') [url, body] = [withQuery(url, fields), undefined];
      continue;
    }
    return { url, status: response.status, body: html, steps, messages };
  }
  throw new Error(`the flow did not settle in ${options.maxSteps ?? 20} requests:\n${steps.join('\n')}`);
}

function withQuery(url: URL, fields: Array<[string, string]>): URL {
  const next = new URL(url);
  next.search = new URLSearchParams(fields).toString();
  return next;
}

/**
 * The same flow in Chromium (test/helpers/chromium.ts gives the browser): opens `start` in `page`, signs in with
 * `user` on the first page with a password field, lets the pages' own scripts submit the SAML forms, and resolves
 * once the page's URL satisfies `arrived`. The page's text, for the test's checks.
 */
export async function chromiumSamlVisit(
  page: Page,
  start: string,
  options: { user?: { username: string; password: string }; arrived: (url: URL) => boolean; timeoutMs?: number },
): Promise<string> {
  const timeout = options.timeoutMs ?? 15_000;
  await page.goto(start);
  const deadline = Date.now() + timeout;
  let signedIn = false;
  while (!options.arrived(new URL(page.url()))) {
    if (Date.now() > deadline) throw new Error(`Chromium did not arrive in time; it is at ${page.url()}`);
    const password = page.locator('input[type=password]');
    if (!signedIn && options.user && (await password.count()) > 0) {
      signedIn = true;
      await page.locator('input[type=text], input[type=email]').first().fill(options.user.username);
      await password.first().fill(options.user.password);
      await password.first().press('Enter');
    }
    // A SAML form without a script that submits it (SimpleSAMLphp's has one; others show a button).
    else if ((await page.locator('form input[name=SAMLResponse], form input[name=SAMLRequest]').count()) > 0) {
      await page
        .locator('form:has(input[name=SAMLResponse]), form:has(input[name=SAMLRequest])')
        .first()
        .evaluate((form) => (form as unknown as { submit(): void }).submit())
        .catch(() => undefined);
    }
    await page.waitForLoadState('load').catch(() => undefined);
    await page.waitForTimeout(50);
  }
  return page.locator('body').innerText();
}
