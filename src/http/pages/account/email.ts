// GET/POST /account/email: the signed-in user asks to change their email address; GET/POST /account/email/verify:
// the link mailed to the new address, confirmed with a button; GET/POST /account/email/cancel: the cancel link of the
// notice to the current address, confirmed with a button too (src/domain/accounts/email-change.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accountFormToken } from '../../../domain/accounts/account-forms.js';
import {
  cancelEmailChange,
  confirmEmailChange,
  openEmailCancel,
  openEmailChange,
  requestEmailChange,
} from '../../../domain/accounts/email-change.js';
import type { ProviderContext } from '../../../domain/context.js';
import { single, type RawParams } from '../../../domain/params.js';
import { accountSession, type SignedIn } from './account-session.js';
import { seeOther } from '../../redirect.js';
import {
  accountMessagePage,
  emailCancelPage,
  emailChangePage,
  emailConfirmPage,
  type EmailChangePageInput,
} from '../views/account-pages.js';
import { PAGE_HEADERS, type PageText } from '../../views/layout.js';
import { waitTime } from '../views/wait-time.js';
import { pageLanguage } from '../../page-language.js';

export interface AccountEmailRoutesOptions {
  ctx: ProviderContext;
  onMessagesQueued?: () => void;
}

const formSchema = {
  type: 'object',
  properties: { csrf: { type: 'string' }, email: { type: 'string', maxLength: 1024 }, password: { type: 'string', maxLength: 4096 } },
} as const;
const TOKEN = { type: 'string', maxLength: 64 } as const;
const tokenQuerySchema = { type: 'object', properties: { token: TOKEN } } as const;
const tokenFormSchema = { type: 'object', properties: { token: TOKEN } } as const;

export default async function accountEmailRoutes(app: FastifyInstance, opts: AccountEmailRoutesOptions) {
  const { ctx } = opts;
  const base = `${ctx.config.issuer}/account`;
  const { signedIn, formPost } = accountSession(ctx);
  const page = (reply: FastifyReply, status: number, body: string) => reply.code(status).headers(PAGE_HEADERS).send(body);
  const language = (request: FastifyRequest) => pageLanguage(request, ctx.config);
  const render = (reply: FastifyReply, t: PageText, status: number, who: SignedIn, extra: Partial<EmailChangePageInput> = {}) =>
    page(
      reply,
      status,
      emailChangePage(t, {
        base,
        csrfToken: accountFormToken(who.cookie),
        username: who.user.username,
        current: who.user.email,
        currentUnverified: !who.user.email_verified,
        ...extra,
      }),
    );
  const unusable = (reply: FastifyReply, t: PageText) =>
    page(
      reply,
      400,
      accountMessagePage(t, {
        title: t('reset.invalidTitle'),
        message: t('email.linkInvalid'),
        link: { url: `${base}/email`, label: t('email.askAgain') },
        alert: true,
      }),
    );

  app.get('/account/email', { config: { html: true } }, async (request, reply) => {
    const who = await signedIn(request);
    if (!who) return seeOther(reply, `${base}/sign-in`);
    return render(reply, language(request), 200, who);
  });

  app.post<{ Body: RawParams }>('/account/email', { schema: { body: formSchema }, config: { html: true } }, async (request, reply) => {
    const who = await formPost(request, reply);
    if (!who) return reply;
    const newEmail = single(request.body, 'email') ?? '';
    const t = language(request);
    const result = await requestEmailChange(ctx, {
      locale: t.preferred,
      user: who.user,
      ip: request.ip,
      password: single(request.body, 'password') ?? '',
      newEmail,
    });
    switch (result.kind) {
      case 'sent':
        opts.onMessagesQueued?.();
        return seeOther(reply, `${base}?done=email-sent`);
      case 'invalid':
        return render(reply, t, 400, who, { newEmail, error: { field: 'email', message: t.text(result.message) } });
      case 'wrong-password':
        return render(reply, t, 400, who, { newEmail, error: { field: 'password', message: t('email.wrongPassword') } });
      case 'throttled':
        reply.header('retry-after', String(result.retryAfterSeconds));
        return render(reply, t, 429, who, {
          newEmail,
          error: { field: 'password', message: t('common.waitThenRetry', { wait: waitTime(t, result.retryAfterSeconds) }) },
        });
      case 'busy':
        return render(reply, t, 503, who, { newEmail, error: { field: 'form', message: t('common.busy') } });
    }
  });

  app.get<{ Querystring: { token?: string } }>(
    '/account/email/verify',
    { schema: { querystring: tokenQuerySchema }, config: { html: true } },
    async (request, reply) => {
      const token = request.query.token;
      const newEmail = await openEmailChange(ctx, token);
      const t = language(request);
      if (!newEmail || !token) return unusable(reply, t);
      return page(reply, 200, emailConfirmPage(t, { action: `${base}/email/verify`, token, newEmail }));
    },
  );

  app.post<{ Body: RawParams }>(
    '/account/email/verify',
    { schema: { body: tokenFormSchema }, config: { html: true } },
    async (request, reply) => {
      const outcome = await confirmEmailChange(ctx, single(request.body, 'token'));
      const t = language(request);
      if (outcome.kind === 'unusable') return unusable(reply, t);
      if (outcome.kind === 'taken') {
        return page(
          reply,
          409,
          accountMessagePage(t, {
            title: t('email.takenTitle'),
            message: t('email.taken'),
            link: { url: base, label: t('account.back') },
            alert: true,
          }),
        );
      }
      return page(
        reply,
        200,
        accountMessagePage(t, {
          title: t('email.changedTitle'),
          message: t('email.changed', { email: outcome.newEmail }),
          link: { url: base, label: t('email.goToAccount') },
        }),
      );
    },
  );

  const nothingToCancel = (reply: FastifyReply, t: PageText) =>
    page(
      reply,
      400,
      accountMessagePage(t, {
        title: t('reset.invalidTitle'),
        message: t('email.cancelInvalid'),
        link: { url: base, label: t('email.goToAccount') },
        alert: true,
      }),
    );

  app.get<{ Querystring: { token?: string } }>(
    '/account/email/cancel',
    { schema: { querystring: tokenQuerySchema }, config: { html: true } },
    async (request, reply) => {
      const token = request.query.token;
      const t = language(request);
      if (!token || !(await openEmailCancel(ctx, token))) return nothingToCancel(reply, t);
      return page(reply, 200, emailCancelPage(t, { action: `${base}/email/cancel`, token }));
    },
  );

  app.post<{ Body: RawParams }>(
    '/account/email/cancel',
    { schema: { body: tokenFormSchema }, config: { html: true } },
    async (request, reply) => {
      const t = language(request);
      if (!(await cancelEmailChange(ctx, single(request.body, 'token')))) return nothingToCancel(reply, t);
      return page(
        reply,
        200,
        accountMessagePage(t, {
          title: t('email.cancelledTitle'),
          message: t('email.cancelled'),
          link: { url: `${ctx.config.issuer}/account/forgot`, label: t('mail.passwordChanged.action') },
        }),
      );
    },
  );
}
