// Sign-up pages (SIGNUP=open or invite; not registered when SIGNUP=off): the form and the invitation's form
// (src/domain/accounts/signup.ts); signup-verification.ts takes the code page and the mailed link's confirmation. A
// verified sign-up signs its browser in and goes back to the authorization request it came from when this browser
// holds it, else to the account page (signup-kit.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invitationAddress, signUp, type SignupResult } from '../../domain/accounts/signup.js';
import { single, type RawParams } from '../../domain/params.js';
import { deviceIdentity } from '../../domain/risk/device-identity.js';
import { text } from '../../i18n/translate.js';
import { signupCookie } from '../cookies.js';
import type { PageLanguage } from '../page-language.js';
import { seeOther } from '../redirect.js';
import { DEVICE_SIGNALS_SCRIPT } from '../views/device-signals-script.js';
import { headersAllowingScript } from '../views/layout.js';
import { deviceSignalsOf, ensureDeviceCookie } from './device-signals.js';
import { signupKit, type SignupRoutesOptions } from './signup-kit.js';
import signupVerificationRoutes from './signup-verification.js';
import { signupPage, type SignupPageInput } from './views/signup-pages.js';
import { waitTime } from './views/wait-time.js';

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

/** The sign-up form as posted: where it came from, the invitation, and the values shown again on a refusal. */
interface PostedSignup {
  interactionId: string | undefined;
  invite: string | undefined;
  values: { email: string; name: string; username: string | undefined };
}

function postedSignup(body: RawParams): PostedSignup {
  return {
    interactionId: single(body, 'interaction'),
    invite: single(body, 'invite'),
    values: { email: single(body, 'email') ?? '', name: single(body, 'name') ?? '', username: single(body, 'username') },
  };
}

export default async function signupRoutes(app: FastifyInstance, opts: SignupRoutesOptions) {
  const { ctx } = opts;
  const { base, formInput, language, invitationOnly, finish } = signupKit(ctx);

  const formPage = (reply: FastifyReply, t: PageLanguage, status: number, input: SignupPageInput) =>
    reply.code(status).headers(FORM_HEADERS).send(signupPage(t, input));

  /** The form again, with the values typed and what was wrong. */
  async function formAgain(reply: FastifyReply, t: PageLanguage, posted: PostedSignup, status: number, extra: Partial<SignupPageInput>) {
    const { interactionId, invite, values } = posted;
    const email = invite ? await invitationAddress(ctx, invite) : undefined;
    const input = formInput(interactionId, invite && email ? { token: invite, email } : undefined);
    return formPage(reply, t, status, { ...input, values, ...extra });
  }

  /** The sign-up asked of the domain, with this browser's device identity. */
  function submit(request: FastifyRequest<{ Body: RawParams }>, t: PageLanguage, posted: PostedSignup): Promise<SignupResult> {
    const body = request.body;
    const device = deviceIdentity(deviceSignalsOf(request, ctx.config, body), ctx.deviceSecret);
    const input = {
      ...posted.values,
      password: single(body, 'password') ?? '',
      repeat: single(body, 'repeat') ?? '',
      interactionId: posted.interactionId,
      invite: posted.invite,
      locale: t.preferred,
    };
    return signUp(ctx, input, request.ip, device);
  }

  /** What the browser is shown after the sign-up was asked for. */
  function answer(request: FastifyRequest, reply: FastifyReply, t: PageLanguage, posted: PostedSignup, result: SignupResult) {
    switch (result.kind) {
      case 'pending': {
        const spec = signupCookie(ctx.config);
        reply.setCookie(spec.name, result.signupId, spec.options);
        opts.onMessagesQueued?.();
        return seeOther(reply, `${base}/signup/code`);
      }
      case 'created':
        return finish(request, reply, t, { kind: 'created', userId: result.userId, interactionId: posted.interactionId ?? null });
      case 'invalid':
        return formAgain(reply, t, posted, 400, { problems: result.problems });
      case 'throttled':
        reply.header('retry-after', String(result.retryAfterSeconds));
        return formAgain(reply, t, posted, 429, { error: t('signup.throttled', { wait: waitTime(t, result.retryAfterSeconds) }) });
      case 'refused':
        return formAgain(reply, t, posted, 403, { error: t('signup.refused') });
      case 'invitation-unusable':
        return invitationOnly(reply, t);
      case 'taken':
        return formAgain(reply, t, posted, 409, { problems: [{ field: 'username', message: text('signup.exists') }] });
    }
  }

  app.get<{ Querystring: { interaction?: string; invite?: string } }>(
    '/account/signup',
    { schema: { querystring: pageQuerySchema }, config: { html: true } },
    async (request, reply) => {
      const { interaction, invite } = request.query;
      const t = await language(request, interaction);
      ensureDeviceCookie(request, reply, ctx.config);
      if (invite === undefined && ctx.config.signup.mode !== 'invite') return formPage(reply, t, 200, formInput(interaction));
      const email = await invitationAddress(ctx, invite);
      if (!email || !invite) return invitationOnly(reply, t);
      return formPage(reply, t, 200, formInput(interaction, { token: invite, email }));
    },
  );

  app.post<{ Body: RawParams }>(
    '/account/signup',
    { schema: { body: signupFormSchema }, config: { html: true } },
    async (request, reply) => {
      const posted = postedSignup(request.body);
      const t = await language(request, posted.interactionId);
      if (ctx.config.signup.mode === 'invite' && posted.invite === undefined) return invitationOnly(reply, t);
      const result = await submit(request, t, posted);
      return answer(request, reply, t, posted, result);
    },
  );

  await app.register(signupVerificationRoutes, opts);
}
