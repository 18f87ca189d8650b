// Reads form_post response pages (OAuth 2.0 Form Post Response Mode) and drives a sign-in that ends in one.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { ALICE } from './app.js';
import { authorizePath, Browser, formAction, hiddenField, localPath } from './flow.js';

export function decodeEntities(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

export interface FormPost {
  /** The form's action, decoded: where the browser posts the response. */
  action: string;
  /** The hidden fields, decoded, in page order. */
  params: Array<[string, string]>;
  /** The text of the page's one inline script, if any. */
  script: string | undefined;
}

/** The form_post page's form, or undefined when the page holds none with hidden response fields. */
export function readFormPost(page: string): FormPost | undefined {
  const form = /<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/.exec(page);
  if (!form) return undefined;
  const params: Array<[string, string]> = [];
  for (const input of form[2]!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    params.push([decodeEntities(input[1]!), decodeEntities(input[2]!)]);
  }
  if (params.length === 0 || params.some(([name]) => name === 'csrf')) return undefined;
  const script = /<script>([\s\S]*?)<\/script>/.exec(page)?.[1];
  return { action: decodeEntities(form[1]!), params, script };
}

/** Where the provider finally sent the browser: a redirect (query) or a form_post page. */
export type ClientResponse =
  | { mode: 'query'; location: URL; response: LightMyRequestResponse }
  | { mode: 'form_post'; form: FormPost; response: LightMyRequestResponse };

export interface DriveOptions {
  browser?: Browser;
  user?: { username: string; password: string };
  decision?: 'allow' | 'deny';
  /** The app's issuer (default: the test issuer on localhost:3000). */
  issuer?: string;
}

/**
 * Follows authorize -> sign-in -> consent like a browser until the provider answers the client, by a
 * redirect off the provider or by a form_post page; returns that answer.
 */
export async function authorizeToClient(
  app: FastifyInstance,
  params: Record<string, string | undefined>,
  options: DriveOptions = {},
): Promise<ClientResponse & { browser: Browser }> {
  const browser = options.browser ?? new Browser();
  const user = options.user ?? ALICE;
  const issuer = options.issuer ?? 'http://localhost:3000/sso';
  let response = await browser.request(app, 'GET', authorizePath(params));
  for (let step = 0; step < 8; step += 1) {
    if (response.statusCode === 303) {
      const location = new URL(String(response.headers.location));
      if (!location.href.startsWith(`${issuer}/`)) return { mode: 'query', location, response, browser };
      response = await browser.request(app, 'GET', localPath(location.href));
      continue;
    }
    if (response.statusCode !== 200) throw new Error(`stopped at HTTP ${response.statusCode}: ${response.body.slice(0, 300)}`);
    const form = readFormPost(response.body);
    if (form) return { mode: 'form_post', form, response, browser };
    const csrf = hiddenField(response.body, 'csrf');
    const action = formAction(response.body);
    response = response.body.includes('type="password"')
      ? await browser.request(app, 'POST', action, { csrf, login: user.username, password: user.password })
      : await browser.request(app, 'POST', action, { csrf, decision: options.decision ?? 'allow' });
  }
  throw new Error('the provider did not answer the client in 8 steps');
}
