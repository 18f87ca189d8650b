// GET/POST /account/email: the signed-in user asks to change their email address; GET/POST /account/email/verify:
// the link mailed to the new address, confirmed with a button (src/domain/accounts/email-change.ts).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { accountFormToken } from '../../domain/accounts/account-forms.js';
import { confirmEmailChange, openEmailChange, requestEmailChange } from '../../domain/accounts/email-change.js';
import type { ProviderContext } from '../../domain/context.js';
import { single, type RawParams } from '../../domain/params.js';
import { accountSession, type SignedIn } from '../account-session.js';
import { seeOther } from '../redirect.js';
import { accountMessagePage, emailChangePage, emailConfirmPage, type EmailChangePageInput } from '../views/account-pages.js';
import { PAGE_HEADERS } from '../views/layout.js';
import { waitTime } from '../views/wait-time.js';

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
  const render = (reply: FastifyReply, status: number, who: SignedIn, extra: Partial<EmailChangePageInput> = {}) =>
    page(
      reply,
      status,
      emailChangePage({ base, csrfToken: accountFormToken(who.cookie), username: who.user.username, current: who.user.email, ...extra }),
    );
  const unusable = (reply: FastifyReply) =>
    page(
      reply,
      400,
      accountMessagePage({
        title: 'This link no longer works',
        message: 'The link has expired, was already used, or a newer one was sent since. Your email address has not changed.',
        link: { url: `${base}/email`, label: 'Ask again' },
        alert: true,
      }),
    );

  app.get('/account/email', { config: { html: true } }, async (request, reply) => {
    const who = await signedIn(request);
    if (!who) return seeOther(reply, `${base}/sign-in`);
    return render(reply, 200, who);
  });

  app.post<{ Body: RawParams }>('/account/email', { schema: { body: formSchema }, config: { html: true } }, async (request, reply) => {
    const who = await formPost(request, reply);
    if (!who) return reply;
    const newEmail = single(request.body, 'email') ?? '';
    const result = await requestEmailChange(ctx, {
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
        return render(reply, 400, who, { newEmail, error: { field: 'email', message: result.message } });
      case 'wrong-password':
        return render(reply, 400, who, { newEmail, error: { field: 'password', message: 'The password is not correct.' } });
      case 'throttled':
        reply.header('retry-after', String(result.retryAfterSeconds));
        return render(reply, 429, who, {
          newEmail,
          error: { field: 'password', message: `Too many attempts. Wait ${waitTime(result.retryAfterSeconds)}, then try again.` },
        });
      case 'busy':
        return render(reply, 503, who, { newEmail, error: { field: 'form', message: 'The service is busy. Try again in a few seconds.' } });
    }
  });

  app.get<{ Querystring: { token?: string } }>(
    '/account/email/verify',
    { schema: { querystring: tokenQuerySchema }, config: { html: true } },
    async (request, reply) => {
      const token = request.query.token;
      const newEmail = await openEmailChange(ctx, token);
      if (!newEmail || !token) return unusable(reply);
      return page(reply, 200, emailConfirmPage({ action: `${base}/email/verify`, token, newEmail }));
    },
  );

  app.post<{ Body: RawParams }>(
    '/account/email/verify',
    { schema: { body: tokenFormSchema }, config: { html: true } },
    async (request, reply) => {
      const outcome = await confirmEmailChange(ctx, single(request.body, 'token'));
      if (outcome.kind === 'unusable') return unusable(reply);
      if (outcome.kind === 'taken') {
        return page(
          reply,
          409,
          accountMessagePage({
            title: 'This address is taken',
            message: 'The address belongs to another account by now, so your email address has not changed.',
            link: { url: base, label: 'Back to your account' },
            alert: true,
          }),
        );
      }
      return page(
        reply,
        200,
        accountMessagePage({
          title: 'Email address changed',
          message: `Your account uses ${outcome.newEmail} from now on.`,
          link: { url: base, label: 'Go to your account' },
        }),
      );
    },
  );
}
