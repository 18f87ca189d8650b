// "Forgot your password?" (src/domain/accounts/password-reset.ts): GET/POST /account/forgot asks for a link,
// GET/POST /account/reset?token=… sets the new password. The forms need no CSRF token of their own: asking for a
// link changes nothing but a mail to the account's own address, which anyone may ask for; the reset form carries
// the link's token, which only the mail's reader has. Nothing from the link is logged (the request log drops the
// query string) or sent on (every page has Referrer-Policy: no-referrer).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { openReset, requestPasswordReset, resetPassword } from '../../domain/accounts/password-reset.js';
import type { ProviderContext } from '../../domain/context.js';
import { single, type RawParams } from '../../domain/params.js';
import { PAGE_HEADERS } from '../views/layout.js';
import { forgotPage, forgotSentPage, resetDonePage, resetInvalidPage, resetManagedPage, resetPage } from './views/reset-pages.js';
import { waitTime } from './views/wait-time.js';
import { interactionLocale } from '../../domain/authorization/authorize.js';
import { pageLanguage } from '../page-language.js';

export interface PasswordResetRoutesOptions {
  ctx: ProviderContext;
  /** A link or a notice was queued: deliver it now. */
  onMessagesQueued?: () => void;
  /** Sessions ended by a reset queued back-channel logouts: deliver them now. */
  onLogoutsQueued?: () => void;
}

const INTERACTION = { type: 'string', pattern: '^[A-Za-z0-9_-]{16,64}$' } as const;

const forgotQuerySchema = { type: 'object', properties: { interaction: INTERACTION } } as const;
const forgotFormSchema = {
  type: 'object',
  properties: { login: { type: 'string', maxLength: 1024 }, interaction: INTERACTION },
} as const;
const resetQuerySchema = { type: 'object', properties: { token: { type: 'string', maxLength: 64 } } } as const;
const resetFormSchema = {
  type: 'object',
  properties: {
    token: { type: 'string', maxLength: 64 },
    password: { type: 'string', maxLength: 4096 },
    repeat: { type: 'string', maxLength: 4096 },
    code: { type: 'string', maxLength: 32 },
  },
} as const;

export default async function passwordResetRoutes(app: FastifyInstance, opts: PasswordResetRoutesOptions) {
  const { ctx } = opts;
  const base = `${ctx.config.issuer}/account`;
  const page = (reply: FastifyReply, status: number, body: string) => reply.code(status).headers(PAGE_HEADERS).send(body);
  /** Back to the authorization request the person came from, else to the account's own sign-in. */
  const signInUrl = (interactionId?: string | null) =>
    interactionId ? `${ctx.config.issuer}/interaction/${interactionId}` : `${base}/sign-in`;
  const minutes = Math.max(1, Math.floor(ctx.config.passwordResetTtlSeconds / 60));
  /** Asked for from an authorization request's sign-in page: its language (ui_locales), else the browser's. */
  const language = async (request: FastifyRequest, interactionId?: string) =>
    pageLanguage(request, ctx.config, await interactionLocale(ctx, interactionId));

  app.get<{ Querystring: { interaction?: string } }>(
    '/account/forgot',
    { schema: { querystring: forgotQuerySchema }, config: { html: true } },
    async (request, reply) =>
      page(
        reply,
        200,
        forgotPage(await language(request, request.query.interaction), {
          action: `${base}/forgot`,
          interactionId: request.query.interaction,
          signInUrl: signInUrl(request.query.interaction),
        }),
      ),
  );

  app.post<{ Body: RawParams }>(
    '/account/forgot',
    { schema: { body: forgotFormSchema }, config: { html: true } },
    async (request, reply) => {
      const login = single(request.body, 'login') ?? '';
      const interactionId = single(request.body, 'interaction');
      const t = await language(request, interactionId);
      const result = await requestPasswordReset(ctx, { login, ip: request.ip, interactionId, locale: t.preferred });
      if (result.kind === 'throttled') {
        // RFC 6585 4. The wait is the same for a login that names nobody: it tells nothing about the account.
        const error = t('forgot.throttled', { wait: waitTime(t, result.retryAfterSeconds) });
        reply.header('retry-after', String(result.retryAfterSeconds));
        return page(
          reply,
          429,
          forgotPage(t, { action: `${base}/forgot`, interactionId, login, error, signInUrl: signInUrl(interactionId) }),
        );
      }
      opts.onMessagesQueued?.();
      return page(reply, 200, forgotSentPage(t, { minutes, signInUrl: signInUrl(interactionId) }));
    },
  );

  app.get<{ Querystring: { token?: string } }>(
    '/account/reset',
    { schema: { querystring: resetQuerySchema }, config: { html: true } },
    async (request, reply) => {
      const token = request.query.token;
      const reset = await openReset(ctx, token);
      const t = await language(request);
      if (!reset || !token) return page(reply, 400, resetInvalidPage(t, { forgotUrl: `${base}/forgot` }));
      if (reset.directoryManaged) return page(reply, 409, resetManagedPage(t, { signInUrl: signInUrl(reset.interactionId) }));
      return page(
        reply,
        200,
        resetPage(t, {
          action: `${base}/reset`,
          token,
          username: reset.username,
          minLength: ctx.config.passwordPolicy.minLength,
          askCode: reset.hasAuthenticator,
        }),
      );
    },
  );

  app.post<{ Body: RawParams }>('/account/reset', { schema: { body: resetFormSchema }, config: { html: true } }, async (request, reply) => {
    const token = single(request.body, 'token');
    const t = await language(request);
    const result = await resetPassword(ctx, {
      locale: t.preferred,
      token,
      password: single(request.body, 'password') ?? '',
      repeat: single(request.body, 'repeat') ?? '',
      code: single(request.body, 'code'),
    });
    if (result.kind === 'invalid-link') return page(reply, 400, resetInvalidPage(t, { forgotUrl: `${base}/forgot` }));
    if (result.kind === 'directory-managed') return page(reply, 409, resetManagedPage(t, { signInUrl: signInUrl(null) }));
    if (result.kind === 'done') {
      opts.onMessagesQueued?.();
      if (result.logoutsQueued > 0) opts.onLogoutsQueued?.();
      const continueLabel = result.interactionId ? t('reset.continue') : t('reset.signIn');
      return page(reply, 200, resetDonePage(t, { continueUrl: signInUrl(result.interactionId), continueLabel }));
    }
    const error =
      result.kind === 'mismatch'
        ? { field: 'repeat' as const, message: t('password.mismatch') }
        : result.kind === 'weak'
          ? { field: 'password' as const, message: t.text(result.problem.message) }
          : {
              field: 'code' as const,
              message: result.retryAfterSeconds
                ? t('totp.tooManyCodes', { wait: waitTime(t, result.retryAfterSeconds) })
                : t('totp.wrongCode'),
            };
    const status = result.kind === 'code-refused' && result.retryAfterSeconds ? 429 : 400;
    return page(
      reply,
      status,
      resetPage(t, {
        action: `${base}/reset`,
        token: token!,
        username: result.reset.username,
        minLength: ctx.config.passwordPolicy.minLength,
        askCode: result.reset.hasAuthenticator,
        error,
      }),
    );
  });
}
