// A browser signing in through the server's own pages: authorize, the sign-in form, the consent form when
// it is shown, and back to the client with a code. Cookies kept in the jar; redirects within the issuer followed.
import type { CookieJar } from './cookie-jar.js';
import { BenchError } from './errors.js';
import { pathOn, type HttpClient, type Reply } from './http-client.js';
import { readForm } from './html-form.js';
import type { AuthRequest, IssuedCode, OidcClient } from './oidc-client.js';

export interface SignInOptions {
  username: string;
  password: string;
  /** Whether a consent page may be answered; in the timed password scenario consent is already given. */
  answerConsent: boolean;
  /** Called after each request with its name and duration in nanoseconds. */
  onStep?: (step: string, ns: number) => void;
}

const MAX_STEPS = 8;

export async function signInWithForms(
  oidc: OidcClient,
  http: HttpClient,
  jar: CookieJar,
  request: AuthRequest,
  options: SignInOptions,
): Promise<IssuedCode> {
  const send = async (step: string, method: 'GET' | 'POST', path: string, form?: URLSearchParams): Promise<Reply> => {
    const started = process.hrtime.bigint();
    const headers: Record<string, string> = { accept: 'text/html' };
    const cookie = jar.header(path);
    if (cookie) headers.cookie = cookie;
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await http.request(method, path, headers, form?.toString());
    jar.store(res.headers, path);
    options.onStep?.(step, Number(process.hrtime.bigint() - started));
    return res;
  };

  let step = 'authorize';
  let res = await send(step, 'GET', request.path);
  for (let n = 0; n < MAX_STEPS; n += 1) {
    if (res.status === 302 || res.status === 303) {
      const location = res.headers.location;
      if (oidc.isClientRedirect(location)) return oidc.codeFrom(location!, request);
      if (!location) throw new BenchError(`${step}_no_location`, `HTTP ${res.status}`);
      step = 'page';
      res = await send(step, 'GET', pathOn(http.origin, new URL(location, http.origin).href));
      continue;
    }
    if (res.status !== 200) throw new BenchError(`${step}_http_${res.status}`, res.body.slice(0, 200));
    const form = readForm(res.body);
    if (!form) throw new BenchError(`${step}_no_form`, res.body.slice(0, 200));
    const fields = new URLSearchParams(form.hidden);
    if (form.hasPassword) {
      step = 'login';
      fields.append('login', options.username);
      fields.append('password', options.password);
    } else {
      const allow = form.buttons.find((b) => b.value === 'allow');
      if (!allow) throw new BenchError(`${step}_unknown_form`, res.body.slice(0, 200));
      if (!options.answerConsent) throw new BenchError('consent_page_shown', 'consent was asked again');
      step = 'consent';
      fields.append(allow.name, allow.value);
    }
    res = await send(step, 'POST', pathOn(http.origin, new URL(form.action, http.origin).href), fields);
  }
  throw new BenchError('sign_in_too_many_steps', `no redirect to the client after ${MAX_STEPS} steps`);
}
