// The account page driven with app.inject: signing in through it, its forms' token, and an authenticator app
// computed from the enrolment page's manual key.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { base32Decode } from '../../src/domain/accounts/base32.js';
import { totp } from '../../src/domain/accounts/totp.js';
import { ALICE } from './app.js';
import { Browser, hiddenField, localPath } from './flow.js';

/** A strong enough KEYS_ENCRYPTION_SECRET for tests: authenticator apps need one. */
export const KEYS_SECRET = { KEYS_ENCRYPTION_SECRET: 'test-keys-encryption-secret-0123456789abcdef' };

/** A clock the test moves by hand (the app and the authenticator must agree on the time). */
export class TestClock {
  private offsetMs = 0;
  /**
   * With `frozenAt`, time moves only when the test advances it: a check of "a second before the limit" then holds
   * however long the machine takes between two requests. Without it, time runs on from the real clock.
   */
  constructor(private readonly frozenAt?: Date) {}
  readonly now = (): Date => new Date((this.frozenAt?.getTime() ?? Date.now()) + this.offsetMs);
  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }
}

/** Signs in through /sso/account (no client): the browser ends on the account page, signed in. */
export async function accountSignIn(
  app: FastifyInstance,
  browser = new Browser(),
  user: { username: string; password: string } = ALICE,
): Promise<Browser> {
  const start = await browser.request(app, 'GET', '/sso/account');
  if (start.statusCode !== 303) throw new Error(`expected a redirect to the sign-in page, got ${start.statusCode}`);
  const form = await browser.request(app, 'GET', localPath(String(start.headers.location)));
  const posted = await browser.request(app, 'POST', '/sso/account/sign-in', {
    csrf: hiddenField(form.body, 'csrf'),
    login: user.username,
    password: user.password,
  });
  if (posted.statusCode !== 303 || posted.headers.location !== 'http://localhost:3000/sso/account') {
    throw new Error(`account sign-in stopped at ${posted.statusCode} ${String(posted.headers.location)}: ${posted.body.slice(0, 200)}`);
  }
  return browser;
}

/** The account page and its forms' CSRF token. */
export async function accountPage(app: FastifyInstance, browser: Browser): Promise<{ page: LightMyRequestResponse; csrf: string }> {
  const page = await browser.request(app, 'GET', '/sso/account');
  if (page.statusCode !== 200) throw new Error(`account page answered ${page.statusCode}`);
  return { page, csrf: hiddenField(page.body, 'csrf') };
}

/** The manual key shown on the enrolment page, as the bytes of the secret. */
export function manualKeyOf(html: string): Buffer {
  const match = /<code class="key" id="manual-key">([A-Z2-7 ]+)<\/code>/.exec(html);
  const secret = match?.[1] ? base32Decode(match[1]) : undefined;
  if (!secret) throw new Error('no manual key in the page');
  return secret;
}

/** Starts an enrolment and returns the secret and the enrolment page. */
export async function startEnrolment(
  app: FastifyInstance,
  browser: Browser,
): Promise<{ secret: Buffer; page: LightMyRequestResponse; csrf: string }> {
  const { csrf } = await accountPage(app, browser);
  const started = await browser.request(app, 'POST', '/sso/account/totp', { csrf });
  if (started.statusCode !== 303) throw new Error(`enrolment did not start: ${started.statusCode} ${started.body.slice(0, 200)}`);
  const page = await browser.request(app, 'GET', '/sso/account/totp');
  return { secret: manualKeyOf(page.body), page, csrf };
}

/** Enrols an authenticator for the signed-in user with the code of `at`; returns the secret. */
export async function enrol(app: FastifyInstance, browser: Browser, at: Date): Promise<Buffer> {
  const { secret, csrf } = await startEnrolment(app, browser);
  const confirmed = await browser.request(app, 'POST', '/sso/account/totp/confirm', { csrf, code: totp(secret, at) });
  if (confirmed.statusCode !== 303) throw new Error(`enrolment not confirmed: ${confirmed.statusCode} ${confirmed.body.slice(0, 300)}`);
  return secret;
}
