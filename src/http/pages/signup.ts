// Sign-up pages (SIGNUP=open or invite; not registered when SIGNUP=off): the form, the code page, the mailed link's
// confirmation, and the invitation's form (src/domain/accounts/signup.ts). A verified sign-up signs its browser in
// and goes back to the authorization request it came from when this browser holds it, else to the account page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createSession } from '../../domain/accounts/sessions.js';
import { invitationAddress, signUp, verifySignupCode, verifySignupLink, type SignupResult } from '../../domain/accounts/signup.js';
import type { ProviderContext } from '../../domain/context.js';
import { single, type RawParams } from '../../domain/params.js';
import { deviceIdentity } from '../../domain/risk/device-identity.js';
import type { SignupVerification } from '../../domain/accounts/signup.js';
import { sessionCookie, signupCookie } from '../cookies.js';
import { deviceSignalsOf, ensureDeviceCookie } from './device-signals.js';
import { seeOther } from '../redirect.js';
import { headersAllowingScript, PAGE_HEADERS, type PageText } from '../views/layout.js';
import { DEVICE_SIGNALS_SCRIPT } from '../views/device-signals-script.js';
import { signupCodePage, signupConfirmPage, signupEndPage, signupPage, type SignupPageInput } from './views/signup-pages.js';
import { waitTime } from './views/wait-time.js';
import { interactionLocale } from '../../domain/authorization/authorize.js';
import { rememberUserLocale } from '../../domain/accounts/users.js';
import { text } from '../../i18n/translate.js';
import { pageLanguage, type PageLanguage } from '../page-language.js';

const FORM_HEADERS = headersAllowingScript(DEVICE_SIGNALS_SCRIPT);
const INTERACTION = { type: 'string', pattern: '^[A-Za-z0-9_-]{16,64}$' } as const;
const TOKEN = { type: 'string', maxLength: 64 } as const;

const pageQuerySchema = { type: 'object', properties: { interaction: INTERACTION, invite: TOKEN } } as const;
const signupFormSchema = {
  type: 'object',
  properties: {
    email: { type: 'string', maxLength: 1024 },
    name: { type: 'string', maxLength: 1024 },
    username: { type: 'string', maxLength: 1024 },
    password: { type: 'string', maxLength: 4096 },
    repeat: { type: 'string', maxLength: 4096 },
    interaction: INTERACTION,
    invite: TOKEN,
  },
} as const;
const codeFormSchema = { type: 'object', properties: { code: { type: 'string', maxLength: 32 } } } as const;
const tokenQuerySchema = { type: 'object', properties: { token: TOKEN } } as const;
const tokenFormSchema = { type: 'object', properties: { token: TOKEN } } as const;

export interface SignupRoutesOptions {
  ctx: ProviderContext;
  onMessagesQueued?: () => void;
}

export default async function signupRoutes(app: FastifyInstance, opts: SignupRoutesOptions) {
  const { ctx } = opts;
  const base = `${ctx.config.issuer}/account`;
  const minutes = Math.max(1, Math.floor(ctx.config.signup.verificationTtlSeconds / 60));
  const page = (reply: FastifyReply, status: number, body: string) => reply.code(status).headers(PAGE_HEADERS).send(body);
  const signInUrl = (interactionId?: string | null) =>
    interactionId ? `${ctx.config.issuer}/interaction/${interactionId}` : `${base}/sign-in`;
  const formInput = (interactionId: string | undefined, invite?: { token: string; email: string }): SignupPageInput => ({
    action: `${base}/signup`,
    interactionId,
    invite,
    askUsername: ctx.config.signup.username === 'optional',
    minLength: ctx.config.passwordPolicy.minLength,
    signInUrl: signInUrl(interactionId),
  });
  /** Started from an authorization request's sign-in page: its language (ui_locales), else the browser's. */
  const language = async (request: FastifyRequest, interactionId?: string) =>
    pageLanguage(request, ctx.config, await interactionLocale(ctx, interactionId));
  const invitationOnly = (reply: FastifyReply, t: PageText) =>
    page(
      reply,
      403,
      signupEndPage(t, {
        title: t('signup.inviteOnlyTitle'),
        message: t('signup.inviteOnly'),
        link: { url: `${base}/sign-in`, label: t('signIn.title') },
        alert: true,
      }),
    );

  /** A verified sign-up: the browser is signed in, and goes on where it came from. */
  async function finish(
    request: FastifyRequest,
    reply: FastifyReply,
    t: PageLanguage,
    result: SignupVerification | { kind: 'created'; userId: string; signupId?: undefined; interactionId: string | null },
  ) {
    if (result.kind === 'unusable') {
      return page(
        reply,
        400,
        signupEndPage(t, {
          title: t('signup.unusableTitle'),
          message: t('signup.unusable'),
          link: { url: `${base}/signup`, label: t('signup.again') },
          alert: true,
        }),
      );
    }
    if (result.kind === 'taken') {
      return page(
        reply,
        409,
        signupEndPage(t, {
          title: t('signup.takenTitle'),
          message: t('signup.taken'),
          link: { url: `${base}/forgot`, label: t('signIn.forgot') },
          alert: true,
        }),
      );
    }
    await rememberUserLocale(ctx, result.userId, t.preferred);
    const spec = sessionCookie(ctx.config);
    const created = await createSession(ctx, result.userId, ctx.clock());
    reply.setCookie(spec.name, created.cookie, spec.options);
    // The browser that signed up holds the authorization request (its interaction cookie): it goes back there. A link
    // opened elsewhere (a phone's mail app) lands on the account page instead.
    const signupSpec = signupCookie(ctx.config);
    const sameBrowser = result.signupId !== undefined && request.cookies[signupSpec.name] === result.signupId;
    if (sameBrowser) reply.clearCookie(signupSpec.name, signupSpec.options);
    const back = sameBrowser && result.interactionId;
    return seeOther(reply, back ? `${ctx.config.issuer}/interaction/${result.interactionId}` : `${base}?done=signed-up`);
  }

  app.get<{ Querystring: { interaction?: string; invite?: string } }>(
    '/account/signup',
    { schema: { querystring: pageQuerySchema }, config: { html: true } },
    async (request, reply) => {
      const { interaction, invite } = request.query;
      const t = await language(request, interaction);
      ensureDeviceCookie(request, reply, ctx.config);
      if (invite !== undefined || ctx.config.signup.mode === 'invite') {
        const email = await invitationAddress(ctx, invite);
        if (!email || !invite) return invitationOnly(reply, t);
        return reply
          .code(200)
          .headers(FORM_HEADERS)
          .send(signupPage(t, formInput(interaction, { token: invite, email })));
      }
      return reply
        .code(200)
        .headers(FORM_HEADERS)
        .send(signupPage(t, formInput(interaction)));
    },
  );

  app.post<{ Body: RawParams }>(
    '/account/signup',
    { schema: { body: signupFormSchema }, config: { html: true } },
    async (request, reply) => {
      const body = request.body;
      const interactionId = single(body, 'interaction');
      const invite = single(body, 'invite');
      const t = await language(request, interactionId);
      if (ctx.config.signup.mode === 'invite' && invite === undefined) return invitationOnly(reply, t);
      const values = { email: single(body, 'email') ?? '', name: single(body, 'name') ?? '', username: single(body, 'username') };
      const device = deviceIdentity(deviceSignalsOf(request, ctx.config, body), ctx.deviceSecret);
      const result: SignupResult = await signUp(
        ctx,
        {
          ...values,
          password: single(body, 'password') ?? '',
          repeat: single(body, 'repeat') ?? '',
          interactionId,
          invite,
          locale: t.preferred,
        },
        request.ip,
        device,
      );
      const again = async (status: number, extra: Partial<SignupPageInput>) => {
        const email = invite ? await invitationAddress(ctx, invite) : undefined;
        const input = formInput(interactionId, invite && email ? { token: invite, email } : undefined);
        return reply
          .code(status)
          .headers(FORM_HEADERS)
          .send(signupPage(t, { ...input, values, ...extra }));
      };
      switch (result.kind) {
        case 'pending': {
          const spec = signupCookie(ctx.config);
          reply.setCookie(spec.name, result.signupId, spec.options);
          opts.onMessagesQueued?.();
          return seeOther(reply, `${base}/signup/code`);
        }
        case 'created':
          return finish(request, reply, t, { kind: 'created', userId: result.userId, interactionId: interactionId ?? null });
        case 'invalid':
          return again(400, { problems: result.problems });
        case 'throttled':
          reply.header('retry-after', String(result.retryAfterSeconds));
          return again(429, { error: t('signup.throttled', { wait: waitTime(t, result.retryAfterSeconds) }) });
        case 'refused':
          return again(403, { error: t('signup.refused') });
        case 'invitation-unusable':
          return invitationOnly(reply, t);
        case 'taken':
          return again(409, { problems: [{ field: 'username', message: text('signup.exists') }] });
      }
    },
  );

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
