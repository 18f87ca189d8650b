// The password form of every sign-in page (the authorization request's, the device verification page's, the
// account page's): one attempt through the throttles, the risk evaluation and, when asked for, the second factor;
// the cookies it earns.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import { single, type RawParams } from '../../domain/params.js';
import { signInWithPassword, type PasswordSignIn } from '../../domain/accounts/password-sign-in.js';
import { beginSecondFactor } from '../../domain/accounts/second-factor.js';
import { completeSignIn } from '../../domain/accounts/sign-in-completion.js';
import { TemporarilyUnavailable } from '../../errors/oauth-error.js';
import { DirectoryUnavailable } from '../../domain/directories/directory-unavailable.js';
import type { ActiveSession } from '../../domain/accounts/sessions.js';
import { challengeCookie, sessionCookie } from '../cookies.js';
import { deviceSignalsOf, setDeviceCookie } from './device-signals.js';
import { seeOther } from '../redirect.js';
import type { Locale } from '../../i18n/catalog.js';
import { text, type Text } from '../../i18n/translate.js';

type Refusal =
  Exclude<PasswordSignIn, { kind: 'signed-in' } | { kind: 'challenge' }> | { kind: 'busy' } | { kind: 'directory-unavailable' };

/** What the sign-in page says, and with which status, when an attempt does not sign in. */
function refusal(outcome: Refusal): { status: number; message: Text; retryAfter?: number } {
  switch (outcome.kind) {
    case 'wrong-credentials':
      // A block decided before the password was checked says what happened: it reveals nothing about the account.
      if (outcome.evaluation?.blockedBeforePassword) return { status: 401, message: text('signIn.refused') };
      return { status: 401, message: text('signIn.wrongCredentials') };
    case 'throttled': {
      // RFC 6585 4: 429 Too Many Requests, "MAY include a Retry-After header indicating how long to wait".
      const n = outcome.retryAfterSeconds;
      return {
        status: 429,
        message: text(n === 1 ? 'common.tooManyAttempts.one' : 'common.tooManyAttempts.other', { count: n }),
        retryAfter: n,
      };
    }
    case 'busy':
      return { status: 503, message: text('common.busy'), retryAfter: 1 };
    case 'directory-unavailable':
      // The password was not checked: neither a wrong password nor a failure of ours (RFC 9110 15.6.4).
      return { status: 503, message: text('signIn.directoryUnavailable'), retryAfter: 5 };
    case 'no-second-factor':
      // RFC 9110 15.5.4 403: understood, and refused until the account has a second factor.
      return { status: 403, message: text('signIn.secondFactorRequired') };
  }
}

export type PasswordFormResult =
  /** Signed in: the session cookie is set on the reply. */
  | { kind: 'signed-in'; session: ActiveSession }
  /** A second factor first: the reply already sends the browser to the code page, which returns it to `returnTo`. */
  | { kind: 'answered' }
  /** Not signed in: show the sign-in page again with this status and message (Retry-After is set when due). */
  | { kind: 'refused'; status: number; message: Text };

export interface PasswordFormContext {
  /** Where the browser goes once a second factor has signed it in: an issuer URL. */
  returnTo: string;
  /** The client the sign-in is for; null on the account page, which signs in for itself. */
  clientId: string | null;
  /** The sign-in page's language: remembered as the user's, and spoken by the code page and the mails that follow. */
  locale: Locale | undefined;
  /** The client requires a second factor (src/domain/accounts/second-factor-policy.ts). */
  requireMfa?: boolean;
  /** The request waiting for the sign-in asks for a second factor: one follows when the user has one. */
  stepUp?: boolean;
  onMessagesQueued?: (() => void) | undefined;
}

/** The login and password of the posted form, as typed (the page shows the login again after a refusal). */
export function typedLogin(form: RawParams): string {
  return single(form, 'login') ?? '';
}

export async function submitPasswordForm(
  ctx: ProviderContext,
  request: FastifyRequest<{ Body: RawParams }>,
  reply: FastifyReply,
  form: PasswordFormContext,
): Promise<PasswordFormResult> {
  const outcome = await attemptSignIn(ctx, typedLogin(request.body), single(request.body, 'password') ?? '', request, form);
  if (outcome.kind === 'challenge') {
    // A second factor first; the code page sends the browser back to returnTo, signed in.
    const challengeId = await beginSecondFactor(ctx, outcome, form.returnTo, form.clientId, form.locale);
    form.onMessagesQueued?.();
    const cookie = challengeCookie(ctx.config);
    reply.setCookie(cookie.name, challengeId, cookie.options);
    seeOther(reply, `${ctx.config.issuer}/sign-in/verify`);
    return { kind: 'answered' };
  }
  if (outcome.kind !== 'signed-in') {
    const { status, message, retryAfter } = refusal(outcome);
    if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
    return { kind: 'refused', status, message };
  }
  const cookie = sessionCookie(ctx.config);
  const created = await completeSignIn(
    ctx,
    Object.assign({}, outcome, {
      amr: ['pwd'],
      clientId: form.clientId,
      replacesSession: request.cookies[cookie.name],
      locale: form.locale,
    }),
  );
  form.onMessagesQueued?.();
  reply.setCookie(cookie.name, created.cookie, cookie.options);
  if (created.newDeviceCookie) setDeviceCookie(reply, ctx.config, created.newDeviceCookie);
  return { kind: 'signed-in', session: created.session };
}

/** A busy process answers like a refused attempt: on the sign-in page, which the person can submit again. */
async function attemptSignIn(
  ctx: ProviderContext,
  login: string,
  password: string,
  request: FastifyRequest<{ Body: RawParams }>,
  form: Pick<PasswordFormContext, 'clientId' | 'requireMfa' | 'stepUp'>,
): Promise<PasswordSignIn | { kind: 'busy' } | { kind: 'directory-unavailable' }> {
  const signals = deviceSignalsOf(request, ctx.config, request.body);
  try {
    return await signInWithPassword(ctx, login, password, signals, form.clientId, form.requireMfa ?? false, form.stepUp ?? false);
  } catch (err) {
    if (err instanceof DirectoryUnavailable) return { kind: 'directory-unavailable' };
    if (err instanceof TemporarilyUnavailable) return { kind: 'busy' };
    throw err;
  }
}
