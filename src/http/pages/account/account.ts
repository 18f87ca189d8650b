// The account page of the signed-in user: their devices (revoke one), their passkeys (add, rename, delete), their
// authenticator app (enrol, remove).
// Without a session the browser signs in first through the account's own sign-in form: the same password check,
// risk evaluation and second factor as an application's sign-in, but with no client, and it ends back here
// instead of issuing a code. Every form posts a CSRF token derived from the session cookie (or, for the sign-in
// form, equal to a binding cookie); only the passkey forms run script (src/http/views/passkey-script.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accountFormToken, isAccountFormToken } from '../../../domain/accounts/account-forms.js';
import {
  authenticatorState,
  beginEnrolment,
  confirmEnrolment,
  pendingEnrolment,
  removeAuthenticator,
  type CodeCheck,
} from '../../../domain/accounts/authenticator.js';
import type { ProviderContext } from '../../../domain/context.js';
import { endOwnConsoleSession, liveConsoleSessionsOf } from '../../../domain/console/console-sessions.js';
import { listDevices, revokeDevice } from '../../../domain/risk/devices.js';
import { single, type RawParams } from '../../../domain/params.js';
import { randomToken, safeEqual } from '../../../domain/secrets.js';
import { accountSignInCookie, deviceCookie, sessionCookie } from '../../cookies.js';
import { ensureDeviceCookie } from '../device-signals.js';
import { submitPasswordForm, typedLogin } from '../password-form.js';
import { accountSession, BAD_FORM, type SignedIn } from './account-session.js';
import { seeOther } from '../../redirect.js';
import { accountErrorPage, accountPage, newPasskeyPage, totpEnrolmentPage } from '../views/account-pages.js';
import { PAGE_HEADERS, type PageText } from '../../views/layout.js';
import { LOGIN_PAGE_HEADERS, loginPage, PASSKEY_PAGE_HEADERS } from '../../views/pages.js';
import { accountLinks, linkableConnections } from '../../../domain/connections/account-links.js';
import { MAX_PASSKEY_RESPONSE_LENGTH, passkeysOffered } from '../../../domain/accounts/passkey-ceremony.js';
import { passkeyRequestOptions, signInWithPasskey } from '../../../domain/accounts/passkey-sign-in.js';
import {
  deletePasskey,
  MAX_PASSKEYS_PER_USER,
  passkeyName,
  passkeyRegistrationOptions,
  passkeysOf,
  registerPasskey,
  renamePasskey,
} from '../../../domain/accounts/passkeys.js';
import { deviceSignalsOf } from '../device-signals.js';
import {
  PASSKEY_REFUSED,
  postedCredential,
  sendPasskeyError,
  sendPasskeyOptions,
  setSignInCookies,
  UNREADABLE_PASSKEY,
} from '../passkey-form.js';
import { waitTime } from '../views/wait-time.js';
import type { MessageKey } from '../../../i18n/catalog.js';
import { pageLanguage } from '../../page-language.js';

export interface AccountRoutesOptions {
  ctx: ProviderContext;
  /** A revoked device's sessions queued back-channel logouts: deliver them now. */
  onLogoutsQueued?: () => void;
  /** A sign-in queued a message (one-time code, new-device notice): deliver it now. */
  onMessagesQueued?: () => void;
}

/** What the account page says after a redirect (`?done=`): a fixed list, so nothing from the URL is shown. */
const NOTICES: Record<string, MessageKey> = {
  'device-revoked': 'account.done.deviceRevoked',
  'totp-enrolled': 'account.done.totpEnrolled',
  'totp-removed': 'account.done.totpRemoved',
  'email-sent': 'account.done.emailSent',
  'signed-up': 'account.done.signedUp',
  'password-changed': 'account.done.passwordChanged',
  'passkey-added': 'account.done.passkeyAdded',
  'passkey-renamed': 'account.done.passkeyRenamed',
  'passkey-deleted': 'account.done.passkeyDeleted',
  'console-session-ended': 'account.done.consoleSessionEnded',
};
/** The notices of a step that asks a signed-in person to sign in again (a sign-in too old for it). */
const ASKS_SIGN_IN_AGAIN = new Set(['reauth', 'passkey-reauth', 'passkey-remove-reauth']);
const SIGN_IN_NOTICES: Record<string, MessageKey> = {
  'device-revoked': 'account.signIn.deviceRevoked',
  reauth: 'account.signIn.reauth',
  'passkey-reauth': 'account.signIn.passkeyReauth',
  'passkey-remove-reauth': 'account.signIn.passkeyRemoveReauth',
};

/**
 * Setting up an authenticator app asks for a recent sign-in, as Keycloak's "maximum authentication age" of
 * credential setup does (300 s by default): a session left open on a shared computer cannot bind someone else's
 * app to the account. Starting needs a sign-in of the last 5 minutes; showing the secret and confirming it, of
 * the last 15, so that a user scanning the code is not sent back. Removing the app asks for one of its codes.
 */
const ENROLMENT_START_MAX_AUTH_AGE_SECONDS = 300;
const ENROLMENT_FINISH_MAX_AUTH_AGE_SECONDS = 900;

const tooManyPasskeys = (t: PageText) => t('passkey.tooMany', { max: MAX_PASSKEYS_PER_USER });
const BAD_PASSKEY_NAME = 'passkey.badName';
const WRONG_CODE = 'totp.wrongCode';
const tooManyCodes = (t: PageText, seconds: number) => t('totp.tooManyCodes', { wait: waitTime(t, seconds) });

const formSchema = {
  type: 'object',
  properties: {
    csrf: { type: 'string' },
    code: { type: 'string', maxLength: 32 },
    login: { type: 'string' },
    password: { type: 'string' },
    name: { type: 'string', maxLength: 256 },
    credential: { type: 'string', maxLength: MAX_PASSKEY_RESPONSE_LENGTH },
  },
} as const;

const querySchema = {
  type: 'object',
  properties: { done: { type: 'string', maxLength: 32 }, notice: { type: 'string', maxLength: 32 } },
} as const;

const deviceParamsSchema = {
  type: 'object',
  properties: { id: { type: 'string', maxLength: 64 } },
  required: ['id'],
} as const;

/** A passkey's or a console session's id: a UUID (anything else finds nothing, and is refused before the database sees it). */
const uuidParamsSchema = {
  type: 'object',
  properties: { id: { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' } },
  required: ['id'],
} as const;

export default async function accountRoutes(app: FastifyInstance, opts: AccountRoutesOptions) {
  const { ctx } = opts;
  const base = `${ctx.config.issuer}/account`;
  const signInUrl = `${base}/sign-in`;
  const page = (reply: FastifyReply, status: number, body: string) => reply.code(status).headers(PAGE_HEADERS).send(body);

  const { signedIn, formPost } = accountSession(ctx);
  /** Pages outside an authorization request speak the browser's language (Accept-Language), else DEFAULT_LOCALE. */
  const language = (request: FastifyRequest) => pageLanguage(request, ctx.config);

  async function renderAccount(
    request: FastifyRequest,
    reply: FastifyReply,
    who: SignedIn,
    status: number,
    extra: { notice?: string; error?: string } = {},
  ) {
    const [devices, authenticator, passkeys, connections, consoleSessions] = await Promise.all([
      listDevices(ctx, who.user.id, { deviceId: who.session.deviceId, deviceCookie: request.cookies[deviceCookie(ctx.config).name] }),
      authenticatorState(ctx, who.user.id),
      passkeysOf(ctx, who.user.id),
      accountLinks(ctx, who.user),
      liveConsoleSessionsOf(ctx, who.user.id),
    ]);
    const linkable = await linkableConnections(ctx, connections);
    const claims = who.user.claims as Record<string, unknown>;
    return page(
      reply,
      status,
      accountPage(language(request), {
        base,
        csrfToken: accountFormToken(who.cookie),
        displayName: typeof claims.name === 'string' && claims.name ? claims.name : who.user.username,
        email: who.user.email,
        emailVerified: who.user.email_verified,
        devices,
        authenticator,
        passkeys,
        passkeysOffered: passkeysOffered(ctx),
        signOutUrl: `${ctx.config.issuer}/session/end`,
        connections,
        linkable,
        consoleSessions,
        ...extra,
      }),
    );
  }

  async function renderEnrolment(request: FastifyRequest, reply: FastifyReply, who: SignedIn, status: number, error?: string) {
    const pending = await pendingEnrolment(ctx, who.user);
    if (!pending) return seeOther(reply, base);
    // qrcode draws the otpauth URI as an SVG image; the page's policy allows images from data: URLs only. It is loaded
    // here, on the first enrolment, not at start (scripts/build.ts keeps it out of the server bundle).
    const { default: QRCode } = await import('qrcode');
    const svg = await QRCode.toString(pending.uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    return page(
      reply,
      status,
      totpEnrolmentPage(language(request), {
        base,
        csrfToken: accountFormToken(who.cookie),
        qrDataUrl: `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`,
        manualKey: pending.manualKey,
        error,
      }),
    );
  }

  const isRecent = (who: SignedIn, maxAgeSeconds: number) => ctx.clock().getTime() - who.session.authTime.getTime() <= maxAgeSeconds * 1000;

  /** Whether the session's sign-in is at most maxAgeSeconds old; if not, the browser is sent to sign in again. */
  function recentSignIn(reply: FastifyReply, who: SignedIn, maxAgeSeconds: number, notice = 'reauth'): boolean {
    if (isRecent(who, maxAgeSeconds)) return true;
    seeOther(reply, `${signInUrl}?notice=${notice}`);
    return false;
  }

  /** A refused code: the same page again, saying why. */
  function codeRefusal(t: PageText, check: Exclude<CodeCheck, { kind: 'accepted' } | { kind: 'none' }>): { status: number; error: string } {
    return check.kind === 'locked'
      ? { status: 429, error: tooManyCodes(t, check.retryAfterSeconds) }
      : { status: 400, error: t(WRONG_CODE) };
  }

  app.get<{ Querystring: { done?: string } }>(
    '/account',
    { schema: { querystring: querySchema }, config: { html: true } },
    async (request, reply) => {
      const who = await signedIn(request);
      if (!who) return seeOther(reply, signInUrl);
      const done = request.query.done;
      const notice = done && Object.hasOwn(NOTICES, done) ? NOTICES[done] : undefined;
      return renderAccount(request, reply, who, 200, notice ? { notice: language(request)(notice) } : {});
    },
  );

  // --- Signing in without a client ---

  const signInPage = (
    reply: FastifyReply,
    t: PageText,
    status: number,
    binding: string,
    extra: { login?: string; error?: string; notice?: string } = {},
  ) =>
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

  app.get<{ Querystring: { notice?: string } }>(
    '/account/sign-in',
    { schema: { querystring: querySchema }, config: { html: true } },
    async (request, reply) => {
      const notice = request.query.notice;
      // Signed in already: the account page, unless a step asked for the password again.
      const who = await signedIn(request);
      if (who && !(notice !== undefined && ASKS_SIGN_IN_AGAIN.has(notice))) return seeOther(reply, base);
      ensureDeviceCookie(request, reply, ctx.config);
      const spec = accountSignInCookie(ctx.config);
      const current = request.cookies[spec.name];
      const binding = current && /^[A-Za-z0-9_-]{43}$/.test(current) ? current : randomToken();
      if (binding !== current) reply.setCookie(spec.name, binding, spec.options);
      const t = language(request);
      return signInPage(reply, t, 200, binding, {
        ...(notice && Object.hasOwn(SIGN_IN_NOTICES, notice) ? { notice: t(SIGN_IN_NOTICES[notice]!) } : {}),
        ...(who ? { login: who.user.username } : {}),
      });
    },
  );

  app.post<{ Body: RawParams }>('/account/sign-in', { schema: { body: formSchema }, config: { html: true } }, async (request, reply) => {
    const spec = accountSignInCookie(ctx.config);
    const binding = request.cookies[spec.name];
    const csrf = single(request.body, 'csrf');
    const t = language(request);
    // A form from another site arrives without the SameSite=Lax binding cookie, or with another value.
    if (!binding || !csrf || !safeEqual(csrf, binding)) {
      return page(reply, 403, accountErrorPage(t, base, t('common.somethingWrong'), t(BAD_FORM)));
    }
    // The same form, throttles, risk evaluation and second factor as every sign-in; the second-factor page
    // finishes the sign-in and sends the browser back to the account page.
    const result = await submitPasswordForm(ctx, request, reply, {
      returnTo: base,
      clientId: null,
      locale: t.preferred,
      onMessagesQueued: opts.onMessagesQueued,
    });
    if (result.kind === 'refused')
      return signInPage(reply, t, result.status, binding, { login: typedLogin(request.body), error: t.text(result.message) });
    reply.clearCookie(spec.name, spec.options);
    if (result.kind === 'answered') return reply;
    return seeOther(reply, base);
  });

  /** The account sign-in's binding cookie, when the form's CSRF field echoes it. */
  function signInBinding(request: FastifyRequest<{ Body: RawParams }>): string | undefined {
    const binding = request.cookies[accountSignInCookie(ctx.config).name];
    const csrf = single(request.body, 'csrf');
    return binding && csrf && safeEqual(csrf, binding) ? binding : undefined;
  }

  app.post<{ Body: RawParams }>('/account/sign-in/passkey/options', { schema: { body: formSchema } }, async (request, reply) => {
    const binding = signInBinding(request);
    if (!binding) return sendPasskeyError(reply, 403, 'invalid_request', language(request)(BAD_FORM));
    return sendPasskeyOptions(reply, await passkeyRequestOptions(ctx, binding, 'sign-in'));
  });

  app.post<{ Body: RawParams }>(
    '/account/sign-in/passkey',
    { schema: { body: formSchema }, config: { html: true } },
    async (request, reply) => {
      const binding = signInBinding(request);
      const t = language(request);
      if (!binding) return page(reply, 403, accountErrorPage(t, base, t('common.somethingWrong'), t(BAD_FORM)));
      const credential = postedCredential(request.body);
      if (credential === undefined) return signInPage(reply, t, 400, binding, { error: t(UNREADABLE_PASSKEY) });
      const result = await signInWithPasskey(ctx, {
        binding,
        credential,
        signals: deviceSignalsOf(request, ctx.config),
        clientId: null,
        replacesSession: request.cookies[sessionCookie(ctx.config).name],
        locale: t.preferred,
      });
      if (result.kind === 'malformed') return signInPage(reply, t, 400, binding, { error: t(UNREADABLE_PASSKEY) });
      if (result.kind === 'throttled') {
        reply.header('retry-after', String(result.retryAfterSeconds));
        return signInPage(reply, t, 429, binding, { error: t.plural('common.tooManyAttempts', result.retryAfterSeconds) });
      }
      if (result.kind === 'refused') return signInPage(reply, t, 401, binding, { error: t(PASSKEY_REFUSED) });
      setSignInCookies(ctx, reply, result.completed);
      const spec = accountSignInCookie(ctx.config);
      reply.clearCookie(spec.name, spec.options);
      return seeOther(reply, base);
    },
  );

  // --- Devices ---

  app.post<{ Params: { id: string }; Body: RawParams }>(
    '/account/devices/:id/revoke',
    { schema: { params: deviceParamsSchema, body: formSchema }, config: { html: true } },
    async (request, reply) => {
      const who = await formPost(request, reply);
      if (!who) return reply;
      const revoked = await revokeDevice(ctx, who.user.id, request.params.id);
      // Another user's device is answered exactly like one that does not exist.
      if (!revoked) {
        const t = language(request);
        return page(reply, 404, accountErrorPage(t, base, t('account.noSuchDevice'), t('account.noSuchDeviceLead')));
      }
      if (revoked.logoutsQueued > 0) opts.onLogoutsQueued?.();
      if (revoked.endedSids.includes(who.session.sid)) {
        const session = sessionCookie(ctx.config);
        reply.clearCookie(session.name, session.options);
        return seeOther(reply, `${signInUrl}?notice=device-revoked`);
      }
      return seeOther(reply, `${base}?done=device-revoked`);
    },
  );

  // --- Console sessions (issue 38): listed here, so that one the person did not start can be seen and ended ---

  app.post<{ Params: { id: string }; Body: RawParams }>(
    '/account/console-sessions/:id/end',
    { schema: { params: uuidParamsSchema, body: formSchema }, config: { html: true } },
    async (request, reply) => {
      const who = await formPost(request, reply);
      if (!who) return reply;
      // Another user's console session is answered like one that does not exist: the page again, unchanged.
      if (!(await endOwnConsoleSession(ctx, who.user.id, request.params.id))) return seeOther(reply, base);
      return seeOther(reply, `${base}?done=console-session-ended`);
    },
  );

  // --- Authenticator app ---

  app.post<{ Body: RawParams }>('/account/totp', { schema: { body: formSchema }, config: { html: true } }, async (request, reply) => {
    const who = await formPost(request, reply);
    if (!who || !recentSignIn(reply, who, ENROLMENT_START_MAX_AUTH_AGE_SECONDS)) return reply;
    if (!(await beginEnrolment(ctx, who.user.id))) {
      return renderAccount(request, reply, who, 409, { error: language(request)('totp.already') });
    }
    return seeOther(reply, `${base}/totp`);
  });

  app.get('/account/totp', { config: { html: true } }, async (request, reply) => {
    const who = await signedIn(request);
    if (!who) return seeOther(reply, signInUrl);
    if (!recentSignIn(reply, who, ENROLMENT_FINISH_MAX_AUTH_AGE_SECONDS)) return reply;
    return renderEnrolment(request, reply, who, 200);
  });

  app.post<{ Body: RawParams }>(
    '/account/totp/confirm',
    { schema: { body: formSchema }, config: { html: true } },
    async (request, reply) => {
      const who = await formPost(request, reply);
      if (!who || !recentSignIn(reply, who, ENROLMENT_FINISH_MAX_AUTH_AGE_SECONDS)) return reply;
      if (!(await pendingEnrolment(ctx, who.user))) return seeOther(reply, base);
      const check = await confirmEnrolment(ctx, who.user.id, single(request.body, 'code') ?? '');
      if (check.kind === 'accepted') return seeOther(reply, `${base}?done=totp-enrolled`);
      if (check.kind === 'none') return seeOther(reply, base);
      const { status, error } = codeRefusal(language(request), check);
      return renderEnrolment(request, reply, who, status, error);
    },
  );

  app.post<{ Body: RawParams }>(
    '/account/totp/remove',
    { schema: { body: formSchema }, config: { html: true } },
    async (request, reply) => {
      const who = await formPost(request, reply);
      if (!who) return reply;
      const check = await removeAuthenticator(ctx, who.user.id, single(request.body, 'code') ?? '');
      if (check.kind === 'accepted') return seeOther(reply, `${base}?done=totp-removed`);
      if (check.kind === 'none') return seeOther(reply, base);
      const { status, error } = codeRefusal(language(request), check);
      return renderAccount(request, reply, who, status, { error });
    },
  );

  // --- Passkeys ---
  // Adding one asks for a recent sign-in, as setting up an authenticator app does (the same ages); removing one too.

  const passkeyPage = (reply: FastifyReply, t: PageText, status: number, who: SignedIn, extra: { name?: string; error?: string } = {}) =>
    reply
      .code(status)
      .headers(PASSKEY_PAGE_HEADERS)
      .send(newPasskeyPage(t, { base, csrfToken: accountFormToken(who.cookie), ...extra }));

  app.post<{ Body: RawParams }>(
    '/account/passkeys/new',
    { schema: { body: formSchema }, config: { html: true } },
    async (request, reply) => {
      const who = await formPost(request, reply);
      if (!who || !recentSignIn(reply, who, ENROLMENT_START_MAX_AUTH_AGE_SECONDS, 'passkey-reauth')) return reply;
      return seeOther(reply, `${base}/passkeys/new`);
    },
  );

  app.get('/account/passkeys/new', { config: { html: true } }, async (request, reply) => {
    const who = await signedIn(request);
    if (!who) return seeOther(reply, signInUrl);
    if (!recentSignIn(reply, who, ENROLMENT_FINISH_MAX_AUTH_AGE_SECONDS, 'passkey-reauth')) return reply;
    return passkeyPage(reply, language(request), 200, who);
  });

  app.post<{ Body: RawParams }>('/account/passkeys/options', { schema: { body: formSchema } }, async (request, reply) => {
    const who = await signedIn(request);
    const t = language(request);
    if (!who) return sendPasskeyError(reply, 401, 'login_required', t('account.signedOut'));
    if (!isAccountFormToken(who.cookie, single(request.body, 'csrf'))) return sendPasskeyError(reply, 403, 'invalid_request', t(BAD_FORM));
    if (!isRecent(who, ENROLMENT_FINISH_MAX_AUTH_AGE_SECONDS)) {
      return sendPasskeyError(reply, 401, 'login_required', t('passkey.tooOld'));
    }
    const options = await passkeyRegistrationOptions(ctx, who.user, who.cookie);
    if (options.kind === 'too-many') return sendPasskeyError(reply, 409, 'invalid_request', tooManyPasskeys(t));
    return sendPasskeyOptions(reply, options.options);
  });

  app.post<{ Body: RawParams }>('/account/passkeys', { schema: { body: formSchema }, config: { html: true } }, async (request, reply) => {
    const who = await formPost(request, reply);
    if (!who || !recentSignIn(reply, who, ENROLMENT_FINISH_MAX_AUTH_AGE_SECONDS, 'passkey-reauth')) return reply;
    const t = language(request);
    const typed = single(request.body, 'name') ?? '';
    const name = typed.trim() === '' ? t('passkey.defaultName') : passkeyName(typed);
    if (name === undefined) return passkeyPage(reply, t, 400, who, { error: t(BAD_PASSKEY_NAME) });
    const credential = postedCredential(request.body);
    if (credential === undefined) return passkeyPage(reply, t, 400, who, { name, error: t(UNREADABLE_PASSKEY) });
    const registered = await registerPasskey(ctx, who.user.id, who.cookie, credential, name);
    switch (registered.kind) {
      case 'registered':
        return seeOther(reply, `${base}?done=passkey-added`);
      case 'duplicate':
        return passkeyPage(reply, t, 409, who, { name, error: t('passkey.duplicate') });
      case 'too-many':
        return passkeyPage(reply, t, 409, who, { name, error: tooManyPasskeys(t) });
      case 'refused':
        return passkeyPage(reply, t, 400, who, { name, error: t('passkey.refused') });
    }
  });

  const noSuchPasskey = (reply: FastifyReply, t: PageText) =>
    page(reply, 404, accountErrorPage(t, base, t('passkey.noSuch'), t('passkey.noSuchLead')));

  app.post<{ Params: { id: string }; Body: RawParams }>(
    '/account/passkeys/:id/rename',
    { schema: { params: uuidParamsSchema, body: formSchema }, config: { html: true } },
    async (request, reply) => {
      const who = await formPost(request, reply);
      if (!who) return reply;
      const name = passkeyName(single(request.body, 'name'));
      if (name === undefined) return renderAccount(request, reply, who, 400, { error: language(request)(BAD_PASSKEY_NAME) });
      if (!(await renamePasskey(ctx, who.user.id, request.params.id, name))) return noSuchPasskey(reply, language(request));
      return seeOther(reply, `${base}?done=passkey-renamed`);
    },
  );

  app.post<{ Params: { id: string }; Body: RawParams }>(
    '/account/passkeys/:id/delete',
    { schema: { params: uuidParamsSchema, body: formSchema }, config: { html: true } },
    async (request, reply) => {
      const who = await formPost(request, reply);
      // Removing the authenticator app asks for one of its codes; removing a passkey, a sign-in of the last minutes
      // (issue 38): a session left open on a shared computer cannot take a way of signing in away from its owner.
      if (!who || !recentSignIn(reply, who, ENROLMENT_START_MAX_AUTH_AGE_SECONDS, 'passkey-remove-reauth')) return reply;
      const deleted = await deletePasskey(ctx, who.user.id, request.params.id);
      if (deleted === 'not-found') return noSuchPasskey(reply, language(request));
      if (deleted === 'last-sign-in-method') {
        return renderAccount(request, reply, who, 409, { error: language(request)('passkey.onlyWay') });
      }
      return seeOther(reply, `${base}?done=passkey-deleted`);
    },
  );
}
