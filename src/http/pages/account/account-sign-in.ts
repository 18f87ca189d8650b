// GET/POST /account/sign-in and its passkey: signing in to the account page without a client, with the same password
// check, risk evaluation and second factor as an application's sign-in; it ends on the account page, not with a code.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { passkeysOffered } from '../../../domain/accounts/passkey-ceremony.js';
import { passkeyRequestOptions, signInWithPasskey, type PasskeySignIn } from '../../../domain/accounts/passkey-sign-in.js';
import { single, type RawParams } from '../../../domain/params.js';
import { waitingRelyingParty } from '../../../domain/saml/idp/pending-sign-in.js';
import { randomToken, safeEqual } from '../../../domain/secrets.js';
import type { MessageKey } from '../../../i18n/catalog.js';
import { accountSignInCookie, samlPendingCookie, sessionCookie } from '../../cookies.js';
import { pendingInvitationUrl } from '../invitation-return.js';
import { seeOther } from '../../redirect.js';
import type { PageText } from '../../views/layout.js';
import { LOGIN_PAGE_HEADERS, loginPage } from '../../views/pages.js';
import { deviceSignalsOf, ensureDeviceCookie } from '../device-signals.js';
import {
  PASSKEY_REFUSED,
  postedCredential,
  sendPasskeyError,
  sendPasskeyOptions,
  setSignInCookies,
  UNREADABLE_PASSKEY,
} from '../passkey-form.js';
import { pendingAsksSecondFactor } from '../../../domain/saml/idp/pending-sign-in.js';
import { submitPasswordForm, typedLogin } from '../password-form.js';
import { accountErrorPage } from '../views/account-pages.js';
import { accountKit, formSchema, querySchema, type AccountRoutesOptions } from './account-kit.js';
import { BAD_FORM } from './account-session.js';

/** The notices of a step that asks a signed-in person to sign in again (a sign-in too old for it). */
const ASKS_SIGN_IN_AGAIN = new Set(['reauth', 'passkey-reauth', 'passkey-remove-reauth']);
const SIGN_IN_NOTICES: Record<string, MessageKey> = {
  'device-revoked': 'account.signIn.deviceRevoked',
  reauth: 'account.signIn.reauth',
  'passkey-reauth': 'account.signIn.passkeyReauth',
  'passkey-remove-reauth': 'account.signIn.passkeyRemoveReauth',
};

type SignInExtra = { login?: string; error?: string; notice?: string };

export default async function accountSignInRoutes(app: FastifyInstance, opts: AccountRoutesOptions) {
  const { ctx } = opts;
  const { base, signInUrl, page, language, signedIn } = accountKit(ctx);

  const signInPage = (reply: FastifyReply, t: PageText, status: number, binding: string, extra: SignInExtra = {}) =>
    reply
      .code(status)
      .headers(LOGIN_PAGE_HEADERS)
      .send(
        loginPage(t, {
          action: signInUrl,
          csrfToken: binding,
          clientName: t('account.yourAccount'),
          forgotUrl: `${base}/forgot`,
          signupUrl: ctx.config.signup.mode === 'open' ? `${base}/signup` : undefined,
          ...(passkeysOffered(ctx) ? { passkey: { optionsUrl: `${signInUrl}/passkey/options`, action: `${signInUrl}/passkey` } } : {}),
          ...extra,
        }),
      );

  /**
   * Where a sign-in ends: back at {issuer}/saml/resume when a SAML request waits for it, at the invitation's link
   * when one does (src/http/pages/invitation.ts), else the account page.
   */
  const afterSignIn = (request: FastifyRequest) => {
    if (request.cookies[samlPendingCookie(ctx.config).name]) return `${ctx.config.issuer}/saml/resume`;
    return pendingInvitationUrl(ctx.config, request) ?? base;
  };

  /** The SAML SP a sign-in here is for (named in its security events), or null for the account page itself. */
  const relyingParty = (request: FastifyRequest) => waitingRelyingParty(ctx, request.cookies[samlPendingCookie(ctx.config).name]) ?? null;

  /** The form's binding cookie: the browser's own when it is well formed, else a new one, set. */
  function bindingCookie(request: FastifyRequest, reply: FastifyReply): string {
    const spec = accountSignInCookie(ctx.config);
    const current = request.cookies[spec.name];
    const binding = current && /^[A-Za-z0-9_-]{43}$/.test(current) ? current : randomToken();
    if (binding !== current) reply.setCookie(spec.name, binding, spec.options);
    return binding;
  }

  /** The account sign-in's binding cookie, when the form's CSRF field echoes it. */
  function signInBinding(request: FastifyRequest<{ Body: RawParams }>): string | undefined {
    const binding = request.cookies[accountSignInCookie(ctx.config).name];
    const csrf = single(request.body, 'csrf');
    return binding && csrf && safeEqual(csrf, binding) ? binding : undefined;
  }

  /** A form from another site arrives without the SameSite=Lax binding cookie, or with another value. */
  const foreignForm = (reply: FastifyReply, t: PageText) =>
    page(reply, 403, accountErrorPage(t, base, t('common.somethingWrong'), t(BAD_FORM)));

  /** Signed in (or on to the second factor): the form's binding cookie is spent. */
  function spendBinding(reply: FastifyReply) {
    const spec = accountSignInCookie(ctx.config);
    reply.clearCookie(spec.name, spec.options);
  }

  app.get<{ Querystring: { notice?: string } }>(
    '/account/sign-in',
    { schema: { querystring: querySchema }, config: { html: true } },
    async (request, reply) => {
      const notice = request.query.notice;
      // Signed in already: the account page, unless a step asked for the password again.
      const who = await signedIn(request);
      if (who && !(notice !== undefined && ASKS_SIGN_IN_AGAIN.has(notice))) return seeOther(reply, base);
      ensureDeviceCookie(request, reply, ctx.config);
      const binding = bindingCookie(request, reply);
      const t = language(request);
      return signInPage(reply, t, 200, binding, {
        ...(notice && Object.hasOwn(SIGN_IN_NOTICES, notice) ? { notice: t(SIGN_IN_NOTICES[notice]!) } : {}),
        ...(who ? { login: who.user.username } : {}),
      });
    },
  );

  app.post<{ Body: RawParams }>('/account/sign-in', { schema: { body: formSchema }, config: { html: true } }, async (request, reply) => {
    const binding = signInBinding(request);
    const t = language(request);
    if (!binding) return foreignForm(reply, t);
    // The same form, throttles, risk evaluation and second factor as every sign-in; the second-factor page
    // finishes the sign-in and sends the browser back to the account page.
    const result = await submitPasswordForm(ctx, request, reply, {
      returnTo: afterSignIn(request),
      clientId: relyingParty(request),
      // A waiting SAML request for MultiFactor: the person's second factor follows the password (SAML step-up).
      stepUp: pendingAsksSecondFactor(ctx, request.cookies[samlPendingCookie(ctx.config).name]),
      locale: t.preferred,
      onMessagesQueued: opts.onMessagesQueued,
    });
    if (result.kind === 'refused')
      return signInPage(reply, t, result.status, binding, { login: typedLogin(request.body), error: t.text(result.message) });
    spendBinding(reply);
    if (result.kind === 'answered') return reply;
    return seeOther(reply, afterSignIn(request));
  });

  app.post<{ Body: RawParams }>('/account/sign-in/passkey/options', { schema: { body: formSchema } }, async (request, reply) => {
    const binding = signInBinding(request);
    if (!binding) return sendPasskeyError(reply, 403, 'invalid_request', language(request)(BAD_FORM));
    return sendPasskeyOptions(reply, await passkeyRequestOptions(ctx, binding, 'sign-in'));
  });

  /** A passkey sign-in that did not happen: the sign-in page again, saying why. */
  function passkeyRefusal(reply: FastifyReply, t: PageText, binding: string, result: Exclude<PasskeySignIn, { kind: 'signed-in' }>) {
    if (result.kind === 'malformed') return signInPage(reply, t, 400, binding, { error: t(UNREADABLE_PASSKEY) });
    if (result.kind === 'throttled') {
      reply.header('retry-after', String(result.retryAfterSeconds));
      return signInPage(reply, t, 429, binding, { error: t.plural('common.tooManyAttempts', result.retryAfterSeconds) });
    }
    return signInPage(reply, t, 401, binding, { error: t(PASSKEY_REFUSED) });
  }

  app.post<{ Body: RawParams }>(
    '/account/sign-in/passkey',
    { schema: { body: formSchema }, config: { html: true } },
    async (request, reply) => {
      const binding = signInBinding(request);
      const t = language(request);
      if (!binding) return foreignForm(reply, t);
      const credential = postedCredential(request.body);
      if (credential === undefined) return signInPage(reply, t, 400, binding, { error: t(UNREADABLE_PASSKEY) });
      const result = await signInWithPasskey(ctx, {
        binding,
        credential,
        signals: deviceSignalsOf(request, ctx.config),
        clientId: relyingParty(request),
        replacesSession: request.cookies[sessionCookie(ctx.config).name],
        locale: t.preferred,
      });
      if (result.kind !== 'signed-in') return passkeyRefusal(reply, t, binding, result);
      setSignInCookies(ctx, reply, result.completed);
      spendBinding(reply);
      return seeOther(reply, afterSignIn(request));
    },
  );
}
