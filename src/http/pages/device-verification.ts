// The device verification page (RFC 8628 3.3): the user types the code shown on the device, signs in if needed
// (the same password form, risk evaluation and second factor as every sign-in), then approves or denies.
//
// One cookie (http/cookies.ts deviceFlowCookie) carries the browser through: its value is the CSRF token of every
// form, and a new one, bound to the request whose code was typed, is issued at each code entry. No script; every
// step works as plain form posts.
import { meetsMfaRequirement } from '../../domain/accounts/second-factor-policy.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderContext } from '../../domain/context.js';
import {
  accountName,
  boundDeviceAuthorization,
  decideDeviceAuthorization,
  enterUserCode,
  formatUserCode,
  normaliseUserCode,
  type PendingDeviceAuthorization,
} from '../../domain/device-flow/device-authorization.js';
import { single, type RawParams } from '../../domain/params.js';
import { randomToken, safeEqual } from '../../domain/secrets.js';
import { resolveSession } from '../../domain/accounts/sessions.js';
import { deviceFlowCookie, sessionCookie } from '../cookies.js';
import { ensureDeviceCookie } from './device-signals.js';
import { pageErrors } from './page-errors.js';
import { submitPasswordForm, typedLogin } from './password-form.js';
import { seeOther } from '../redirect.js';
import { deviceConfirmPage, deviceDonePage, userCodePage } from './views/device-pages.js';
import { PAGE_HEADERS } from '../views/layout.js';
import { deviceNotInGroupPage } from './views/group-pages.js';
import { LOGIN_PAGE_HEADERS, loginPage } from '../views/pages.js';
import type { MessageKey } from '../../i18n/catalog.js';
import { pageLanguage, type PageLanguage } from '../page-language.js';

const WRONG_CODE = 'device.wrongCode';
const START_AGAIN = 'device.startAgain';
const FORM_EXPIRED = 'device.formExpired';

/** The flow cookie is 256 random bits in base64url; anything else counts as absent. */
const FLOW_SECRET = /^[A-Za-z0-9_-]{43}$/;

const formSchema = {
  type: 'object',
  properties: {
    csrf: { type: 'string' },
    user_code: { type: 'string' },
    login: { type: 'string' },
    password: { type: 'string' },
    decision: { type: 'string', enum: ['approve', 'deny'] },
  },
} as const;

const querySchema = { type: 'object', properties: { user_code: { type: 'string' } } } as const;

/** Thrown where the page cannot go on; shown on the error page, never redirected. */
class VerificationError extends Error {
  constructor(readonly key: MessageKey) {
    super(key);
  }
}

export default async function deviceVerificationRoutes(
  app: FastifyInstance,
  opts: { ctx: ProviderContext; onMessagesQueued?: () => void },
) {
  const { ctx } = opts;
  const entryAction = `${ctx.config.issuer}/device`;
  const confirmAction = `${ctx.config.issuer}/device/confirm`;
  const loginAction = `${ctx.config.issuer}/device/login`;
  const page = (reply: FastifyReply, status: number, body: string) => reply.code(status).headers(PAGE_HEADERS).send(body);

  const flowSecret = (request: FastifyRequest): string | undefined => {
    const value = request.cookies[deviceFlowCookie(ctx.config).name];
    return value && FLOW_SECRET.test(value) ? value : undefined;
  };
  const setFlowSecret = (reply: FastifyReply, value: string) => {
    const cookie = deviceFlowCookie(ctx.config);
    reply.setCookie(cookie.name, value, cookie.options);
  };

  /** The flow secret of a form post: the CSRF field must equal the cookie. */
  function postedSecret(request: FastifyRequest<{ Body: RawParams }>): string {
    const secret = flowSecret(request);
    const csrf = single(request.body, 'csrf');
    if (!secret || !csrf || !safeEqual(csrf, secret)) throw new VerificationError(FORM_EXPIRED);
    return secret;
  }

  async function pendingFor(secret: string): Promise<PendingDeviceAuthorization> {
    const pending = await boundDeviceAuthorization(ctx, secret);
    if (!pending) throw new VerificationError(START_AGAIN);
    return pending;
  }

  /** Pages outside an authorization request speak the browser's language (Accept-Language), else DEFAULT_LOCALE. */
  const language = (request: FastifyRequest) => pageLanguage(request, ctx.config);

  const signInPage = (
    reply: FastifyReply,
    t: PageLanguage,
    status: number,
    secret: string,
    pending: PendingDeviceAuthorization,
    login?: string,
    error?: string,
  ) =>
    reply
      .code(status)
      .headers(LOGIN_PAGE_HEADERS)
      .send(loginPage(t, { action: loginAction, csrfToken: secret, clientName: pending.clientName, login, error }));

  const withPageErrors = pageErrors({ isRefusal: (err) => err instanceof VerificationError, language });

  // RFC 8628 3.3: the verification URI, with the user code already in it when the device showed
  // verification_uri_complete (3.3.1). Nothing is looked up here: only a posted code counts as an entry.
  app.get<{ Querystring: { user_code?: string } }>(
    '/device',
    { schema: { querystring: querySchema }, config: { html: true } },
    async (request, reply) => {
      let secret = flowSecret(request);
      if (!secret) {
        secret = randomToken();
        setFlowSecret(reply, secret);
      }
      const linked = request.query.user_code;
      const normalised = linked === undefined ? undefined : normaliseUserCode(linked);
      return page(
        reply,
        200,
        userCodePage(language(request), {
          action: entryAction,
          csrfToken: secret,
          userCode: normalised ? formatUserCode(normalised) : linked?.slice(0, 32),
          fromLink: normalised !== undefined,
        }),
      );
    },
  );

  app.post<{ Body: RawParams }>(
    '/device',
    { schema: { body: formSchema }, config: { html: true } },
    withPageErrors(async (request, reply) => {
      const secret = postedSecret(request);
      const t = language(request);
      const typed = single(request.body, 'user_code') ?? '';
      const next = randomToken();
      const entry = await enterUserCode(ctx, typed, request.ip, next);
      if (entry.kind === 'bound') {
        setFlowSecret(reply, next);
        return seeOther(reply, confirmAction);
      }
      if (entry.kind === 'throttled') {
        // RFC 6585 4: 429 Too Many Requests, with Retry-After.
        const n = entry.retryAfterSeconds;
        reply.header('retry-after', String(n));
        return page(
          reply,
          429,
          userCodePage(t, {
            action: entryAction,
            csrfToken: secret,
            userCode: typed.slice(0, 32),
            error: t.plural('common.tooManyAttempts', n),
          }),
        );
      }
      return page(
        reply,
        400,
        userCodePage(t, { action: entryAction, csrfToken: secret, userCode: typed.slice(0, 32), error: t(WRONG_CODE) }),
      );
    }),
  );

  // The request this browser typed the code of: a sign-in first when there is no session, else the confirmation.
  app.get(
    '/device/confirm',
    { config: { html: true } },
    withPageErrors(async (request, reply) => {
      const secret = flowSecret(request);
      if (!secret) throw new VerificationError(START_AGAIN);
      const pending = await pendingFor(secret);
      const session = await resolveSession(ctx, request.cookies[sessionCookie(ctx.config).name]);
      const t = language(request);
      // A client that requires a second factor takes only a session that had one; else a sign-in first, with one.
      if (!session || !meetsMfaRequirement(session.amr, pending.requireMfa)) {
        ensureDeviceCookie(request, reply, ctx.config);
        return signInPage(reply, t, 200, secret, pending);
      }
      return page(
        reply,
        200,
        deviceConfirmPage(t, {
          action: confirmAction,
          csrfToken: secret,
          clientName: pending.clientName,
          selfRegistered: pending.selfRegistered,
          deviceLabel: pending.deviceLabel,
          requestedAt: pending.requestedAt,
          now: ctx.clock(),
          userName: await accountName(ctx, session.userId),
          scopes: pending.scopes,
          apiScopes: pending.apiScopes,
        }),
      );
    }),
  );

  app.post<{ Body: RawParams }>(
    '/device/login',
    { schema: { body: formSchema }, config: { html: true } },
    withPageErrors(async (request, reply) => {
      const secret = postedSecret(request);
      const pending = await pendingFor(secret);
      const t = language(request);
      const result = await submitPasswordForm(ctx, request, reply, {
        returnTo: confirmAction,
        clientId: pending.clientId,
        locale: t.preferred,
        requireMfa: pending.requireMfa,
        onMessagesQueued: opts.onMessagesQueued,
      });
      if (result.kind === 'answered') return reply;
      if (result.kind === 'refused') {
        return signInPage(reply, t, result.status, secret, pending, typedLogin(request.body), t.text(result.message));
      }
      return seeOther(reply, confirmAction);
    }),
  );

  app.post<{ Body: RawParams }>(
    '/device/confirm',
    { schema: { body: formSchema }, config: { html: true } },
    withPageErrors(async (request, reply) => {
      const secret = postedSecret(request);
      const session = await resolveSession(ctx, request.cookies[sessionCookie(ctx.config).name]);
      // Signed out in the meantime (or, for a client that requires one, without a second factor): the confirmation
      // page asks for a sign-in again.
      if (!session || !meetsMfaRequirement(session.amr, (await pendingFor(secret)).requireMfa)) return seeOther(reply, confirmAction);
      const decision = single(request.body, 'decision');
      if (decision === undefined) throw new VerificationError('device.choose');
      const approve = decision === 'approve';
      const decided = await decideDeviceAuthorization(ctx, secret, session, approve);
      if (decided === undefined) throw new VerificationError(START_AGAIN);
      const cookie = deviceFlowCookie(ctx.config);
      reply.clearCookie(cookie.name, cookie.options);
      if (decided.kind === 'refused') return page(reply, 403, deviceNotInGroupPage(language(request), decided.clientName));
      return page(reply, 200, deviceDonePage(language(request), approve));
    }),
  );
}
