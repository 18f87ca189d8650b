// GET/POST /account/password: the signed-in user changes their password (src/domain/accounts/password-change.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accountFormToken } from '../../../domain/accounts/account-forms.js';
import { changePassword, type PasswordChange } from '../../../domain/accounts/password-change.js';
import type { ProviderContext } from '../../../domain/context.js';
import { single, type RawParams } from '../../../domain/params.js';
import { accountSession, type SignedIn } from './account-session.js';
import { seeOther } from '../../redirect.js';
import { accountMessagePage, passwordChangePage, type PasswordChangePageInput } from '../views/account-pages.js';
import { isDirectoryUser } from '../../../domain/directories/directory-sign-in.js';
import { PAGE_HEADERS } from '../../views/layout.js';
import { waitTime } from '../views/wait-time.js';
import type { Translate } from '../../../i18n/translate.js';
import { pageLanguage } from '../../page-language.js';

export interface AccountPasswordRoutesOptions {
  ctx: ProviderContext;
  onMessagesQueued?: () => void;
  onLogoutsQueued?: () => void;
}

const formSchema = {
  type: 'object',
  properties: {
    csrf: { type: 'string' },
    current: { type: 'string', maxLength: 4096 },
    password: { type: 'string', maxLength: 4096 },
    repeat: { type: 'string', maxLength: 4096 },
  },
} as const;

/** What the page says when the change did not happen, and with which status. */
function refusal(
  t: Translate,
  result: Exclude<PasswordChange, { kind: 'changed' }>,
): {
  status: number;
  error: NonNullable<PasswordChangePageInput['error']>;
} {
  switch (result.kind) {
    case 'mismatch':
      return { status: 400, error: { field: 'repeat', message: t('password.mismatchNew') } };
    case 'weak':
      return { status: 400, error: { field: 'password', message: t.text(result.problem.message) } };
    case 'wrong-current':
      return { status: 400, error: { field: 'current', message: t('password.wrongCurrent') } };
    case 'throttled':
      return {
        status: 429,
        error: { field: 'current', message: t('common.waitThenRetry', { wait: waitTime(t, result.retryAfterSeconds) }) },
      };
    case 'busy':
      return { status: 503, error: { field: 'form', message: t('common.busy') } };
    case 'conflict':
      return { status: 409, error: { field: 'form', message: t('password.conflict') } };
    case 'directory-managed':
      return { status: 409, error: { field: 'form', message: t('password.directoryManaged') } };
  }
}

export default async function accountPasswordRoutes(app: FastifyInstance, opts: AccountPasswordRoutesOptions) {
  const { ctx } = opts;
  const base = `${ctx.config.issuer}/account`;
  const { signedIn, formPost } = accountSession(ctx);
  const render = (request: FastifyRequest, reply: FastifyReply, status: number, who: SignedIn, error?: PasswordChangePageInput['error']) =>
    reply
      .code(status)
      .headers(PAGE_HEADERS)
      .send(
        passwordChangePage(pageLanguage(request, ctx.config), {
          base,
          csrfToken: accountFormToken(who.cookie),
          username: who.user.username,
          minLength: ctx.config.passwordPolicy.minLength,
          error,
        }),
      );

  app.get('/account/password', { config: { html: true } }, async (request, reply) => {
    const who = await signedIn(request);
    if (!who) return seeOther(reply, `${base}/sign-in`);
    if (isDirectoryUser(who.user)) {
      // Keycloak's READ_ONLY edit mode: the directory holds the password, so there is no form to show.
      const t = pageLanguage(request, ctx.config);
      const message = { title: t('password.directoryManagedTitle'), message: t('password.directoryManaged'), alert: true };
      return reply
        .code(200)
        .headers(PAGE_HEADERS)
        .send(accountMessagePage(t, { ...message, link: { url: base, label: t('account.back') } }));
    }
    return render(request, reply, 200, who);
  });

  app.post<{ Body: RawParams }>('/account/password', { schema: { body: formSchema }, config: { html: true } }, async (request, reply) => {
    const who = await formPost(request, reply);
    if (!who) return reply;
    const t = pageLanguage(request, ctx.config);
    const result = await changePassword(ctx, {
      locale: t.preferred,
      user: who.user,
      sid: who.session.sid,
      ip: request.ip,
      current: single(request.body, 'current') ?? '',
      password: single(request.body, 'password') ?? '',
      repeat: single(request.body, 'repeat') ?? '',
    });
    if (result.kind === 'changed') {
      opts.onMessagesQueued?.();
      if (result.logoutsQueued > 0) opts.onLogoutsQueued?.();
      return seeOther(reply, `${base}?done=password-changed`);
    }
    const { status, error } = refusal(t, result);
    if (result.kind === 'throttled') reply.header('retry-after', String(result.retryAfterSeconds));
    return render(request, reply, status, who, error);
  });
}
