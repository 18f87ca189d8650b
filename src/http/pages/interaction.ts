// The sign-in and consent pages of a pending authorization request: the page (sign-in, or consent when signed in),
// the password form, the consent decision; interaction-passkey.ts signs in with a passkey.
import type { FastifyInstance } from 'fastify';
import { InteractionError } from '../../domain/authorization/authorize.js';
import { answerConsent } from '../../domain/authorization/interaction.js';
import { single, type RawParams } from '../../domain/params.js';
import { sendAuthorizationResponse } from '../authorization-response.js';
import { ensureDeviceCookie } from './device-signals.js';
import interactionPasskeyRoutes from './interaction-passkey.js';
import organizationPickRoutes from './organization-pick.js';
import { formSchema, interactionKit, paramsSchema, type InteractionRoutesOptions, type Params } from './interaction-kit.js';
import { submitPasswordForm, typedLogin } from './password-form.js';
import { hintedUpstream } from './upstream-redirect.js';

export default async function interactionRoutes(app: FastifyInstance, opts: InteractionRoutesOptions) {
  const { ctx } = opts;
  const { accountLinks, interactionOf, usableSession, language, clearBinding, signInPage, proceed, withPageErrors } = interactionKit(ctx);

  app.get<{ Params: Params }>(
    '/interaction/:id',
    { schema: { params: paramsSchema }, config: { html: true } },
    withPageErrors(async (request, reply) => {
      const { interaction, binding } = await interactionOf(request);
      const t = language(request, interaction);
      const session = await usableSession(request, interaction);
      if (session) return proceed(reply, t, interaction, binding, session, false);
      // Issue 19: idp_hint, or a login_hint in a connection's domains, goes straight to that upstream.
      const hinted = opts.upstream && (await hintedUpstream(ctx, opts.upstream, request, reply, interaction, t));
      if (hinted) return hinted;
      ensureDeviceCookie(request, reply, ctx.config);
      const login = interaction.request.loginHint ?? undefined;
      return signInPage(reply, t, 200, interaction, binding, { login, ...accountLinks(interaction.id) });
    }),
  );

  app.post<{ Params: Params; Body: RawParams }>(
    '/interaction/:id/login',
    { schema: { params: paramsSchema, body: formSchema }, config: { html: true } },
    withPageErrors(async (request, reply) => {
      const { interaction, binding } = await interactionOf(request, request.body);
      const t = language(request, interaction);
      const result = await submitPasswordForm(ctx, request, reply, {
        returnTo: `${ctx.config.issuer}/interaction/${interaction.id}`,
        clientId: interaction.request.clientId,
        locale: t.preferred,
        requireMfa: interaction.requireMfa,
        onMessagesQueued: opts.onMessagesQueued,
      });
      if (result.kind === 'answered') return reply;
      if (result.kind === 'refused') {
        const refusal = { login: typedLogin(request.body), error: t.text(result.message) };
        return signInPage(reply, t, result.status, interaction, binding, { ...refusal, ...accountLinks(interaction.id) });
      }
      return proceed(reply, t, interaction, binding, result.session, true);
    }),
  );

  await app.register(interactionPasskeyRoutes, opts);
  await app.register(organizationPickRoutes, opts);

  app.post<{ Params: Params; Body: RawParams }>(
    '/interaction/:id/consent',
    { schema: { params: paramsSchema, body: formSchema }, config: { html: true } },
    withPageErrors(async (request, reply) => {
      const { interaction } = await interactionOf(request, request.body);
      const t = language(request, interaction);
      const session = await usableSession(request, interaction);
      if (!session) throw new InteractionError('interaction.signedOut');
      const response = await answerConsent(ctx, interaction, session, single(request.body, 'decision') === 'allow');
      clearBinding(reply, interaction.id);
      return sendAuthorizationResponse(reply, t, response);
    }),
  );
}
