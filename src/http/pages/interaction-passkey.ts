// Signing in to a pending authorization request with a passkey (WebAuthn L3 §7.2): the options, bound to this
// interaction's cookie, and the assertion, after which the request goes on as after a password.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { signInWithPasskey, passkeyRequestOptions, type PasskeySignIn } from '../../domain/accounts/passkey-sign-in.js';
import { InteractionError, type Interaction } from '../../domain/authorization/authorize.js';
import type { RawParams } from '../../domain/params.js';
import { sessionCookie } from '../cookies.js';
import type { PageText } from '../views/layout.js';
import { deviceSignalsOf } from './device-signals.js';
import { formSchema, interactionKit, paramsSchema, type InteractionRoutesOptions, type Params } from './interaction-kit.js';
import {
  PASSKEY_REFUSED,
  postedCredential,
  sendPasskeyError,
  sendPasskeyOptions,
  setSignInCookies,
  UNREADABLE_PASSKEY,
} from './passkey-form.js';

export default async function interactionPasskeyRoutes(app: FastifyInstance, opts: InteractionRoutesOptions) {
  const { ctx } = opts;
  const { interactionOf, language, errorLanguage, signInPage, proceed, withPageErrors } = interactionKit(ctx);

  /** The interaction's binding, or the JSON refusal the page's script shows when the interaction cannot go on. */
  async function bindingOf(request: FastifyRequest<{ Params: Params; Body: RawParams }>, reply: FastifyReply) {
    try {
      return (await interactionOf(request, request.body)).binding;
    } catch (err) {
      if (err instanceof InteractionError) {
        sendPasskeyError(reply, 403, 'invalid_request', (await errorLanguage(request))(err.key));
        return undefined;
      }
      throw err;
    }
  }

  app.post<{ Params: Params; Body: RawParams }>(
    '/interaction/:id/passkey/options',
    { schema: { params: paramsSchema, body: formSchema } },
    async (request, reply) => {
      const binding = await bindingOf(request, reply);
      if (binding === undefined) return reply;
      return sendPasskeyOptions(reply, await passkeyRequestOptions(ctx, binding, 'sign-in'));
    },
  );

  /** A passkey sign-in that did not happen: the sign-in page again, saying why. */
  function refusal(
    reply: FastifyReply,
    t: PageText,
    interaction: Interaction,
    binding: string,
    result: Exclude<PasskeySignIn, { kind: 'signed-in' }>,
  ) {
    if (result.kind === 'malformed') return signInPage(reply, t, 400, interaction, binding, { error: t(UNREADABLE_PASSKEY) });
    if (result.kind === 'throttled') {
      reply.header('retry-after', String(result.retryAfterSeconds));
      return signInPage(reply, t, 429, interaction, binding, { error: t.plural('common.tooManyAttempts', result.retryAfterSeconds) });
    }
    return signInPage(reply, t, 401, interaction, binding, { error: t(PASSKEY_REFUSED) });
  }

  app.post<{ Params: Params; Body: RawParams }>(
    '/interaction/:id/passkey',
    { schema: { params: paramsSchema, body: formSchema }, config: { html: true } },
    withPageErrors(async (request, reply) => {
      const { interaction, binding } = await interactionOf(request, request.body);
      const t = language(request, interaction);
      const credential = postedCredential(request.body);
      if (credential === undefined) return signInPage(reply, t, 400, interaction, binding, { error: t(UNREADABLE_PASSKEY) });
      const result = await signInWithPasskey(ctx, {
        binding,
        credential,
        signals: deviceSignalsOf(request, ctx.config),
        clientId: interaction.request.clientId,
        replacesSession: request.cookies[sessionCookie(ctx.config).name],
        locale: t.preferred,
      });
      if (result.kind !== 'signed-in') return refusal(reply, t, interaction, binding, result);
      setSignInCookies(ctx, reply, result.completed);
      return proceed(reply, t, interaction, binding, result.completed.session, true);
    }),
  );
}
