// /account/signup/code and /account/signup/verify: a sign-up verified by the code it mailed, or by its link (a page
// that asks to confirm, so that a mail scanner following the link verifies nothing).
import type { FastifyInstance } from 'fastify';
import { verifySignupCode, verifySignupLink } from '../../domain/accounts/signup.js';
import { single, type RawParams } from '../../domain/params.js';
import { signupCookie } from '../cookies.js';
import { signupKit, type SignupRoutesOptions } from './signup-kit.js';
import { signupCodePage, signupConfirmPage } from './views/signup-pages.js';

const TOKEN = { type: 'string', maxLength: 64 } as const;
const codeFormSchema = { type: 'object', properties: { code: { type: 'string', maxLength: 32 } } } as const;
const tokenQuerySchema = { type: 'object', properties: { token: TOKEN } } as const;
const tokenFormSchema = { type: 'object', properties: { token: TOKEN } } as const;

export default async function signupVerificationRoutes(app: FastifyInstance, opts: SignupRoutesOptions) {
  const { ctx } = opts;
  const { base, page, language, finish } = signupKit(ctx);
  const minutes = Math.max(1, Math.floor(ctx.config.signup.verificationTtlSeconds / 60));

  app.get('/account/signup/code', { config: { html: true } }, async (request, reply) =>
    page(reply, 200, signupCodePage(await language(request), { action: `${base}/signup/code`, minutes })),
  );

  app.post<{ Body: RawParams }>(
    '/account/signup/code',
    { schema: { body: codeFormSchema }, config: { html: true } },
    async (request, reply) => {
      const spec = signupCookie(ctx.config);
      const t = await language(request);
      const result = await verifySignupCode(ctx, request.cookies[spec.name], single(request.body, 'code') ?? '');
      if (result.kind === 'wrong-code') {
        const error = result.left > 0 ? t.plural('signup.wrongCode', result.left) : t('signup.wrongCodeLast');
        return page(reply, 400, signupCodePage(t, { action: `${base}/signup/code`, minutes, error }));
      }
      if (result.kind !== 'unusable') reply.clearCookie(spec.name, spec.options);
      return finish(request, reply, t, result);
    },
  );

  app.get<{ Querystring: { token?: string } }>(
    '/account/signup/verify',
    { schema: { querystring: tokenQuerySchema }, config: { html: true } },
    async (request, reply) =>
      page(reply, 200, signupConfirmPage(await language(request), { action: `${base}/signup/verify`, token: request.query.token ?? '' })),
  );

  app.post<{ Body: RawParams }>(
    '/account/signup/verify',
    { schema: { body: tokenFormSchema }, config: { html: true } },
    async (request, reply) => finish(request, reply, await language(request), await verifySignupLink(ctx, single(request.body, 'token'))),
  );
}
